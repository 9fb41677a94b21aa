package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

// result is the line mcpres-loadgen prints (loadgen.Result.String), as
// the bench reads it.
var result = regexp.MustCompile(`^(\d+) submissions in ([\d.]+)s: (\d+)/s; time to reference p50 (\S+), p99 (\S+), max (\S+); failed map\[\]\n$`)

// TestAppend: a short run on a new log in t.TempDir() prints the
// load generator's result line, with entries published, and leaves a
// Tessera log (its checkpoint) in the directory.
func TestAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 2 s run of Tessera's POSIX driver")
	}
	dir := filepath.Join(t.TempDir(), "log")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"--dir", dir, "--clients", "4", "--duration", "2s", "--entry-size", "64"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	m := result.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("result %q", stdout.String())
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 {
		t.Fatalf("%d entries published", n)
	}
	cp, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	if err != nil || !strings.HasPrefix(string(cp), "bench.example/tessera-alone\n") {
		t.Fatalf("checkpoint %q, %v", cp, err)
	}
	// The directory exists now: a second run is refused.
	if err := run([]string{"--dir", dir, "--duration", "1s"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("an existing directory: %v", err)
	}
}

// TestUsage: a command line out of bounds is refused before anything is
// written.
func TestUsage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	const bounds = "usage: tesseraposix --dir DIR"
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, bounds},
		{[]string{"--dir", dir, "--clients", "0"}, bounds},
		{[]string{"--dir", dir, "--duration", "0s"}, bounds},
		{[]string{"--dir", dir, "--duration", "6m"}, bounds},
		{[]string{"--dir", dir, "--entry-size", "15"}, bounds},
		{[]string{"--dir", dir, "--entry-size", "100000000"}, bounds},
		{[]string{"--dir", dir, "extra"}, bounds},
		{[]string{"--dir", dir, "--clients", "x"}, `invalid value "x"`},
	} {
		var stdout bytes.Buffer
		err := run(c.args, &stdout, &bytes.Buffer{})
		var ue progexit.UsageError
		if !errors.As(err, &ue) || stdout.Len() > 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written: %v", err)
	}
}
