package tlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
)

// scriptedStore is a POSIX log whose deduplication index is wrapped by
// wrap: a SharedDedupIndex with scripted claims, or an index that fails.
type scriptedStore struct {
	tlog.Storage
	wrap func(tlog.DedupIndex) tlog.DedupIndex
}

func (s scriptedStore) OpenDedup(ctx context.Context) (tlog.DedupIndex, error) {
	idx, err := s.Storage.OpenDedup(ctx)
	if err != nil {
		return nil, err
	}
	return s.wrap(idx), nil
}

// scriptedIndex answers Claim with claim's answer for the entry, records
// the hashes unclaimed, and fails Lookup, Put or Next when told to.
type scriptedIndex struct {
	tlog.DedupIndex
	mu        sync.Mutex
	claim     func(h []byte) (tlog.Claim, uint64, error)
	unclaimed [][]byte
	lookupErr error
	putErr    error
}

func (x *scriptedIndex) Claim(_ context.Context, h []byte) (tlog.Claim, uint64, error) {
	x.mu.Lock()
	f := x.claim
	x.mu.Unlock()
	return f(h)
}

func (x *scriptedIndex) Unclaim(_ context.Context, h []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.unclaimed = append(x.unclaimed, bytes.Clone(h))
	return nil
}

func (x *scriptedIndex) Lookup(ctx context.Context, h []byte) (uint64, bool, error) {
	x.mu.Lock()
	err := x.lookupErr
	x.mu.Unlock()
	if err != nil {
		return 0, false, err
	}
	return x.DedupIndex.Lookup(ctx, h)
}

func (x *scriptedIndex) Put(ctx context.Context, from uint64, hs [][]byte) error {
	x.mu.Lock()
	err := x.putErr
	x.mu.Unlock()
	if err != nil {
		return err
	}
	return x.DedupIndex.Put(ctx, from, hs)
}

func (x *scriptedIndex) set(f func(*scriptedIndex)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	f(x)
}

func (x *scriptedIndex) unclaims() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.unclaimed)
}

// plainIndex hides Claim and Unclaim: a plain DedupIndex with
// scriptedIndex's failures.
type plainIndex struct{ x *scriptedIndex }

func (p plainIndex) Lookup(ctx context.Context, h []byte) (uint64, bool, error) {
	return p.x.Lookup(ctx, h)
}
func (p plainIndex) Next(ctx context.Context) (uint64, error) { return p.x.Next(ctx) }
func (p plainIndex) Put(ctx context.Context, from uint64, hs [][]byte) error {
	return p.x.Put(ctx, from, hs)
}
func (p plainIndex) Close() error { return p.x.Close() }

// openScripted opens an Appender on a new log in dir holding entries
// (appended straight through Tessera), whose index is x (shared: a
// SharedDedupIndex; else a plain DedupIndex).
func openScripted(t *testing.T, dir string, x *scriptedIndex, shared bool, entries [][]byte) (*tlog.Appender, error) {
	t.Helper()
	_, s := newLog(t, dir, testOnlyLogSeed)
	if len(entries) > 0 {
		bulkAppend(t, dir, s, entries)
	}
	_, v, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	store := scriptedStore{Storage: posix.New(dir), wrap: func(idx tlog.DedupIndex) tlog.DedupIndex {
		x.DedupIndex = idx
		if shared {
			return x
		}
		return plainIndex{x}
	}}
	return tlog.Open(store, v).NewAppender(ctx(t), s, tlog.AppenderOptions{})
}

// Through a SharedDedupIndex, Add appends an entry it claims (ClaimNew);
// answers an entry the index records (ClaimIndexed) with its index;
// waits for a claim a live process holds (ClaimHeld) until the index
// records the entry; and, for a claim taken over from a process that is
// gone, answers the entry that process had appended (releasing the claim)
// or appends one it had not. It refuses, for its own reason each: a
// Claim that fails, a held claim it waits on past its context, a taken
// over claim whose lookup fails (the claim released).
func TestSharedDedupClaims(t *testing.T) {
	c := ctx(t)
	x := &scriptedIndex{claim: func([]byte) (tlog.Claim, uint64, error) { return tlog.ClaimNew, 0, nil }}
	// Entries 0..3 are in the log before the appender opens, so that
	// Tessera's in-memory deduplication (which answers an entry this
	// appender saw before the index is asked) never answers them.
	a, err := openScripted(t, filepath.Join(t.TempDir(), "log"), x, true, numbered(0, 4))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(c)
	script := func(f func([]byte) (tlog.Claim, uint64, error)) { x.set(func(x *scriptedIndex) { x.claim = f }) }

	// ClaimNew: appended.
	p, err := a.Add(c, []byte("entry new"))
	if err != nil || p.Index != 4 || p.Existing {
		t.Fatalf("ClaimNew: %+v, %v", p, err)
	}

	// ClaimIndexed: the index the claim names.
	script(func([]byte) (tlog.Claim, uint64, error) { return tlog.ClaimIndexed, 1, nil })
	if p, err := a.Add(c, []byte("entry 1")); err != nil || p.Index != 1 || !p.Existing {
		t.Fatalf("ClaimIndexed: %+v, %v", p, err)
	}

	// A Claim that fails refuses the entry.
	errClaim := errors.New("the claims table is gone")
	script(func([]byte) (tlog.Claim, uint64, error) { return 0, 0, errClaim })
	if p, err := a.Add(c, []byte("entry B")); !errors.Is(err, errClaim) || !strings.Contains(err.Error(), "deduplication index") || p != nil {
		t.Fatalf("a failing Claim: %+v, %v", p, err)
	}

	// ClaimHeld, then indexed by the process that held it.
	var calls int
	script(func([]byte) (tlog.Claim, uint64, error) {
		calls++
		if calls == 1 {
			return tlog.ClaimHeld, 0, nil
		}
		return tlog.ClaimIndexed, 2, nil
	})
	if p, err := a.Add(c, []byte("entry 2")); err != nil || p.Index != 2 || !p.Existing || calls != 2 {
		t.Fatalf("ClaimHeld then indexed: %+v, %v after %d claims", p, err, calls)
	}

	// ClaimHeld until the context ends: refused, saying what it waited for.
	hc, cancel := context.WithCancel(c)
	script(func([]byte) (tlog.Claim, uint64, error) { cancel(); return tlog.ClaimHeld, 0, nil })
	if p, err := a.Add(hc, []byte("entry B")); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for another process") || p != nil {
		t.Fatalf("a claim held past the context: %+v, %v", p, err)
	}

	// ClaimTakenOver of an entry the gone process appended: answered with
	// its index, the claim released.
	script(func([]byte) (tlog.Claim, uint64, error) { return tlog.ClaimTakenOver, 0, nil })
	before := x.unclaims()
	if p, err := a.Add(c, []byte("entry 3")); err != nil || p.Index != 3 || !p.Existing || x.unclaims() != before+1 {
		t.Fatalf("ClaimTakenOver of an appended entry: %+v, %v, %d claims released", p, err, x.unclaims()-before)
	}
	// Control: ClaimTakenOver of an entry it had not appended: appended,
	// the claim kept (Put releases it).
	before = x.unclaims()
	if p, err := a.Add(c, []byte("entry C")); err != nil || p.Index != 5 || p.Existing || x.unclaims() != before {
		t.Fatalf("ClaimTakenOver of a new entry: %+v, %v, %d claims released", p, err, x.unclaims()-before)
	}
	// ClaimTakenOver whose lookup fails: refused, the claim released.
	errLookup := errors.New("lookup failed")
	x.set(func(x *scriptedIndex) { x.lookupErr = errLookup })
	before = x.unclaims()
	if p, err := a.Add(c, []byte("entry D")); !errors.Is(err, errLookup) || p != nil || x.unclaims() != before+1 {
		t.Fatalf("ClaimTakenOver with a failing lookup: %+v, %v, %d claims released", p, err, x.unclaims()-before)
	}
}

// Through a plain DedupIndex, a Lookup that fails refuses the entry
// (naming the deduplication index); the control appends once it answers.
func TestDedupLookupFails(t *testing.T) {
	c := ctx(t)
	errLookup := errors.New("index unreadable")
	x := &scriptedIndex{lookupErr: errLookup}
	a, err := openScripted(t, filepath.Join(t.TempDir(), "log"), x, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(c)
	if p, err := a.Add(c, []byte("entry A")); !errors.Is(err, errLookup) || !strings.Contains(err.Error(), "deduplication index") || p != nil {
		t.Fatalf("a failing Lookup: %+v, %v", p, err)
	}
	x.set(func(x *scriptedIndex) { x.lookupErr = nil })
	if p, err := a.Add(c, []byte("entry A")); err != nil || p.Index != 0 || p.Existing {
		t.Fatalf("control: %+v, %v", p, err)
	}
}

// NewAppender refuses to open when the index cannot catch up with the log
// (its Put fails): a duplicate of an entry it missed would be appended
// again. The control (TestAddFindsUnindexedEntry) catches up.
func TestNewAppenderCatchUpFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	_, s := newLog(t, dir, testOnlyLogSeed)
	bulkAppend(t, dir, s, numbered(0, 3))
	errPut := errors.New("index read-only")
	x := &scriptedIndex{putErr: errPut}
	_, v, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	store := scriptedStore{Storage: posix.New(dir), wrap: func(idx tlog.DedupIndex) tlog.DedupIndex {
		x.DedupIndex = idx
		return plainIndex{x}
	}}
	l := tlog.Open(store, v)
	if a, err := l.NewAppender(ctx(t), s, tlog.AppenderOptions{}); !errors.Is(err, errPut) || !strings.Contains(err.Error(), "tlog: dedup") || a != nil {
		t.Fatalf("NewAppender with an index that cannot catch up: %v", err)
	}
	// The Log's lock was released: the control opens once the index works.
	x.set(func(x *scriptedIndex) { x.putErr = nil })
	a, err := l.NewAppender(ctx(t), s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	defer a.Close(ctx(t))
	if p, err := a.Add(ctx(t), []byte("entry 1")); err != nil || p.Index != 1 || !p.Existing {
		t.Fatalf("control, a duplicate of an entry appended before: %+v, %v", p, err)
	}
}

// NewAppender refuses an index that says it moved (tlog.ErrIndexMoved)
// without moving, rather than retrying forever; the catch-up that goes on
// after another process indexed the entries first is
// TestCatchUpAfterAnotherProcess.
func TestNewAppenderIndexThatDoesNotMove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	_, s := newLog(t, dir, testOnlyLogSeed)
	bulkAppend(t, dir, s, numbered(0, 3))
	_, v, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	x := &scriptedIndex{putErr: fmt.Errorf("%w: it is at 7, not 0", tlog.ErrIndexMoved)}
	l := tlog.Open(scriptedStore{Storage: posix.New(dir), wrap: func(idx tlog.DedupIndex) tlog.DedupIndex {
		x.DedupIndex = idx
		return plainIndex{x}
	}}, v)
	if a, err := l.NewAppender(ctx(t), s, tlog.AppenderOptions{}); !errors.Is(err, tlog.ErrIndexMoved) || a != nil {
		t.Fatalf("an index that says it moved and did not: %v", err)
	}
}
