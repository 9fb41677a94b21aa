package tlog

import "context"

// NodeCacheForTest is an appender's node cache and tile cache over
// readTile, for tests that compare its proofs with Tessera's ProofBuilder.
type NodeCacheForTest struct {
	c        *nodeCache
	readTile func(context.Context, uint64, uint64, uint8) ([]byte, error)
}

// NewNodeCacheForTest returns a node cache over readTile, through a tile
// cache as an Appender's.
func NewNodeCacheForTest(readTile func(context.Context, uint64, uint64, uint8) ([]byte, error)) *NodeCacheForTest {
	rc := newResourceCache(cachedResources)
	return &NodeCacheForTest{c: newNodeCache(), readTile: func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
		return rc.get(ctx, resourceKey{int64(level), index, p}, func() ([]byte, error) { return readTile(ctx, level, index, p) })
	}}
}

// Inclusion is the inclusion proof of the entry at index in the tree of
// the given size.
func (n *NodeCacheForTest) Inclusion(ctx context.Context, index, size uint64) ([][]byte, error) {
	return n.c.inclusion(ctx, index, size, n.readTile)
}
