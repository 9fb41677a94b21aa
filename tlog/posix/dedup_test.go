package posix

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog"
)

func hashOf(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }

// TestDedupPersistsAndRepairs: the index survives a reopen, a torn record
// left by a crash is dropped (and only it), and Put refuses a gap.
func TestDedupPersistsAndRepairs(t *testing.T) {
	ctx := context.Background()
	s := New(t.TempDir())
	d, err := s.OpenDedup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, 0, [][]byte{hashOf("a"), hashOf("b"), hashOf("a")}); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(ctx, 2, [][]byte{hashOf("c")}); !errors.Is(err, tlog.ErrIndexMoved) {
		t.Fatalf("Put at 2 when the index is at 3: %v, want tlog.ErrIndexMoved", err)
	}
	d.Close()
	// A crash in the middle of an append: half a record.
	f, _ := os.OpenFile(filepath.Join(s.Dir(), dedupFile), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(hashOf("c")[:13])
	f.Close()
	d, err = s.OpenDedup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n, _ := d.Next(ctx); n != 3 {
		t.Fatalf("Next = %d, want 3", n)
	}
	for _, tt := range []struct {
		h     string
		index uint64
		ok    bool
	}{{"a", 0, true}, {"b", 1, true}, {"c", 0, false}} {
		i, ok, err := d.Lookup(ctx, hashOf(tt.h))
		if err != nil || i != tt.index || ok != tt.ok {
			t.Errorf("Lookup(%s) = %d %v %v, want %d %v", tt.h, i, ok, err, tt.index, tt.ok)
		}
	}
	if err := d.Put(ctx, 3, [][]byte{hashOf("c")}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(s.Dir(), dedupFile)); st.Size() != 4*sha256.Size {
		t.Fatalf("index file of %d bytes, want %d", st.Size(), 4*sha256.Size)
	}
}

// TestDedupIsExclusive: a second open waits for the first to close, and
// gives up when its context ends.
func TestDedupIsExclusive(t *testing.T) {
	ctx := context.Background()
	s := New(t.TempDir())
	d, err := s.OpenDedup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := New(s.Dir()).OpenDedup(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second open while held: %v", err)
	}
	time.AfterFunc(50*time.Millisecond, func() { d.Close() })
	d2, err := New(s.Dir()).OpenDedup(ctx)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	d2.Close()
}
