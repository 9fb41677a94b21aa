//go:build !mcpres_s3

package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The default build leaves the object-storage log out (logs3_aws.go says
// why): --s3 and log migrate are usage errors that say how to get it, and
// nothing is read before (the config file named does not exist).
func TestCLIS3NotBuiltIn(t *testing.T) {
	for _, args := range [][]string{
		{"log", "init", "--s3", "missing.json", "--key", "missing.key"},
		{"log", "serve", "--s3", "missing.json", "--key", "missing.key"},
		{"log", "proof", "--s3", "missing.json", "--index", "0"},
		{"log", "add", "--s3", "missing.json", "--key", "missing.key", "missing-bundle.json", "-o", "missing.ref.json"},
		{"log", "migrate", "--from-mysql", "env:MCPRES_NO_DSN", "--to-s3", "missing.json"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitInput || !strings.Contains(stderr, "go install -tags mcpres_s3 ./cmd/mcpres") || strings.Contains(stderr, "cannot read") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
	// Control: the other storage flags still work as before.
	if _, stderr, code := runCLI(t, "log", "proof", "--index", "0"); code != exitInput || !strings.Contains(stderr, "give one of --dir, --s3 and --mysql") {
		t.Errorf("no storage flag: exit %d, stderr %q", code, stderr)
	}
}

// TestCLIS3Tagged runs the object-storage CLI tests (logserve_s3_test.go,
// built with -tags mcpres_s3) from the default suite, so that `go test
// ./...` runs them: they need a MariaDB/MySQL server and Versity's
// gateway, and skip with a message without them.
func TestCLIS3Tagged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpres_s3 tests")
	}
	if os.Getenv("MCPRES_TEST_MYSQL_DSN") == "" {
		t.Skip("the object-storage CLI tests need a MariaDB/MySQL server: $MCPRES_TEST_MYSQL_DSN is not set (.ci/run starts one)")
	}
	cmd := exec.Command("go", "test", "-count=1", "-tags", "mcpres_s3", "-run", "S3|Migrate", ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -tags mcpres_s3: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestCLILogProofURL: reading a log from its tiles at a URL needs no
// object-storage code, so the default build has 'log proof --url': a log
// directory behind a plain static file server gives byte for byte the
// reference 'log proof --dir' gives; another log's key is refused.
func TestCLILogProofURL(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1 := exampleBundleFile(t, e.dir)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("b1.ref.json"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	want, _ := e.run("log", "proof", "--dir", dir, "--index", "0")
	got, _ := e.run("log", "proof", "--url", url, "--log-key", e.p("log.vkey"), "--index", "0")
	if !bytes.Equal([]byte(got), []byte(want)) {
		t.Fatalf("log proof --url:\n%s\nwant\n%s", got, want)
	}
	e.fail(exitInput, "published checkpoint", "log", "proof", "--url", url, "--log-key", e.p("other-log.vkey"), "--index", "0")
	e.fail(exitInput, "--log-key is required with --url", "log", "proof", "--url", url, "--index", "0")
}
