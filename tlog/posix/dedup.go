package posix

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/mcpres/mcpres/tlog"
)

// dedupFile is the persistent deduplication index, relative to the log
// directory: private state next to Tessera's .state.
//
// The file is the sequence of the entries' identity hashes (SHA-256 of the
// entry data, 32 bytes each) in log order: the hash of entry i at offset
// 32·i, so the number of indexed entries is the file's length / 32. It is
// only ever appended to. A write torn by a crash leaves a length that is
// not a multiple of 32; opening truncates the torn record, which the
// follower writes again. Opening reads the whole file into memory (32
// bytes per entry on disk, about 100 in memory): fine for a log on one
// disk; a bigger log belongs in MySQL.
//
// Tessera v1.0.4's own POSIX antispam (storage/posix/antispam, Badger) is
// not used: Badger links protobuf, whose package initialisation every
// mcpres run would pay (DESIGN.md, startup budget; the CLI's link test
// forbids it), it cannot be closed, and it logs to the process's stderr.
const (
	dedupFile = ".state/mcpres-dedup"
	dedupLock = ".state/mcpres-dedup.lock"
)

// Dedup is a log directory's deduplication index (tlog.DedupIndex). It is
// held with an exclusive flock(2), which excludes other processes and other
// opens in the same process: OpenDedup waits for it.
type Dedup struct {
	lock   *os.File
	f      *os.File
	mu     sync.RWMutex // guards what follows
	next   uint64
	first  map[[sha256.Size]byte]uint64
	broken error // a failed append: no more appends
}

var _ tlog.DedupIndex = (*Dedup)(nil)

// lockRetry is how often OpenDedup retries while the index is held.
const lockRetry = 20 * time.Millisecond

// OpenDedup opens (creating it if needed) the deduplication index of the
// log directory, waiting while it is held until ctx is done. Close
// releases it.
func (s *Storage) OpenDedup(ctx context.Context) (tlog.DedupIndex, error) {
	if err := os.MkdirAll(filepath.Join(s.dir, ".state"), 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(s.dir, dedupLock), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			lock.Close()
			return nil, fmt.Errorf("locking %s: %w", dedupLock, err)
		}
		select {
		case <-ctx.Done():
			lock.Close()
			return nil, fmt.Errorf("the deduplication index %s is held by another appender (a 'log serve' on this directory? submit with 'log add --server'): %w", dedupFile, ctx.Err())
		case <-time.After(lockRetry):
		}
	}
	d, err := openDedupFile(filepath.Join(s.dir, dedupFile))
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("deduplication index %s: %w", dedupFile, err)
	}
	d.lock = lock
	return d, nil
}

func openDedupFile(path string) (*Dedup, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	n := len(data) / sha256.Size
	if len(data) != n*sha256.Size {
		// A torn append: drop the partial record.
		if err := f.Truncate(int64(n * sha256.Size)); err != nil {
			f.Close()
			return nil, err
		}
	}
	if _, err := f.Seek(int64(n*sha256.Size), io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	d := &Dedup{f: f, next: uint64(n), first: make(map[[sha256.Size]byte]uint64, n)}
	for i := range n {
		h := [sha256.Size]byte(data[i*sha256.Size:])
		if _, ok := d.first[h]; !ok {
			d.first[h] = uint64(i)
		}
	}
	return d, nil
}

// Close closes the index and releases its lock.
func (d *Dedup) Close() error {
	err := d.f.Close()
	if lerr := d.lock.Close(); err == nil {
		err = lerr
	}
	return err
}

// Lookup implements tlog.DedupIndex.
func (d *Dedup) Lookup(ctx context.Context, h []byte) (uint64, bool, error) {
	if len(h) != sha256.Size {
		return 0, false, fmt.Errorf("identity hash of %d bytes, want %d", len(h), sha256.Size)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	i, ok := d.first[[sha256.Size]byte(h)]
	return i, ok, nil
}

// Next implements tlog.DedupIndex.
func (d *Dedup) Next(ctx context.Context) (uint64, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.next, nil
}

// Put implements tlog.DedupIndex: one append of the hashes.
func (d *Dedup) Put(ctx context.Context, from uint64, hashes [][]byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.broken != nil {
		return d.broken
	}
	if from != d.next {
		return fmt.Errorf("%w: it is at %d, not %d", tlog.ErrIndexMoved, d.next, from)
	}
	var buf bytes.Buffer
	for _, h := range hashes {
		if len(h) != sha256.Size {
			return fmt.Errorf("identity hash of %d bytes, want %d", len(h), sha256.Size)
		}
		buf.Write(h)
	}
	if _, err := d.f.Write(buf.Bytes()); err != nil {
		// Whatever part was written is re-checked at the next open;
		// until then this index takes no more appends.
		d.broken = fmt.Errorf("appending to the index: %w", err)
		return d.broken
	}
	for i, h := range hashes {
		k := [sha256.Size]byte(h)
		if _, ok := d.first[k]; !ok {
			d.first[k] = from + uint64(i)
		}
	}
	d.next = from + uint64(len(hashes))
	return nil
}
