package tlog

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/transparency-dev/tessera"
)

// racingIndex is an in-memory DedupIndex whose next races Puts are made
// first by "another process" sharing it (the same entries recorded at the
// same place), and which, when lie is set, says it moved on every Put
// without moving.
type racingIndex struct {
	next   uint64
	hashes map[string]uint64
	races  int
	lie    bool
	puts   int
}

func (x *racingIndex) record(from uint64, hs [][]byte) {
	for i, h := range hs {
		if _, ok := x.hashes[string(h)]; !ok {
			x.hashes[string(h)] = from + uint64(i)
		}
	}
	x.next = from + uint64(len(hs))
}

func (x *racingIndex) Lookup(_ context.Context, h []byte) (uint64, bool, error) {
	i, ok := x.hashes[string(h)]
	return i, ok, nil
}
func (x *racingIndex) Next(context.Context) (uint64, error) { return x.next, nil }
func (x *racingIndex) Close() error                         { return nil }
func (x *racingIndex) Put(_ context.Context, from uint64, hs [][]byte) error {
	x.puts++
	if x.lie {
		return fmt.Errorf("%w: it says so (test)", ErrIndexMoved)
	}
	if x.races > 0 {
		x.races--
		x.record(from, hs)
	}
	if from != x.next {
		return fmt.Errorf("%w: it is at %d, not %d", ErrIndexMoved, x.next, from)
	}
	x.record(from, hs)
	return nil
}

// sizedReader is a log of size entries in one entry bundle.
type sizedReader struct {
	tessera.LogReader
	size uint64
}

func (r sizedReader) IntegratedSize(context.Context) (uint64, error) { return r.size, nil }
func (r sizedReader) ReadEntryBundle(context.Context, uint64, uint8) ([]byte, error) {
	return []byte("bundle"), nil
}

// TestCatchUpAfterAnotherProcess: when another process sharing the index
// records the entries a catch-up is about to (its Put refused with
// ErrIndexMoved), the catch-up goes on from where the index is and
// returns nil (log add --s3 beside log serve --s3 failed on this in CI:
// "dedup: index is at 1, not 0"); the control without a race indexes the
// entries itself; an index that says it moved without moving is refused
// after one retry, never looped on.
func TestCatchUpAfterAnotherProcess(t *testing.T) {
	hashes := func([]byte) ([][]byte, error) { return [][]byte{[]byte("h0"), []byte("h1"), []byte("h2")}, nil }
	for _, tc := range []struct {
		name string
		idx  *racingIndex
		err  error
		puts int
		next uint64
	}{
		{"control: no race", &racingIndex{}, nil, 1, 3},
		{"another process indexed them first", &racingIndex{races: 1}, nil, 1, 3},
		{"an index that says it moved and did not", &racingIndex{lie: true}, ErrIndexMoved, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.idx.hashes = map[string]uint64{}
			d := &dedup{idx: tc.idx, hasher: hashes}
			err := d.catchUp(context.Background(), sizedReader{size: 3})
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("catchUp: %v, want %v", err, tc.err)
			}
			if tc.idx.puts != tc.puts || tc.idx.next != tc.next {
				t.Fatalf("%d Puts, the index at %d; want %d, %d", tc.idx.puts, tc.idx.next, tc.puts, tc.next)
			}
		})
	}
}
