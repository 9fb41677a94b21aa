package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// quiet is a bench that runs nothing: its output in buffers.
func quiet(t *testing.T, c config) (*bench, *bytes.Buffer, *bytes.Buffer) {
	var out, log bytes.Buffer
	return &bench{c: c, tmp: t.TempDir(), bin: map[string]string{}, out: &out, log: &log}, &out, &log
}

// TestMySQLRefuses: the MySQL and object-storage workloads run only
// against a server on 127.0.0.1 named by a DSN that parses, and say
// they are skipped without one; nothing is run before.
func TestMySQLRefuses(t *testing.T) {
	b, out, log := quiet(t, config{})
	if err := b.logMySQL(); err != nil || !strings.Contains(log.String(), "bench: mysql: skipped: no MariaDB/MySQL server") {
		t.Fatalf("no DSN: %v, %q", err, log.String())
	}
	if err := b.logS3(); err != nil || !strings.Contains(log.String(), "bench: s3: skipped: no MariaDB/MySQL server") {
		t.Fatalf("no DSN: %v, %q", err, log.String())
	}
	for _, c := range []struct{ dsn, want string }{
		{"u:p@tcp(10.0.0.1:3306)/", "must be on 127.0.0.1, not 10.0.0.1:3306"},
		{"u:p@tcp(localhost:3306)/", "must be on 127.0.0.1, not localhost:3306"},
		{"u:p@tcp(127.0.0.1:3306", "the DSN: "},
	} {
		b.c.dsn = c.dsn
		if err := b.logMySQL(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.dsn, err, c.want)
		}
	}
	// Control: a DSN on 127.0.0.1 gets as far as asking the server (a
	// port where none listens).
	b.c.dsn = "u:p@tcp(127.0.0.1:" + closedPort(t) + ")/"
	if err := b.logMySQL(); err == nil || !strings.Contains(err.Error(), "the MySQL server: ") {
		t.Errorf("no server: %v", err)
	}
	if out.Len() > 0 || b.rows > 0 {
		t.Fatalf("rows printed: %q", out.String())
	}
}

// TestS3Refuses: without versitygw the object-storage workload says it
// is skipped and how to install it; with it, the DSN is checked as the
// MySQL workload's.
func TestS3Refuses(t *testing.T) {
	gobin := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GOBIN", gobin)
	t.Setenv("GOPATH", t.TempDir())
	b, _, log := quiet(t, config{dsn: "u:p@tcp(10.0.0.1:3306)/"})
	if err := b.logS3(); err != nil || !strings.Contains(log.String(), "bench: s3: skipped: versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)") {
		t.Fatalf("no versitygw: %v, %q", err, log.String())
	}
	if err := os.WriteFile(filepath.Join(gobin, "versitygw"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.logS3(); err == nil || !strings.Contains(err.Error(), "must be on 127.0.0.1, not 10.0.0.1:3306") {
		t.Fatalf("a DSN elsewhere: %v", err)
	}
	b.c.dsn = "u:p@tcp(127.0.0.1:3306"
	if err := b.logS3(); err == nil || !strings.Contains(err.Error(), "the DSN: ") {
		t.Fatalf("a malformed DSN: %v", err)
	}
}

// TestTokenSkips: without SoftHSM2's tools the token workload says it is
// skipped, naming what is missing.
func TestTokenSkips(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	b, out, log := quiet(t, config{})
	if err := b.logToken(); err != nil {
		t.Fatal(err)
	}
	want := "bench: token: skipped: softhsm2-util is missing"
	if _, err := os.Stat(softHSMModule); err != nil {
		want = "bench: token: skipped: " + softHSMModule + " is missing"
	}
	if !strings.Contains(log.String(), want) || out.Len() > 0 {
		t.Fatalf("%q, want %q", log.String(), want)
	}
}

// TestRekorQuickUncached: --quick never builds Rekor v2: with no cached
// server, or a cached file that is not rekor-tiles' server at the pinned
// version, the row says it is unavailable and how to get it.
func TestRekorQuickUncached(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	b, out, log := quiet(t, config{quick: true, posixC: 16})
	if err := b.logRekor(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| unavailable: --quick does not build rekor-tiles v2.3.0 and no build is cached") ||
		!strings.Contains(log.String(), "bench: rekor: --quick does not build") {
		t.Fatalf("no cache: %q %q", out.String(), log.String())
	}
	// A cached file that is another program (this test's binary).
	cached := rekorCache()
	if !strings.HasPrefix(cached, cache) {
		t.Fatalf("the cache %s is not in $XDG_CACHE_HOME", cached)
	}
	if err := copyExecutable(os.Args[0], cached); err != nil {
		t.Fatal(err)
	}
	if err := checkRekorBinary(cached); err == nil || !strings.Contains(err.Error(), "the rekor-server binary is github.com/mcpres/mcpres/bench of") {
		t.Fatalf("another program: %v", err)
	}
	if _, _, err := b.rekorServer(); err == nil || !strings.Contains(err.Error(), "no build is cached") {
		t.Fatalf("another program cached: %v", err)
	}
	if err := checkRekorBinary(filepath.Join(cache, "missing")); err == nil {
		t.Fatal("a missing binary taken")
	}
}

// TestLastLine: what a failed go install says last.
func TestLastLine(t *testing.T) {
	if got := lastLine([]byte("go: downloading x\ngo: build failed: y\n\n")); got != "go: build failed: y" {
		t.Fatalf("%q", got)
	}
	if got := lastLine(nil); got != "" {
		t.Fatalf("%q", got)
	}
}

// TestKeep: --keep leaves the temporary directory and says where; by
// default it is removed.
func TestKeep(t *testing.T) {
	b, _, log := quiet(t, config{keep: true})
	b.close()
	if _, err := os.Stat(b.tmp); err != nil || !strings.Contains(log.String(), "bench: kept "+b.tmp) {
		t.Fatalf("%v %q", err, log.String())
	}
	b.c.keep = false
	b.close()
	if _, err := os.Stat(b.tmp); !os.IsNotExist(err) {
		t.Fatalf("not removed: %v", err)
	}
}

// closedPort is a port of 127.0.0.1 where nothing listens now.
func closedPort(t *testing.T) string {
	p, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(p[0])
}
