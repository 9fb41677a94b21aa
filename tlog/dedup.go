package tlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
)

// A DedupIndex is a persistent map from entry identity (SHA-256 of the
// entry data, Tessera's Entry.Identity) to the index of the first entry
// with that identity, filled in log order. Drivers implement it on their
// own storage (tlog/posix: Badger in the log directory; tlog/mysql: a
// table in the log's database), so that it survives a restart.
//
// This package turns it into Tessera's antispam (tessera.Antispam: an Add
// decorator answering a known entry with its index, and a follower that
// tails the log into the index). Tessera v1.0.4's own Badger antispam
// (storage/posix/antispam) is not used: it cannot be closed (its database
// and lock live until the process exits), it logs through Badger's default
// logger straight to the process's stderr, and its follower waits a
// second before every pass, which a one-entry 'log add' cannot afford.
type DedupIndex interface {
	// Lookup returns the index recorded for the identity hash h.
	Lookup(ctx context.Context, h []byte) (index uint64, ok bool, err error)
	// Next returns how many leading entries of the log are indexed.
	Next(ctx context.Context) (uint64, error)
	// Put records hashes[i] at index from+i, keeping any index already
	// recorded for a hash, and sets Next to from+len(hashes), in one
	// atomic update, provided Next is still from; otherwise it changes
	// nothing and returns an error.
	Put(ctx context.Context, from uint64, hashes [][]byte) error
	// Close releases the index.
	Close() error
}

// followInterval is how often the dedup follower looks for new entries.
// Until it has indexed an entry, Tessera's in-memory deduplication (the
// same process) answers its duplicates.
const followInterval = 100 * time.Millisecond

// dedup is Tessera's antispam over a DedupIndex.
type dedup struct {
	idx    DedupIndex
	mu     sync.Mutex // serialises catch-up passes and closing
	closed bool
	hasher func([]byte) ([][]byte, error)
}

var _ tessera.Antispam = (*dedup)(nil)

// Decorator answers an entry whose identity is indexed with its index
// (IsDup), and passes the others on.
func (d *dedup) Decorator() func(tessera.AddFn) tessera.AddFn {
	return func(next tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			i, ok, err := d.idx.Lookup(ctx, e.Identity())
			if err != nil {
				return func() (tessera.Index, error) {
					return tessera.Index{}, fmt.Errorf("deduplication index: %w", err)
				}
			}
			if ok {
				return func() (tessera.Index, error) { return tessera.Index{Index: i, IsDup: true}, nil }
			}
			return next(ctx, e)
		}
	}
}

// Follower returns the follower that fills the index; Tessera gives it the
// function that turns an entry bundle into identity hashes.
func (d *dedup) Follower(hasher func([]byte) ([][]byte, error)) tessera.Follower {
	d.hasher = hasher
	return follower{d}
}

type follower struct{ d *dedup }

func (follower) Name() string { return "mcpres dedup index" }

func (f follower) EntriesProcessed(ctx context.Context) (uint64, error) {
	return f.d.idx.Next(ctx)
}

// Follow indexes new entries every followInterval until ctx is done.
// Errors are retried on the next pass (a partial bundle may have been
// garbage collected between reading the size and reading the bundle).
func (f follower) Follow(ctx context.Context, lr tessera.LogReader) {
	t := time.NewTicker(followInterval)
	defer t.Stop()
	for {
		_ = f.d.catchUp(ctx, lr)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// catchUp indexes every integrated entry not yet indexed. Before it
// returns nil, every entry integrated when it started is indexed, so the
// decorator answers all of them.
func (d *dedup) catchUp(ctx context.Context, lr tessera.LogReader) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("tlog: dedup index closed")
	}
	if d.hasher == nil {
		return errors.New("tlog: dedup follower has no bundle hasher")
	}
	size, err := lr.IntegratedSize(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing integrated yet
	}
	if err != nil {
		return fmt.Errorf("tlog: dedup: integrated size: %w", err)
	}
	for {
		next, err := d.idx.Next(ctx)
		if err != nil {
			return fmt.Errorf("tlog: dedup: %w", err)
		}
		if next >= size {
			return nil
		}
		b := next / layout.EntryBundleWidth
		raw, err := lr.ReadEntryBundle(ctx, b, layout.PartialTileSize(0, b, size))
		if err != nil {
			return fmt.Errorf("tlog: dedup: entry bundle %d: %w", b, err)
		}
		hs, err := d.hasher(raw)
		if err != nil {
			return fmt.Errorf("tlog: dedup: entry bundle %d: %w", b, err)
		}
		first := b * layout.EntryBundleWidth
		if uint64(len(hs)) <= next-first {
			return fmt.Errorf("tlog: dedup: entry bundle %d has %d entries, want more than %d", b, len(hs), next-first)
		}
		if err := d.idx.Put(ctx, next, hs[next-first:]); err != nil {
			return fmt.Errorf("tlog: dedup: %w", err)
		}
	}
}
