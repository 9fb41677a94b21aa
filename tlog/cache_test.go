package tlog

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestResourceCacheReadsOnce: proofs asking for the same resource at the
// same moment share one read (a checkpoint covering a thousand entries
// made a thousand identical reads of its tiles before); a failed read is
// not cached, and its waiters read again; another resource is read on
// its own.
func TestResourceCacheReadsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newResourceCache(8)
		var reads atomic.Int32
		release := make(chan struct{})
		fail := true
		read := func() ([]byte, error) {
			reads.Add(1)
			<-release
			if fail {
				fail = false
				return nil, errors.New("the database is away")
			}
			return []byte("tile"), nil
		}
		k := resourceKey{0, 7, 3}
		var wg sync.WaitGroup
		var ok atomic.Int32
		for range 50 {
			wg.Go(func() {
				if data, err := c.get(context.Background(), k, read); err == nil && string(data) == "tile" {
					ok.Add(1)
				}
			})
		}
		synctest.Wait() // every caller reads or waits for the one read
		if n := reads.Load(); n != 1 {
			t.Fatalf("%d reads in flight for one resource, want 1", n)
		}
		release <- struct{}{} // the first read fails
		synctest.Wait()
		if n := reads.Load(); n != 2 {
			t.Fatalf("%d reads after the first failed, want one more", n)
		}
		close(release)
		wg.Wait()
		if n := ok.Load(); n != 49 {
			t.Fatalf("%d callers got the resource, want all but the failed read's own", n)
		}
		if data, err := c.get(context.Background(), k, read); err != nil || string(data) != "tile" || reads.Load() != 2 {
			t.Fatalf("cached: %q %v after %d reads", data, err, reads.Load())
		}
		if _, err := c.get(context.Background(), resourceKey{0, 8, 0}, read); err != nil || reads.Load() != 3 {
			t.Fatalf("another resource: %v after %d reads", err, reads.Load())
		}
	})
}
