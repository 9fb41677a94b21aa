package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLICompletionAndMan(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		stdout, stderr, code := runCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, "mcpres") || stderr != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(stdout), stderr)
		}
	}
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "man", "--dir", dir); code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	for _, page := range []string{"mcpres.1", "mcpres-validate.1", "mcpres-attest-sign.1", "mcpres-attest-verify.1", "mcpres-policy-check.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("missing man page %s", page)
			continue
		}
		if !strings.HasPrefix(string(b), ".nh") && !strings.Contains(string(b), ".TH") {
			t.Errorf("%s is not a man page", page)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "mcpres-attest-verify.1"))
	if !strings.Contains(string(b), "--require-level") {
		t.Error("attest verify man page lacks --require-level")
	}
	if _, stderr, code := runCLI(t, "man"); code != exitInput || !strings.Contains(stderr, "--dir is required") {
		t.Errorf("man without --dir: exit %d %q", code, stderr)
	}
}
