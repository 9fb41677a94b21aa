//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
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
	bin := filepath.Join(tmp, "mcpres")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	cmd := exec.Command(bin, "attest", "verify", "--policy", policy, "--evaluated-at", "2026-08-27T18:05:00.000Z",
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
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // Linux: KiB
	t.Logf("%d files: peak RSS %.1f MB", n, float64(peak)/1e6)
	if peak >= 60e6 {
		t.Errorf("peak RSS %.1f MB for %d files, want under 60 MB", float64(peak)/1e6, n)
	}
}
