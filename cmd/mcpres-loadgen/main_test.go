package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/loadgen"
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

// TestRunRekorV2Flags: --rekor-v2 sends --requests hashedrekord
// submissions to Rekor v2's endpoint at --url and prints the result line
// and the first refusal (here a server that refuses every one; what is
// sent and counted is tested in tlog/loadgen).
func TestRunRekorV2Flags(t *testing.T) {
	var n atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost && r.URL.Path == loadgen.RekorV2Path && bytes.HasPrefix(body, []byte(`{"hashedRekordRequestV002":{`)) {
			n.Add(1)
		}
		http.Error(w, `{"code":3, "message":"invalid hashedrekord request"}`, http.StatusBadRequest)
	})}}
	srv.Start()
	defer srv.Close()
	var out, errb bytes.Buffer
	code := run([]string{"--url", srv.URL, "--rekor-v2", "--clients", "2", "--requests", "3"}, &out, &errb)
	if code != 0 || !strings.HasPrefix(out.String(), "0 submissions in ") || !strings.Contains(out.String(), "failed map[400:3]") ||
		!strings.Contains(errb.String(), "first refusal: 400 ") || n.Load() != 3 {
		t.Fatalf("exit %d, %d requests\nstdout %s\nstderr %s", code, n.Load(), out.String(), errb.String())
	}
}
