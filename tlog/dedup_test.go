package tlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
)

// TestAddDeduplicates: the same entry logged again is answered with its
// index and a fresh proof, also by a new Log on the same directory (the
// index is reopened from disk); a different entry is appended.
func TestAddDeduplicates(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	_, lv, logVKey := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	e1, e2 := exampleEntry(t), variantBundle(t)
	for i, want := range []struct {
		e        []byte
		index    uint64
		existing bool
		size     uint64
	}{{e1, 0, false, 1}, {e2, 1, false, 2}, {e1, 0, true, 2}, {e2, 1, true, 2}} {
		p, err := l.Add(c, s, want.e)
		if err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
		if p.Index != want.index || p.Existing != want.existing || p.Checkpoint.Size != want.size {
			t.Fatalf("add %d: index %d existing %v size %d; want %+v", i, p.Index, p.Existing, p.Checkpoint.Size, want)
		}
		checkProofBytes(t, p.Marshal(), logVKey, want.e, want.index, want.size)
	}
	// A restart: a new Log and Storage on the directory.
	p, err := tlog.Open(posix.New(dir), lv).Add(c, s, e2)
	if err != nil || p.Index != 1 || !p.Existing {
		t.Fatalf("after reopening: %+v, %v", p, err)
	}
	// Control: one byte more is another entry.
	p, err = l.Add(c, s, append(bytes.Clone(e2), ' '))
	if err != nil || p.Index != 2 || p.Existing {
		t.Fatalf("a different entry: %+v, %v", p, err)
	}
}

// TestAddFindsUnindexedEntry is the crash case: the entry is in the log
// but was never indexed (here appended straight through Tessera, as by an
// Add killed after integration). Add catches the index up and answers it.
func TestAddFindsUnindexedEntry(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	e := exampleEntry(t)
	bulkAppend(t, dir, s, append(numbered(0, 300), e))
	p, err := l.Add(c, s, e)
	if err != nil || p.Index != 300 || !p.Existing || p.Checkpoint.Size != 301 {
		t.Fatalf("Add = %+v, %v; want the existing entry 300", p, err)
	}
	p, err = l.Add(c, s, []byte("entry 7"))
	if err != nil || p.Index != 7 || !p.Existing {
		t.Fatalf("Add(entry 7) = %+v, %v", p, err)
	}
}

func partials(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	for _, p := range []string{"tile/entries/000.p", "tile/0/000.p"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			left = append(left, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	return left
}

// TestAddCollectsGarbage: the Add that fills the first entry bundle
// deletes its partial versions and those of the tile above it.
func TestAddCollectsGarbage(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	bulkAppend(t, dir, s, numbered(0, 255))
	// Control: bulkAppend's appender never collects.
	if got := partials(t, dir); len(got) != 2 {
		t.Fatalf("before the 256th entry, partials %v, want both", got)
	}
	p, err := l.Add(c, s, []byte("entry 255"))
	if err != nil || p.Index != 255 || p.Existing {
		t.Fatalf("Add = %+v, %v", p, err)
	}
	if got := partials(t, dir); len(got) != 0 {
		t.Fatalf("after the 256th entry, left %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "tile/entries/000")); err != nil {
		t.Fatalf("the full bundle: %v", err)
	}
}

// TestAppenderBoundsStorage: 300 distinct concurrent adds through one
// Appender leave no partial version of the full first bundle and tile,
// and every add has its own index.
func TestAppenderBoundsStorage(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	a, err := l.NewAppender(c, s, tlog.AppenderOptions{BatchSize: 64, BatchMaxAge: 10 * time.Millisecond, GCInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, 300)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Go(func() {
			p, err := a.Add(c, fmt.Appendf(nil, "distinct %d", i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil || p.Existing || seen[p.Index] {
				t.Errorf("add %d: %+v, %v", i, p, err)
				return
			}
			seen[p.Index] = true
		})
	}
	wg.Wait()
	time.Sleep(50 * time.Millisecond) // a few collector runs
	if err := a.Close(c); err != nil {
		t.Fatal(err)
	}
	if got := partials(t, dir); len(got) != 0 {
		t.Fatalf("after 300 adds, left %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "tile/entries/001.p")); err != nil {
		t.Fatalf("the last, partial bundle must stay: %v", err)
	}
}

// TestAppenderOnCheckpoint: the hook sees each new published checkpoint,
// in order, the last covering every entry added.
func TestAppenderOnCheckpoint(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	var mu sync.Mutex
	var sizes []uint64
	a, err := l.NewAppender(c, s, tlog.AppenderOptions{OnCheckpoint: func(_ context.Context, _ *tlog.Appender, cp *signednote.Checkpoint) {
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, cp.Size)
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := a.Add(c, fmt.Appendf(nil, "hooked %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * tlog.PollInterval)
	if err := a.Close(c); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) < 2 || sizes[0] != 0 || sizes[len(sizes)-1] != 3 || !slices.IsSorted(sizes) {
		t.Fatalf("checkpoints seen: %v", sizes)
	}
}
