package main

import (
	"debug/buildinfo"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// A binary built from the checkout with VCS stamping (this machine sets
// GOFLAGS=-buildvcs=false, so the test asks for it) prints the revision
// git reports, and its commit time.
func TestVersionVCS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpres")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout to stamp (git rev-parse HEAD: %v)", err)
	}
	bin := filepath.Join(t.TempDir(), "mcpres")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build with VCS stamping here: %v\n%s", err, out)
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "vcs.revision" }) {
		t.Skip("the go command here recorded no VCS information even with -buildvcs=true; internal/version's TestDescribe covers the format")
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(string(head))
	if !regexp.MustCompile(`(?m)^revision: ` + rev + `( \(modified\))?$`).Match(out) {
		t.Errorf("version does not print revision %s:\n%s", rev, out)
	}
	if !regexp.MustCompile(`(?m)^time: \d{4}-\d\d-\d\dT`).Match(out) {
		t.Errorf("version does not print the commit time:\n%s", out)
	}
	long, err := exec.Command(bin, "--version").Output()
	if err != nil || string(long) != string(out) {
		t.Errorf("--version differs from version: %q (%v)", long, err)
	}
}
