//go:build !mcpres_s3

package main

import (
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
