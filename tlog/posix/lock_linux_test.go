package posix

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog"
)

// TestReplaceWaitsForOwnPublisher: while this process holds Tessera's
// publish lock the way Tessera's publisher does (a traditional fcntl
// lock), ReplaceCheckpoint waits, and proceeds once it is released; the
// lock it held is not dropped by ReplaceCheckpoint's descriptor. (With a
// traditional lock ReplaceCheckpoint would run at once: locks of one
// process do not conflict.)
func TestReplaceWaitsForOwnPublisher(t *testing.T) {
	dir := t.TempDir()
	s := New(dir)
	os.MkdirAll(filepath.Join(dir, ".state"), 0o755)
	cp := filepath.Join(dir, "checkpoint")
	if err := os.WriteFile(cp, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, publishLock), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLKW, &lk); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ReplaceCheckpoint(context.Background(), []byte("old\n"), []byte("new\n")) }()
	select {
	case err := <-done:
		t.Fatalf("ReplaceCheckpoint ran while this process's publisher held the lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	f.Close() // Tessera's unlock
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cp); string(b) != "new\n" {
		t.Fatalf("checkpoint %q", b)
	}
	// Control: a checkpoint that changed meanwhile is not replaced.
	if err := s.ReplaceCheckpoint(context.Background(), []byte("old\n"), []byte("other\n")); !errors.Is(err, tlog.ErrCheckpointChanged) {
		t.Fatalf("stale prev: %v", err)
	}
}
