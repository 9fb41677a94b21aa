package tlog_test

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
)

// hostileReads is a log whose tile or entry bundle reads fail, or whose
// entry bundles hold only their first entry.
type hostileReads struct {
	tlog.Storage
	tileErr, bundleErr error
	short              bool
}

func (h hostileReads) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	if h.tileErr != nil {
		return nil, h.tileErr
	}
	return h.Storage.ReadTile(ctx, level, index, p)
}

func (h hostileReads) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	if h.bundleErr != nil {
		return nil, h.bundleErr
	}
	b, err := h.Storage.ReadEntryBundle(ctx, index, p)
	if err != nil || !h.short {
		return b, err
	}
	return b[:2+binary.BigEndian.Uint16(b)], nil
}

// Log.Proof refuses, naming the entry and the read that failed, a store
// whose hash tiles or entry bundles cannot be read and one whose entry
// bundle lacks the entry; the control is the same log read honestly.
func TestProofRefusesHostileStore(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	a, err := l.NewAppender(c, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"entry 0", "entry 1"} {
		if _, err := a.Add(c, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(c); err != nil {
		t.Fatal(err)
	}
	if p, err := tlog.Open(hostileReads{Storage: posix.New(dir)}, s.Verifier()).Proof(c, 1); err != nil || string(p.Entry) != "entry 1" {
		t.Fatalf("control: %v", err)
	}
	away := errors.New("the bucket is away")
	for _, tc := range []struct {
		name  string
		store hostileReads
		says  string
	}{
		{"tiles unreadable", hostileReads{tileErr: away}, "tlog: inclusion proof of entry 1 in tree size 2: "},
		{"bundles unreadable", hostileReads{bundleErr: away}, "tlog: reading entry 1: "},
		{"a bundle without the entry", hostileReads{short: true}, "tlog: entry bundle 0 has 1 entries, want more than 1"},
	} {
		tc.store.Storage = posix.New(dir)
		_, err := tlog.Open(tc.store, s.Verifier()).Proof(c, 1)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.says)
		}
	}
}
