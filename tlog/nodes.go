package tlog

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/transparency-dev/merkle/compact"
	mproof "github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
)

// nodeCache holds hashes of the log's tree nodes for inclusion proofs.
// Only nodes of perfect subtrees are asked for (an inclusion proof's other
// nodes are rehashed from them), and each such node covers entries that
// are all in the log, so its hash never changes: one computed for one
// checkpoint serves every later one. A node inside a hash tile is the
// hash of its two children, computed once each, so proving the thousand
// entries of one checkpoint costs a few hundred hashes, not the tile's
// internal nodes hashed again for every proof (Tessera's
// client.ProofBuilder, which is also not safe for concurrent use).
type nodeCache struct {
	mu sync.Mutex
	m  map[compact.NodeID][]byte
}

// maxCachedNodes bounds a nodeCache (32 bytes a node): past it the cache
// starts again empty.
const maxCachedNodes = 1 << 16

func newNodeCache() *nodeCache { return &nodeCache{m: map[compact.NodeID][]byte{}} }

// node returns the hash of the perfect subtree node id of the tree of the
// given size, from its hash tiles (readTile, a TileFetcherFunc).
func (c *nodeCache) node(ctx context.Context, id compact.NodeID, size uint64, readTile func(context.Context, uint64, uint64, uint8) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	h, ok := c.m[id]
	c.mu.Unlock()
	if ok {
		return h, nil
	}
	if end := (id.Index + 1) << id.Level; id.Level >= 64 || end>>id.Level != id.Index+1 || end > size {
		return nil, fmt.Errorf("node %d/%d is not a complete subtree of a tree of size %d", id.Level, id.Index, size)
	}
	tileLevel, tileIndex, nodeLevel, nodeIndex := layout.NodeCoordsToTileAddress(uint64(id.Level), id.Index)
	// At a tree of this size the tile is at least p hashes wide, and the
	// node covers entries present, so its leaves are in it.
	raw, err := readTile(ctx, tileLevel, tileIndex, layout.PartialTileSize(tileLevel, tileIndex, size))
	if err != nil {
		return nil, fmt.Errorf("hash tile %d/%d: %w", tileLevel, tileIndex, err)
	}
	if len(raw)%sha256.Size != 0 || uint64(len(raw)/sha256.Size) < (nodeIndex+1)<<nodeLevel {
		return nil, fmt.Errorf("hash tile %d/%d has %d bytes, too few for node %d/%d", tileLevel, tileIndex, len(raw), id.Level, id.Index)
	}
	return c.inTile(id, raw, uint64(nodeLevel), nodeIndex), nil
}

// inTile returns the hash of node id, at nodeLevel and nodeIndex inside
// the hash tile raw (which holds its leaves), memoized: the hashes of the
// tile itself are not kept, the nodes above them are.
func (c *nodeCache) inTile(id compact.NodeID, raw []byte, nodeLevel, nodeIndex uint64) []byte {
	if nodeLevel == 0 {
		return raw[nodeIndex*sha256.Size : (nodeIndex+1)*sha256.Size]
	}
	c.mu.Lock()
	h, ok := c.m[id]
	c.mu.Unlock()
	if ok {
		return h
	}
	left := c.inTile(compact.NewNodeID(id.Level-1, 2*id.Index), raw, nodeLevel-1, 2*nodeIndex)
	right := c.inTile(compact.NewNodeID(id.Level-1, 2*id.Index+1), raw, nodeLevel-1, 2*nodeIndex+1)
	h = rfc6962.DefaultHasher.HashChildren(left, right)
	c.mu.Lock()
	if len(c.m) >= maxCachedNodes {
		clear(c.m)
	}
	c.m[id] = h
	c.mu.Unlock()
	return h
}

// inclusion returns the RFC 6962 inclusion proof of the entry at index in
// the tree of the given size.
func (c *nodeCache) inclusion(ctx context.Context, index, size uint64, readTile func(context.Context, uint64, uint64, uint8) ([]byte, error)) ([][]byte, error) {
	nodes, err := mproof.Inclusion(index, size)
	if err != nil {
		return nil, err
	}
	hashes := make([][]byte, len(nodes.IDs))
	for i, id := range nodes.IDs {
		if hashes[i], err = c.node(ctx, id, size, readTile); err != nil {
			return nil, err
		}
	}
	return nodes.Rehash(hashes, rfc6962.DefaultHasher.HashChildren)
}
