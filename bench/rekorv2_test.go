package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A rekor-server built by go install …/cmd/rekor-server/posix@v2.3.0, as
// go version -m prints it (the first dependency only).
const rekorBuildInfo = "/tmp/bin/posix: go1.26.8\n" +
	"\tpath\tgithub.com/sigstore/rekor-tiles/v2/cmd/rekor-server/posix\n" +
	"\tmod\tgithub.com/sigstore/rekor-tiles/v2\tv2.3.0\th1:HhMgH61UP0t899V8Fjt7pz1YdgOBptbaQdnCF+79cdc=\n" +
	"\tdep\tgithub.com/beorn7/perks\tv1.0.1\th1:VlbKKnNfV8bJzeqoa4cOKqO6bYr3WgKZxO8Z16+hsOM=\n" +
	"\tbuild\t-buildmode=exe\n"

// TestCheckRekorBuildInfo: a cached or built server is used only when its
// build information says it is rekor-tiles' POSIX server at the pinned
// version and module hash; each other binary is refused for its reason.
func TestCheckRekorBuildInfo(t *testing.T) {
	if err := checkRekorBuildInfo([]byte(rekorBuildInfo)); err != nil {
		t.Fatalf("the pinned build: %v", err)
	}
	// A replaced dependency is not the module replaced.
	dep := strings.Replace(rekorBuildInfo, "\tbuild", "\t=>\t../perks\t(devel)\n\tbuild", 1)
	if err := checkRekorBuildInfo([]byte(dep)); err != nil {
		t.Fatalf("a replaced dependency: %v", err)
	}
	for name, c := range map[string]struct{ old, new, want string }{
		"another version":  {"v2.3.0\t", "v2.2.1\t", "want"},
		"another hash":     {"h1:HhMg", "h1:XhMg", "want"},
		"another server":   {"rekor-server/posix\n", "rekor-server/aws\n", "want"},
		"a replaced build": {"\tdep", "\t=>\t/src/rekor-tiles\t(devel)\n\tdep", "replaced"},
		"no module":        {"\tmod\t", "\txmod\t", "want"},
	} {
		out := strings.Replace(rekorBuildInfo, c.old, c.new, 1)
		if err := checkRekorBuildInfo([]byte(out)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestRekorReadyLine: the bench takes the address rekor-server logs for
// its HTTP gateway (v2.3.0's line), and no other listener's.
func TestRekorReadyLine(t *testing.T) {
	l := `time=2026-12-03T14:56:33.334Z level=INFO msg="starting HTTP proxy" address=127.0.0.1:39300`
	if m := rekorReady.FindStringSubmatch(l); m == nil || m[1] != "127.0.0.1:39300" {
		t.Fatalf("%q", m)
	}
	for _, other := range []string{
		`time=2026-12-03T14:56:33.334Z level=INFO msg="starting http metrics" address=127.0.0.1:44319`,
		`time=2026-12-03T14:56:33.333Z level=INFO msg="Starting gRPC server" address=127.0.0.1:39301`,
		`time=2026-12-03T14:56:33.334Z level=INFO msg="starting HTTP proxy" address=0.0.0.0:39300`,
	} {
		if rekorReady.MatchString(other) {
			t.Errorf("taken: %s", other)
		}
	}
}

// TestRekorTuning: Rekor v2 is given log serve's batching and checkpoint
// interval, as durations its flags parse.
func TestRekorTuning(t *testing.T) {
	got := strings.Join(rekorTuning(), " ")
	if got != "--batch-max-size 512 --batch-max-age 50ms --checkpoint-interval 100ms" {
		t.Fatalf("%s", got)
	}
	f := rekorTuning()
	for _, i := range []int{3, 5} {
		if _, err := time.ParseDuration(f[i]); err != nil {
			t.Errorf("%s %s: %v", f[i-1], f[i], err)
		}
	}
}

// TestFreePorts: distinct ports on 127.0.0.1.
func TestFreePorts(t *testing.T) {
	p, err := freePorts(2)
	if err != nil || len(p) != 2 || p[0] == p[1] || p[0] == 0 {
		t.Fatalf("%v %v", p, err)
	}
}

// TestCopyExecutable: the cached server is a whole, executable copy, and
// no temporary file is left beside it.
func TestCopyExecutable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "posix")
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "cache", "rekor-server-posix-"+rekorVersion)
	for range 2 { // a second copy replaces the first
		if err := copyExecutable(src, dst); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(dst)
	if err != nil || st.Mode().Perm() != 0o755 || st.Size() != 10 {
		t.Fatalf("%v %v", st, err)
	}
	if es, _ := os.ReadDir(filepath.Dir(dst)); len(es) != 1 {
		t.Fatalf("%d files in the cache", len(es))
	}
	if err := copyExecutable(filepath.Join(dir, "missing"), dst); err == nil {
		t.Fatal("copied a missing file")
	}
}

// TestRekorOnLoopback: the run is refused unless rekor-server logged its
// three listeners, each on 127.0.0.1.
func TestRekorOnLoopback(t *testing.T) {
	log := `time=2026-12-03T14:56:33.333Z level=INFO msg="Starting gRPC server" address=127.0.0.1:39301
time=2026-12-03T14:56:33.334Z level=INFO msg="starting HTTP proxy" address=127.0.0.1:39300
time=2026-12-03T14:56:33.334Z level=INFO msg="starting http metrics" address=127.0.0.1:44319
`
	if err := rekorOnLoopback(log); err != nil {
		t.Fatalf("the v2.3.0 log: %v", err)
	}
	if err := rekorOnLoopback(strings.Replace(log, "127.0.0.1:44319", "[::]:2112", 1)); err == nil || !strings.Contains(err.Error(), "http metrics listens on [::]:2112") {
		t.Errorf("metrics on every interface: %v", err)
	}
	if err := rekorOnLoopback(strings.Replace(log, "Starting gRPC", "Started gRPC", 1)); err == nil || !strings.Contains(err.Error(), "2 of its 3") {
		t.Errorf("a listener not logged: %v", err)
	}
}
