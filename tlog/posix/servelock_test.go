package posix

import (
	"errors"
	"testing"

	"github.com/mcpres/mcpres/tlog"
)

// TestLockServing: while a server holds a directory, another's LockServing
// fails with tlog.ErrServed (and not ErrServerStopping); once the holder
// says it is stopping, with tlog.ErrServerStopping (and not ErrServed), so
// a restart can wait; once it releases, the directory can be locked again.
// The flock(2) locks are per open file, so two Storages in one process
// exclude each other as two processes do.
func TestLockServing(t *testing.T) {
	dir := t.TempDir()
	first, err := New(dir).LockServing()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(dir).LockServing()
	if !errors.Is(err, tlog.ErrServed) || errors.Is(err, tlog.ErrServerStopping) {
		t.Fatalf("a running server: %v, want tlog.ErrServed", err)
	}
	first.Stopping()
	first.Stopping() // idempotent
	_, err = New(dir).LockServing()
	if !errors.Is(err, tlog.ErrServerStopping) || errors.Is(err, tlog.ErrServed) {
		t.Fatalf("a stopping server: %v, want tlog.ErrServerStopping", err)
	}
	// The probe of a stopping server holds nothing: it still is stopping.
	if _, err := New(dir).LockServing(); !errors.Is(err, tlog.ErrServerStopping) {
		t.Fatalf("a stopping server, asked again: %v", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second, err := New(dir).LockServing()
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	// The new holder is running: refused at once again.
	if _, err := New(dir).LockServing(); !errors.Is(err, tlog.ErrServed) {
		t.Fatalf("the new server: %v, want tlog.ErrServed", err)
	}
	second.Release()
}
