package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// monitorArgs is a log monitor command line for the log directory dir.
func (e *logEnv) monitorArgs(dir string, extra ...string) []string {
	return append([]string{"log", "monitor", "--once", "--log", dir, "--log-key", e.p("log.vkey"), "--state", e.p("state")}, extra...)
}

func alertKinds(t *testing.T, stdout string) []string {
	t.Helper()
	var kinds []string
	for line := range strings.Lines(stdout) {
		var a struct{ SchemaVersion, Kind string }
		if err := json.Unmarshal([]byte(line), &a); err != nil || a.SchemaVersion != "mcpres.log-monitor-alert/v1" {
			t.Fatalf("alert line %q: %v", line, err)
		}
		kinds = append(kinds, a.Kind)
	}
	return kinds
}

func (e *logEnv) stateBytes() []byte {
	matches, _ := filepath.Glob(e.p("state/*.json"))
	if len(matches) != 1 {
		e.t.Fatalf("state files: %v", matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

func TestCLILogMonitor(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1 := exampleBundleFile(t, e.dir)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("b1.ref.json"))

	// Honest: nothing about a watched subject, exit 0, nothing on stdout.
	stdout, stderr := e.run(e.monitorArgs(dir, "--watch", "io.github.other/*")...)
	if stdout != "" || !strings.Contains(stderr, "verified tree size 1, next entry 1; read 1 entries (0 watched); 0 alert(s)") {
		t.Fatalf("stdout %q stderr %q", stdout, stderr)
	}

	// New evidence about the watched subject: exactly one alert, exit 1,
	// delivered to the hooks too.
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), variantBundleFile(t, e.dir), "-o", e.p("b2.ref.json"))
	hookOut := e.p("hook.out")
	hook := writeTestFile(t, e.dir, "hook.sh", []byte("#!/bin/sh\ncat >> '"+hookOut+"'\n"), 0o755)
	var mu sync.Mutex
	var posted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posted = append(posted, string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	args := e.monitorArgs(dir, "--watch", "ledger-notes-*", "--exec", hook, "--webhook", srv.URL)
	stdout, stderr, code := runLogCLI(t, args...)
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "watched-entry" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `"index":1,`) {
		t.Errorf("alert %s: want entry 1", stdout)
	}
	if got, _ := os.ReadFile(hookOut); string(got) != stdout {
		t.Errorf("--exec got %q, want %q", got, stdout)
	}
	if mu.Lock(); len(posted) != 1 || posted[0]+"\n" != stdout {
		t.Errorf("--webhook got %q", posted)
	}
	mu.Unlock()
	// A restart resumes: no second alert.
	stdout, _ = e.run(args...)
	if stdout != "" {
		t.Fatalf("restart alerted again: %q", stdout)
	}
	before := e.stateBytes()

	// A fork: another log with the same origin and key.
	fork := e.initLog("fork")
	e.run("log", "add", "--dir", fork, "--key", e.p("log.key"), osVariantBundleFile(t, e.dir, "netbsd"), "-o", e.p("f1.ref.json"))
	e.run("log", "add", "--dir", fork, "--key", e.p("log.key"), osVariantBundleFile(t, e.dir, "openbsd"), "-o", e.p("f2.ref.json"))
	stdout, _, code = runLogCLI(t, e.monitorArgs(fork, "--format", "text")...)
	if code != 1 || !strings.HasPrefix(stdout, "ALERT fork: log "+testLogOrigin) {
		t.Fatalf("fork: exit %d stdout %q", code, stdout)
	}
	if string(e.stateBytes()) != string(before) {
		t.Fatal("state changed by a fork")
	}

	// Below quorum: the tlog policy requires a witness that did not cosign.
	pol := writeTestFile(t, e.dir, "witnesses.txt", []byte("log "+e.vkey("log")+"\nwitness W1 "+e.vkey("w1")+"\nquorum W1\n"), 0o644)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), osVariantBundleFile(t, e.dir, "netbsd"), "-o", e.p("b3.ref.json"))
	stdout, _, code = runLogCLI(t, e.monitorArgs(dir, "--tlog-policy", pol)...)
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "below-quorum" {
		t.Fatalf("quorum: exit %d stdout %q", code, stdout)
	}
	if string(e.stateBytes()) != string(before) {
		t.Fatal("state changed by a checkpoint below quorum")
	}

	// Usage and unreadable input: exit 2.
	e.fail(2, "--log-key is required", "log", "monitor", "--once", "--log", dir, "--state", e.p("state"))
	e.fail(2, "subject pattern", e.monitorArgs(dir, "--watch", "*")...)
	e.fail(2, "--watch-digest", e.monitorArgs(dir, "--watch-digest", "sha256:00")...)
	e.fail(2, "plain http only to a loopback address", e.monitorArgs(dir, "--webhook", "http://example.org/hook")...)
	e.fail(2, "--log-key", "log", "monitor", "--once", "--log", dir, "--log-key", e.p("missing.vkey"), "--state", e.p("state"))
}
