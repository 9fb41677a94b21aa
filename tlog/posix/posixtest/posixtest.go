// Package posixtest builds POSIX (directory) logs quickly for tests. It must
// only be imported by tests.
package posixtest

import (
	"context"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
)

// BulkAppend appends entries to the log in dir directly through Tessera,
// in large batches and without mcpres's deduplication or garbage
// collection, to build logs bigger than one tile quickly. It returns once
// a published checkpoint covers every entry.
func BulkAppend(t testing.TB, ctx context.Context, dir string, s note.Signer, entries [][]byte) {
	t.Helper()
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	drv, err := posix.New(dir).Driver(c)
	if err != nil {
		t.Fatal(err)
	}
	opts := tessera.NewAppendOptions().WithCheckpointSigner(s).WithBatching(256, 10*time.Millisecond).
		WithCheckpointInterval(tlog.CheckpointInterval).WithCheckpointRepublishInterval(0)
	a, shutdown, r, err := tessera.NewAppender(c, drv, opts)
	if err != nil {
		t.Fatal(err)
	}
	aw := tessera.NewPublicationAwaiter(c, r.ReadCheckpoint, 10*time.Millisecond)
	var last tessera.IndexFuture
	for _, e := range entries {
		last = a.Add(c, tessera.NewEntry(e))
	}
	if _, _, err := aw.Await(c, last); err != nil {
		t.Fatal(err)
	}
	if err := shutdown(c); err != nil {
		t.Fatal(err)
	}
}
