package tlog

import (
	"context"
	"sync"
)

// resourceCache holds recently read tiles and entry bundles for an
// Appender's proofs. Every tlog-tiles resource is immutable for a given
// (level, index, width): a full tile never changes and a partial tile of
// width W is always the same W hashes. So entries of one batch, proved
// against the same checkpoint, share their reads: a resource is read once,
// however many proofs ask for it at the same moment (the others wait for
// that read). FIFO eviction bounds it.
type resourceCache struct {
	mu       sync.Mutex
	m        map[resourceKey][]byte
	order    []resourceKey
	max      int
	inflight map[resourceKey]*pendingRead
}

// A pendingRead is a read in progress that other callers wait for.
type pendingRead struct {
	done chan struct{}
	data []byte
	err  error
}

// resourceKey names a resource: level -1 for entry bundles.
type resourceKey struct {
	level int64
	index uint64
	p     uint8
}

// cachedResources is how many resources an Appender keeps (at most 8 KiB
// a hash tile; entry bundles of small entries are a few hundred KiB).
const cachedResources = 1024

func newResourceCache(max int) *resourceCache {
	return &resourceCache{m: make(map[resourceKey][]byte, max), max: max, inflight: map[resourceKey]*pendingRead{}}
}

func (c *resourceCache) get(ctx context.Context, k resourceKey, read func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if data, ok := c.m[k]; ok {
		c.mu.Unlock()
		return data, nil
	}
	if pr, ok := c.inflight[k]; ok {
		c.mu.Unlock()
		select {
		case <-pr.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if pr.err == nil {
			return pr.data, nil
		}
		// The read failed (perhaps for its caller's context): read again.
		return c.get(ctx, k, read)
	}
	pr := &pendingRead{done: make(chan struct{})}
	c.inflight[k] = pr
	c.mu.Unlock()
	pr.data, pr.err = read()
	c.mu.Lock()
	delete(c.inflight, k)
	if pr.err == nil {
		if len(c.order) >= c.max {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.m[k] = pr.data
		c.order = append(c.order, k)
	}
	c.mu.Unlock()
	close(pr.done)
	return pr.data, pr.err
}

// tile and bundle are the cached readers of store.
func (c *resourceCache) tile(store Storage) func(context.Context, uint64, uint64, uint8) ([]byte, error) {
	return func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
		return c.get(ctx, resourceKey{int64(level), index, p}, func() ([]byte, error) { return store.ReadTile(ctx, level, index, p) })
	}
}

func (c *resourceCache) bundle(store Storage) func(context.Context, uint64, uint8) ([]byte, error) {
	return func(ctx context.Context, index uint64, p uint8) ([]byte, error) {
		return c.get(ctx, resourceKey{-1, index, p}, func() ([]byte, error) { return store.ReadEntryBundle(ctx, index, p) })
	}
}
