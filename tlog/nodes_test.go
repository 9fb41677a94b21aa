package tlog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/transparency-dev/tessera/client"
)

// TestInclusionFromNodes: the inclusion proofs built from the node cache
// are Tessera's ProofBuilder's, for entries all over a log that spans
// three levels of tiles with a partial tile at each, through one cache
// shared by all the proofs (as an appender's is), which reads each tile
// once; a smaller tree reuses its nodes.
func TestInclusionFromNodes(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	_, s := newLog(t, dir, testOnlyLogSeed)
	const n = 256*256 + 3*256 + 17
	bulkAppend(t, dir, s, numbered(0, n))
	st := posix.New(dir)
	var reads atomic.Int32
	readTile := func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
		reads.Add(1)
		return st.ReadTile(ctx, level, index, p)
	}
	pb, err := client.NewProofBuilder(c, n, st.ReadTile)
	if err != nil {
		t.Fatal(err)
	}
	shared := tlog.NewNodeCacheForTest(readTile)
	indices := []uint64{0, 1, 255, 256, 257, 511, 512, 65535, 65536, 65536 + 767, n - 18, n - 17, n - 2, n - 1}
	for i := uint64(0); i < n; i += 997 {
		indices = append(indices, i)
	}
	for _, i := range indices {
		want, err := pb.InclusionProof(c, i)
		if err != nil {
			t.Fatal(err)
		}
		got, err := shared.Inclusion(c, i, n)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if !slices.EqualFunc(got, want, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("entry %d: proof %x, Tessera's %x", i, got, want)
		}
	}
	// Each tile is read once however many proofs use it: at most the
	// 260 level-0 tiles, 2 level-1 tiles and 1 level-2 tile of the tree.
	if r := reads.Load(); r > 263 {
		t.Errorf("%d tile reads for %d proofs through one cache", r, len(indices))
	}
	// A smaller tree: the same nodes, and a proof that ends there.
	want, _ := client.NewProofBuilder(c, 300, st.ReadTile)
	w, _ := want.InclusionProof(c, 299)
	got, err := shared.Inclusion(c, 299, 300)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(w) {
		t.Fatalf("entry 299 of 300: %x %v, want %x", got, err, w)
	}
	if _, err := shared.Inclusion(c, n, n); err == nil {
		t.Fatal("a proof of an entry past the tree")
	}
}
