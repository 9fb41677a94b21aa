// Package posix stores a tlog log in a directory, with Tessera's POSIX
// driver (github.com/transparency-dev/tessera/storage/posix). It is the
// driver the mcpres CLI chooses.
//
// The directory is a C2SP tlog-tiles log that any static web server can
// serve as it is:
//
//	checkpoint                  the latest signed checkpoint (and cosignatures)
//	tile/L/N[.p/W]              hash tiles
//	tile/entries/N[.p/W]        entry bundles
//	.state/                     Tessera's private state (tree state, locks)
//	.mcpres/log.vkey            the log's verifier key, recorded by Init (KeyFile)
//
// Tessera's POSIX driver serialises writers with fcntl locks in .state, so
// several processes may append to one directory. [Storage.ReplaceCheckpoint]
// takes the same lock Tessera takes to publish (".state/publish.lock" in
// Tessera v1.0.4, the pinned version) before it replaces the checkpoint. On
// Linux it takes it as an open-file-description lock, which conflicts with
// Tessera's process-owned fcntl lock even in the same process, so the
// checkpoint of a log whose appender runs in this process (log serve) can be
// replaced without racing Tessera's publisher. Elsewhere the lock excludes
// other processes only (see lock_other.go).
package posix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/filelock"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/tlog"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
	tposix "github.com/transparency-dev/tessera/storage/posix"
)

// publishLock is the lock file Tessera v1.0.4's POSIX driver holds while it
// publishes a checkpoint (storage/posix/files.go, publishLock in stateDir).
const publishLock = ".state/publish.lock"

// gcLock is the lock Tessera's garbage collector holds while it runs
// (storage/posix/files.go, gcStateLock in stateDir).
const gcLock = ".state/gcState.lock"

// Storage is a log directory. It implements tlog.Storage.
type Storage struct {
	dir   string
	files client.FileFetcher
}

var (
	_ tlog.Storage     = (*Storage)(nil)
	_ tlog.KeyRecorder = (*Storage)(nil)
)

// New returns the storage in directory dir (created by tlog's Init).
func New(dir string) *Storage {
	return &Storage{dir: dir, files: client.FileFetcher{Root: dir}}
}

// Dir returns the log directory.
func (s *Storage) Dir() string { return s.dir }

// Driver returns Tessera's POSIX driver on the directory. No witness is
// configured, so the driver never uses its HTTP client.
func (s *Storage) Driver(ctx context.Context) (tessera.Driver, error) {
	return tposix.New(ctx, tposix.Config{Path: s.dir})
}

// ReadCheckpoint reads the checkpoint file.
func (s *Storage) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return s.files.ReadCheckpoint(ctx)
}

// ReadTile reads a hash tile, falling back to the full tile.
func (s *Storage) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	return s.files.ReadTile(ctx, level, index, p)
}

// ReadEntryBundle reads an entry bundle, falling back to the full bundle.
func (s *Storage) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	return s.files.ReadEntryBundle(ctx, index, p)
}

// ReplaceCheckpoint writes next in place of the checkpoint file if that
// file still holds prev, under Tessera's publish lock. The file is replaced
// atomically (a new file renamed over it). On Linux the lock also excludes
// Tessera's publisher in this process; elsewhere only other processes'
// (ExcludesOwnPublisher).
func (s *Storage) ReplaceCheckpoint(ctx context.Context, prev, next []byte) error {
	unlock, err := lockPublish(filepath.Join(s.dir, publishLock))
	if err != nil {
		return fmt.Errorf("locking %s: %w", publishLock, err)
	}
	defer unlock()
	cur, err := s.ReadCheckpoint(ctx)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, prev) {
		return tlog.ErrCheckpointChanged
	}
	return atomicfile.WriteFile(filepath.Join(s.dir, layout.CheckpointPath), next, 0o644, true)
}

// WaitGC returns once no garbage-collection run of Tessera (in this
// process or another) holds the log's GC lock: it takes the lock as
// ReplaceCheckpoint takes the publish lock, and releases it at once.
func (s *Storage) WaitGC(ctx context.Context) error {
	if !s.ExcludesOwnPublisher() {
		// A traditional lock would not wait for this process's collector,
		// and closing its descriptor would release that collector's lock.
		return nil
	}
	release, err := lockPublish(filepath.Join(s.dir, gcLock))
	if err != nil {
		return err
	}
	release()
	return nil
}

// KeyFile is where the log's verifier key is recorded, relative to the log
// directory: operator state next to Tessera's .state, not part of the
// tlog-tiles API (see tlog.KeyRecorder).
const KeyFile = ".mcpres/log.vkey"

// maxKeyFileBytes bounds the recorded key: one line of well under 200
// bytes.
const maxKeyFileBytes = 4096

// ErrNotEmpty is returned by Create for a directory that holds files.
var ErrNotEmpty = errors.New("the directory is not empty")

// Create returns the storage for a new log in dir, which must not exist or
// be empty (tlog's Init then lays the log out there): a log is never
// created over other files.
func Create(dir string) (*Storage, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return nil, fmt.Errorf("refusing to create a log in %s: %w", dir, ErrNotEmpty)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return New(dir), nil
}

// String names the storage in messages: its directory.
func (s *Storage) String() string { return s.dir }

// RecordKey records the log's verifier key in KeyFile (tlog.KeyRecorder),
// a new file: a recorded key is never replaced.
func (s *Storage) RecordKey(_ context.Context, vkey string) error {
	p := filepath.Join(s.dir, KeyFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, []byte(vkey+"\n"), 0o644, false)
}

// RecordedKey returns the key recorded in KeyFile, "" when there is none
// (tlog.KeyRecorder). The file must be a regular file holding one line.
func (s *Storage) RecordedKey(context.Context) (string, error) {
	p := filepath.Join(s.dir, KeyFile)
	data, err := regularfile.ReadFile(p, maxKeyFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	k := strings.TrimSuffix(string(data), "\n")
	if k == "" || strings.ContainsAny(k, "\r\n\t ") {
		return "", fmt.Errorf("%s: not a key (one line holding one key)", p)
	}
	return k, nil
}

// serveLock is the lock a serving process holds on its log directory,
// relative to it (tlog.ServeLocker); activeLock the one it holds beside it
// until it starts stopping.
const (
	serveLock  = ".state/mcpres-serve.lock"
	activeLock = ".state/mcpres-serve-active.lock"
)

// activeWait bounds how long a server that has the serving lock waits for
// the active lock: another process only tries it, for a moment.
const activeWait = 5 * time.Second

var _ tlog.ServeLocker = (*Storage)(nil)

// LockServing takes the directory's serving lock (an OS lock on
// .state/mcpres-serve.lock, released when the process exits, even when it
// is killed), or fails at once when another process serves the directory:
// with an error matching tlog.ErrServed, or tlog.ErrServerStopping when
// that process has called Stopping. One process at a time may serve a log
// directory: its deduplication index is held in that process's memory and
// lock, and a second server would wait for it.
//
// A serving process also holds .state/mcpres-serve-active.lock until it
// calls Stopping: another process that finds the serving lock taken tries
// that one, and gets it only from a server that is stopping.
func (s *Storage) LockServing() (tlog.ServeLock, error) {
	if err := os.MkdirAll(filepath.Join(s.dir, ".state"), 0o755); err != nil {
		return nil, err
	}
	l, err := filelock.Acquire(filepath.Join(s.dir, serveLock), 0)
	if errors.Is(err, filelock.ErrLocked) {
		probe, perr := filelock.Acquire(filepath.Join(s.dir, activeLock), 0)
		if perr == nil {
			probe.Release()
			return nil, fmt.Errorf("%s is %w (it holds %s and no longer %s)", s.dir, tlog.ErrServerStopping, serveLock, activeLock)
		}
		return nil, fmt.Errorf("%s is %w (it holds %s): a log directory is served by one process at a time; several frontends need a database (--mysql)", s.dir, tlog.ErrServed, serveLock)
	}
	if err != nil {
		return nil, err
	}
	a, err := filelock.Acquire(filepath.Join(s.dir, activeLock), activeWait)
	if err != nil {
		l.Release()
		return nil, err
	}
	return &serving{lock: l, active: a}, nil
}

// serving is the tlog.ServeLock of a log directory.
type serving struct {
	mu     sync.Mutex
	lock   *filelock.Lock
	active *filelock.Lock // nil once Stopping was called
}

func (s *serving) Stopping() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		s.active.Release()
		s.active = nil
	}
}

func (s *serving) Release() error {
	s.Stopping()
	return s.lock.Release()
}
