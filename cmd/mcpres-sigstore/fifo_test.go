//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/tlog/rekor/rekorfake"
)

// rekor upload --key FIFO is refused at once (exit 2, the message says it
// is a FIFO) and nothing reaches Rekor; TestRekorUploadRefusals' "not a
// key" row is the control (a regular file that is no key).
func TestRekorUploadKeyFIFO(t *testing.T) {
	srv := rekorfake.New(t)
	dir := t.TempDir()
	good := write(t, dir, "bundle.json", pretty(t, bundletest.Example(t)))
	fifo := filepath.Join(dir, "key.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, code := runRekorCLI("rekor", "upload", "--rekor-url", srv.URL, "--key", fifo, good, "-o", filepath.Join(dir, "ref.json"))
		done <- result{stderr, code}
	}()
	select {
	case r := <-done:
		if r.code != exitInput || !strings.Contains(r.stderr, "a FIFO") {
			t.Errorf("exit %d, stderr %q; want 2 saying it is a FIFO", r.code, r.stderr)
		}
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("rekor upload blocked on the FIFO")
	}
	if srv.Requests != 0 {
		t.Errorf("%d requests reached Rekor", srv.Requests)
	}
}
