// Package upstreamtest locates the upstream MCP-RES conformance vectors for
// tests, skips the tests that need them when they are absent, and says so
// in one line per test binary (DESIGN §7). It must only be imported by
// tests.
//
// The vectors live in ../shared/conformance/upstream/ beside the
// repository (README, "Set up"); a plain clone does not have them. Tests
// reach them through testdata/upstream, a symbolic link committed in the
// repository that points there ([Path]). The indirection is for the go
// command's test cache: it rechecks the files and folders a cached test
// opened or stat-ed only when they lie inside the module, so a test that
// looked at ../shared directly answered "(cached)" after the vectors were
// copied beside the checkout; through the link the same stat is inside the
// module, and the next plain `go test` runs the vectors.
//
// Each test that needs them calls [Dir] (which skips it, counted), and the
// package's TestMain calls [Main] or, when it has its own, [Summary] after
// m.Run.
//
// Where it shows: the line goes to standard error. For a package that
// passes, `go test ./...` prints only its "ok" line and hides everything
// the test binary wrote, by design, so the line shows with `go test -v`,
// `-json`, or when the package fails. Writing to the controlling terminal
// (/dev/tty) would show it always, but tests touch nothing under /dev
// beyond reading.
package upstreamtest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// Where names the vectors' folder for people.
const Where = "../shared/conformance/upstream/ (the upstream MCP-RES vectors; see README)"

// skipped counts, in this test binary, the tests [Dir] skipped. It is the
// one piece of state the summary needs: a test binary is one process.
var skipped atomic.Int64

// Path returns root/testdata/upstream/rel, the path of a file or folder
// of the vectors through the repository's link to
// ../shared/conformance/upstream, where root is the repository root seen
// from the test's package (a relative path such as "../..") and rel a
// slash-separated path below the vectors' root ("v0.2.0/valid"). It
// does not check that the vectors exist (see [Dir]), but it fails the
// test when root is not the repository root (no go.mod there): a wrong
// root would otherwise look like absent vectors, and the test would skip
// forever.
func Path(t testing.TB, root, rel string) string {
	t.Helper()
	if err := checkRoot(root); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "testdata", "upstream", filepath.FromSlash(rel))
}

func checkRoot(root string) error {
	if st, err := os.Stat(filepath.Join(root, "go.mod")); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("upstreamtest: %s is not the repository root (no go.mod there): fix the root this test passes", root)
	}
	return nil
}

// Dir returns [Path](root, rel) for a folder of the vectors, rel a version
// folder ("v0.2.0") or a folder inside one ("v0.2.0/profiles"). When it is
// absent the test is skipped and counted.
func Dir(t testing.TB, root, rel string) string {
	t.Helper()
	dir := Path(t, root, rel)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		skipped.Add(1)
		t.Skipf("upstream vectors not available (%s is absent): %s", dir, Where)
	}
	return dir
}

// Skipped is the number of tests [Dir] has skipped so far.
func Skipped() int64 { return skipped.Load() }

// Main runs the tests and exits with their status, after [Summary].
func Main(m *testing.M) {
	code := m.Run()
	Summary()
	os.Exit(code)
}

// Summary prints one line when [Dir] skipped tests in this binary:
// "mcpres: N conformance tests skipped in PKG: ../shared/… is absent".
func Summary() {
	n := skipped.Load()
	if n == 0 {
		return
	}
	line := fmt.Sprintf("mcpres: %d conformance %s skipped in %s: %s is absent", n, tests(n), pkg(), Where)
	fmt.Fprintln(os.Stderr, line)
}

func tests(n int64) string {
	if n == 1 {
		return "test"
	}
	return "tests"
}

// pkg is the test's package directory relative to the module root (the
// nearest folder above with a go.mod), as "./cmd/mcpres".
func pkg() string {
	wd, err := os.Getwd()
	if err != nil {
		return "this package"
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return wd
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
