package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
)

// TestRun: a bounded run against a log service on 127.0.0.1 submits
// distinct valid bundles that are all logged, and reports them.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	s, _, _ := signednotetest.LogKey(t, bytes.Repeat([]byte{0x51}, 32), "example.org/loadgen-test-log")
	store := posix.New(filepath.Join(dir, "log"))
	if _, err := tlog.Open(store, s.Verifier()).Init(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&server.Service{Storage: store, Signer: s}).Run(ctx, ln) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a hang guard
			t.Error("the service did not stop")
		}
	}()
	data, err := canonjson.Pretty(bundletest.Example(t))
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "bundle.json")
	if err := os.WriteFile(b, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"--url", "http://" + ln.Addr().String() + "/", "--bundle", b, "--clients", "2", "--requests", "4"}, &out, &errb)
	if code != 0 || !strings.HasPrefix(out.String(), "4 submissions in ") || !strings.Contains(out.String(), "failed map[]") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	cp, err := tlog.Open(store, s.Verifier()).Checkpoint(context.Background())
	if err != nil || cp.Size != 4 {
		t.Fatalf("the log holds %v entries (%v), want 4 distinct ones", cp, err)
	}
}
