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
	// nothing and returns an error wrapping ErrIndexMoved.
	Put(ctx context.Context, from uint64, hashes [][]byte) error
	// Close releases the index.
	Close() error
}

// A SharedDedupIndex is a DedupIndex that several processes append
// through at once (tlog/mysql: every 'log serve' and 'log add' on one
// database). An entry is claimed before it is appended, so that the same
// entry sent to two processes at once is appended once: the process that
// holds the claim appends it, the others wait until the index records it
// and answer with its index. Put removes the claims of the hashes it
// records, in the same atomic update.
type SharedDedupIndex interface {
	DedupIndex
	// Claim claims the identity hash h for this process, unless the
	// index records it: then it returns ClaimIndexed and its index, and
	// leaves no claim. ClaimNew and ClaimTakenOver mean the claim is now
	// this process's (taken over from a process that is gone, or that has
	// held it too long); ClaimHeld means a live process (this one
	// included) holds it: its entry is being appended.
	Claim(ctx context.Context, h []byte) (c Claim, index uint64, err error)
	// Unclaim releases this process's claim of h (its append failed).
	Unclaim(ctx context.Context, h []byte) error
}

// A Claim is the outcome of SharedDedupIndex.Claim.
type Claim int

const (
	ClaimIndexed   Claim = iota // the index records it: nothing to append
	ClaimNew                    // nobody held it: this process does now
	ClaimTakenOver              // a process that is gone held it: this process does now
	ClaimHeld                   // a live process holds it
)

// claimPoll is how often an Add whose entry another process is appending
// looks for it in the index.
const claimPoll = 50 * time.Millisecond

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
	reader tessera.LogReader // set once the appender is open: catchUp on a claim taken over
}

var _ tessera.Antispam = (*dedup)(nil)

// Decorator answers an entry whose identity is indexed with its index
// (IsDup), and passes the others on.
func (d *dedup) Decorator() func(tessera.AddFn) tessera.AddFn {
	return func(next tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			if sh, ok := d.idx.(SharedDedupIndex); ok {
				return d.addShared(ctx, sh, e, next)
			}
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

// failed is a future that fails with err.
func failed(err error) tessera.IndexFuture {
	return func() (tessera.Index, error) {
		return tessera.Index{}, fmt.Errorf("deduplication index: %w", err)
	}
}

// addShared is the decorator over a SharedDedupIndex: an indexed entry is
// answered with its index; an entry this process now claims is appended
// (the claim released again if that fails); a claim another live process
// holds is waited for, until the entry is indexed or the claim can be
// taken, bounded by ctx.
func (d *dedup) addShared(ctx context.Context, sh SharedDedupIndex, e *tessera.Entry, next tessera.AddFn) tessera.IndexFuture {
	f, held := d.tryShared(ctx, sh, e, next)
	if !held {
		return f
	}
	return func() (tessera.Index, error) {
		t := time.NewTicker(claimPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return tessera.Index{}, fmt.Errorf("waiting for another process to append the same entry: %w", ctx.Err())
			case <-t.C:
			}
			if f, held := d.tryShared(ctx, sh, e, next); !held {
				return f()
			}
		}
	}
}

// tryShared makes one attempt of addShared; held reports a claim held by
// a live process (f is nil then).
func (d *dedup) tryShared(ctx context.Context, sh SharedDedupIndex, e *tessera.Entry, next tessera.AddFn) (f tessera.IndexFuture, held bool) {
	h := e.Identity()
	c, i, err := sh.Claim(ctx, h)
	if err != nil {
		return failed(err), false
	}
	switch c {
	case ClaimHeld:
		return nil, true
	case ClaimTakenOver:
		// The process that held the claim is gone, perhaps right after
		// its entry was integrated: index what the log holds first.
		var ok bool
		err := d.catchUpReader(ctx)
		if err == nil {
			i, ok, err = sh.Lookup(ctx, h)
		}
		if err != nil || ok {
			_ = sh.Unclaim(context.WithoutCancel(ctx), h)
		}
		if err != nil {
			return failed(err), false
		}
		if ok {
			c = ClaimIndexed
		}
	}
	if c == ClaimIndexed {
		return func() (tessera.Index, error) { return tessera.Index{Index: i, IsDup: true}, nil }, false
	}
	nf := next(ctx, e)
	return func() (tessera.Index, error) {
		idx, err := nf()
		if err != nil {
			_ = sh.Unclaim(context.WithoutCancel(ctx), h)
		}
		return idx, err
	}, false
}

// catchUpReader is catchUp with the appender's log reader.
func (d *dedup) catchUpReader(ctx context.Context) error {
	d.mu.Lock()
	lr := d.reader
	d.mu.Unlock()
	if lr == nil {
		return errors.New("tlog: dedup index not open yet")
	}
	return d.catchUp(ctx, lr)
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
	moved, wasMoved := uint64(0), false // where Put last said the index moved
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
			if errors.Is(err, ErrIndexMoved) && (!wasMoved || next > moved) {
				// Another process sharing the index (log serve beside log
				// add --s3, two frontends) recorded these entries first:
				// go on from where it is now. Only forward, so an index
				// that says it moved and did not cannot loop.
				moved, wasMoved = next, true
				continue
			}
			return fmt.Errorf("tlog: dedup: %w", err)
		}
	}
}

// ErrIndexMoved is the error of DedupIndex.Put when the index's Next is
// no longer the from it was given: another process sharing the index
// recorded those entries first.
var ErrIndexMoved = errors.New("the index moved")
