//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// TestBatchMemoryBounded verifies a generated directory of attested
// bundles (hard links to the witnessed fixture: 20 KB, two envelopes) with
// the mcpres binary, built by the test, and checks that the process's peak
// resident set stays under 60 MB:
// results stream out through a bounded window, so memory does not grow
// with the number of files (issue 16 item 3).
//
// It is slow (about a minute for 100,000 files on 2 cores) and so runs only
// when asked:
//
//	MCPRES_TEST_100K=1 go test ./cmd/mcpres -run TestBatchMemoryBounded -v
//
// MCPRES_TEST_FILES=N verifies N files instead of 100,000.
func TestBatchMemoryBounded(t *testing.T) {
	if os.Getenv("MCPRES_TEST_100K") != "1" {
		t.Skip("slow: set MCPRES_TEST_100K=1 to verify 100,000 files in bounded memory")
	}
	n := 100_000
	if s := os.Getenv("MCPRES_TEST_FILES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("MCPRES_TEST_FILES=%q", s)
		}
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "bundles")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var src string
	for i := range n {
		// Hard links are regular files: the batch reads each as its own.
		// A file system limits the links to one file (ext4: 65,000), so
		// every 50,000 files link to a fresh copy.
		if i%50_000 == 0 {
			src = copyFixture(t, tmp, "witnessed.json", fmt.Sprintf("src%d.json", i/50_000))
		}
		if err := os.Link(src, filepath.Join(dir, fmt.Sprintf("b%06d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildMcpres(t, tmp)
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	cmd, peakRSS := measured(t, tmp, bin, "attest", "verify", "--policy", policy, "--evaluated-at", "2026-08-27T18:05:00.000Z",
		"--require-level", "WITNESSED", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 && sc.Bytes()[0] == '{' {
			lines++
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if lines != n {
		t.Fatalf("%d results, want %d", lines, n)
	}
	peak := peakRSS()
	t.Logf("%d files: peak RSS %.1f MB", n, float64(peak)/1e6)
	if peak >= 60e6 {
		t.Errorf("peak RSS %.1f MB for %d files, want under 60 MB", float64(peak)/1e6, n)
	}
}

// buildMcpres builds the mcpres binary into dir: peak memory is a property
// of the whole process, measured from outside.
func buildMcpres(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mcpres")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// measured returns a command that runs bin with args under /usr/bin/time,
// and a function that, once the command has ended, returns its peak
// resident set in bytes. Not the wait status's Maxrss: a child started by
// this (Go) process inherits its high-water mark (exec saves the hiwater
// of the memory it replaces, and Go starts children with vfork, which
// shares the test's), so that figure is at least the test's own peak.
// /usr/bin/time forks from its own small process.
func measured(t *testing.T, dir, bin string, args ...string) (*exec.Cmd, func() int64) {
	t.Helper()
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("needs /usr/bin/time (Debian package time) to measure a process's peak memory")
	}
	report := filepath.Join(dir, "peak-rss")
	cmd := exec.Command(timeBin, append([]string{"-f", "%M", "-o", report, bin}, args...)...)
	return cmd, func() int64 {
		t.Helper()
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b)) // the figure comes last
		if len(f) == 0 {
			t.Fatalf("/usr/bin/time wrote nothing to %s", report)
		}
		kib, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		if err != nil {
			t.Fatalf("/usr/bin/time wrote %q", b)
		}
		return kib * 1024
	}
}

// TestLimitBundleMemory validates the bundle at the reader limits
// (bundletest.MaxLargeOps operations, 250,000 values and keys) in its
// compact form, the densest, with the mcpres binary and checks that the
// process's peak resident set stays within 10x the file (issue 16 item 4).
// It builds the binary (a few seconds); -short skips it.
func TestLimitBundleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary to measure validate's peak memory on the limit bundle")
	}
	tmp := t.TempDir()
	compact, err := canonjson.Compact(bundletest.Large(t, bundletest.MaxLargeOps))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "limit.compact.json")
	if err := os.WriteFile(file, compact, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, peakRSS := measured(t, tmp, buildMcpres(t, tmp), "validate", file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	peak := peakRSS()
	ratio := float64(peak) / float64(len(compact))
	t.Logf("%d bytes: peak RSS %.1f MB, %.1fx", len(compact), float64(peak)/1e6, ratio)
	if ratio > 10 {
		t.Errorf("peak RSS %.1f MB is %.1fx the %d-byte input, want at most 10x", float64(peak)/1e6, ratio, len(compact))
	}
}
