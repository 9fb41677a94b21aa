//go:build unix

package tufdist

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withHangGuard runs f and fails the test if it has not returned within a
// generous bound, unblocking whatever waits on fifo first.
func withHangGuard(t *testing.T, fifo string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("blocked on the FIFO %s", fifo)
		return nil
	}
}

// A FIFO where a repository directory, a cache or a repository being
// edited has a metadata or target file is refused at once: the local
// fetcher, the cache readers and the repository tooling never block on
// one. A control with the same files regular succeeds (TestFetchDirectory,
// TestFetchOfflineFromCache, TestAddTarget).
func TestFIFORefusedAtOnce(t *testing.T) {
	mkfifo := func(t *testing.T, path string) {
		t.Helper()
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	t.Run("repository directory", func(t *testing.T) {
		r := newTestRepo(t)
		r.add("policy.json", policyV1)
		fifo := filepath.Join(r.dir, "timestamp.json")
		mkfifo(t, fifo)
		err := withHangGuard(t, fifo, func() error {
			_, err := Fetch(Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policy.json", CacheDir: t.TempDir(), Now: t0.Add(time.Hour)})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "a FIFO, not a regular file") {
			t.Errorf("Fetch = %v, want the FIFO refused", err)
		}
	})
	t.Run("cache", func(t *testing.T) {
		r := newTestRepo(t)
		r.add("policy.json", policyV1)
		cache := t.TempDir()
		cfg := Config{TrustedRoot: r.root(), RepoURL: r.dir, Target: "policy.json", CacheDir: cache, Now: t0.Add(time.Hour)}
		if _, err := Fetch(cfg); err != nil {
			t.Fatal(err)
		}
		fifo := filepath.Join(cache, "metadata", "timestamp.json")
		mkfifo(t, fifo)
		// Online: the cached copy is left out, and the fresh one is not
		// written over the FIFO (atomicfile never replaces one).
		err := withHangGuard(t, fifo, func() error { _, err := Fetch(cfg); return err })
		if err == nil || !strings.Contains(err.Error(), "a FIFO, not a regular file") {
			t.Errorf("Fetch with a FIFO in the cache = %v, want the FIFO refused", err)
		}
		// Offline: the cache is all there is, and a FIFO is no copy.
		cfg.RepoURL = filepath.Join(t.TempDir(), "gone")
		err = withHangGuard(t, fifo, func() error { _, err := Fetch(cfg); return err })
		if err == nil || !strings.Contains(err.Error(), "a FIFO, not a regular file") {
			t.Errorf("offline Fetch = %v, want the FIFO refused", err)
		}
	})
	t.Run("repository tooling", func(t *testing.T) {
		r := newTestRepo(t)
		fifo := filepath.Join(r.dir, "1.root.json")
		mkfifo(t, fifo)
		err := withHangGuard(t, fifo, func() error {
			_, err := AddTarget(AddTargetConfig{
				Dir: r.dir, Name: "policy.json", Data: []byte(policyV1),
				Targets: testOnlyKey("targets"), Snapshot: testOnlyKey("snapshot"), Timestamp: testOnlyKey("timestamp"),
				Now: t0, Expiry: DefaultExpiry(),
			})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "a FIFO, not a regular file") {
			t.Errorf("AddTarget = %v, want the FIFO refused", err)
		}
	})
}
