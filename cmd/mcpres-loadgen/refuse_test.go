package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog/loadgen"
)

// loopbackServer serves h on 127.0.0.1 only.
func loopbackServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// A --token-file that cannot be read is refused before anything is sent
// (exit 2, no pointer to the help, the token never printed); a readable
// one is sent as the bearer token, its line end trimmed (control).
func TestRunTokenFile(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	srv := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	dir := t.TempDir()
	data, err := canonjson.Pretty(bundletest.Example(t))
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "bundle.json")
	if err := os.WriteFile(b, data, 0o644); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer
	code := run([]string{"--url", srv.URL, "--bundle", b, "--token-file", filepath.Join(dir, "missing.token"), "--requests", "1"}, &out, &errb)
	if code != 2 || !strings.HasPrefix(errb.String(), "mcpres-loadgen: error: --token-file: ") || strings.Contains(errb.String(), "for usage") || out.Len() != 0 || len(auth) != 0 {
		t.Fatalf("missing token file: exit %d, %d requests\nstdout %s\nstderr %s", code, len(auth), out.String(), errb.String())
	}

	secret := "test-only-token-51f0"
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"--url", srv.URL, "--bundle", b, "--token-file", tok, "--clients", "1", "--requests", "2"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "failed map[401:2]") {
		t.Fatalf("control: exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != 2 || auth[0] != "Bearer "+secret || auth[1] != auth[0] {
		t.Errorf("Authorization sent: %q", auth)
	}
	if strings.Contains(out.String()+errb.String(), secret) {
		t.Error("the token was printed")
	}
}

// A Rekor v2 server that answers 201 with something that is not the
// submitted entry and its inclusion proof has nothing logged: the
// answers are counted failed and a note says why, not "first refusal".
func TestRunRekorV2Unproven(t *testing.T) {
	srv := loopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != loadgen.RekorV2Path {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte("{}"))
	}))
	var out, errb bytes.Buffer
	code := run([]string{"--url", srv.URL, "--rekor-v2", "--clients", "1", "--requests", "3"}, &out, &errb)
	if code != 0 || !strings.HasPrefix(out.String(), "0 submissions in ") || !strings.Contains(out.String(), "failed map[201:3]") ||
		!strings.Contains(errb.String(), "3 answers 201 were not the submitted entry with its inclusion proof (counted failed): ") ||
		strings.Contains(errb.String(), "first refusal") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}
