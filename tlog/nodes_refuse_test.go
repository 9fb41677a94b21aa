package tlog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/compact"
)

// A node is read only when it is a complete subtree of the tree, from a
// hash tile that holds its leaves: a node past the tree's size, a tile
// that cannot be read and a tile too short for the node are refused, each
// naming its reason; the control reads a node from a tile that holds it.
func TestNodeRefuses(t *testing.T) {
	ctx := context.Background()
	leaves := make([]byte, 4*sha256.Size)
	for i := range leaves {
		leaves[i] = byte(i)
	}
	tile := func(raw []byte, err error) func(context.Context, uint64, uint64, uint8) ([]byte, error) {
		return func(context.Context, uint64, uint64, uint8) ([]byte, error) { return raw, err }
	}
	if h, err := newNodeCache().node(ctx, compact.NewNodeID(0, 3), 4, tile(leaves, nil)); err != nil || !bytes.Equal(h, leaves[3*sha256.Size:]) {
		t.Fatalf("control: %x, %v", h, err)
	}
	for _, tc := range []struct {
		name string
		id   compact.NodeID
		size uint64
		read func(context.Context, uint64, uint64, uint8) ([]byte, error)
		says string
	}{
		{"past the tree", compact.NewNodeID(1, 1), 3, tile(leaves, nil), "node 1/1 is not a complete subtree of a tree of size 3"},
		{"level 64", compact.NewNodeID(64, 0), 1 << 63, tile(leaves, nil), "node 64/0 is not a complete subtree"},
		{"index overflowing", compact.NewNodeID(1, 1<<63), 1 << 63, tile(leaves, nil), "is not a complete subtree"},
		{"tile unreadable", compact.NewNodeID(0, 3), 4, tile(nil, errors.New("the bucket is away")), "hash tile 0/0: the bucket is away"},
		{"tile too short", compact.NewNodeID(0, 3), 4, tile(leaves[:3*sha256.Size], nil), "hash tile 0/0 has 96 bytes, too few for node 0/3"},
		{"tile not whole hashes", compact.NewNodeID(0, 3), 4, tile(append(bytes.Clone(leaves), 0), nil), "hash tile 0/0 has 129 bytes, too few for node 0/3"},
	} {
		if _, err := newNodeCache().node(ctx, tc.id, tc.size, tc.read); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.says)
		}
	}
}
