package upstreamtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir skips and counts when the folder is absent, and returns it without
// counting when it is there (control).
func TestDir(t *testing.T) {
	root := t.TempDir()
	before := Skipped()
	t.Run("absent", func(t *testing.T) {
		Dir(t, filepath.Join(root, "repo"), "v0.2.0")
		t.Error("Dir did not skip")
	})
	if got := Skipped() - before; got != 1 {
		t.Errorf("skips counted: %d, want 1", got)
	}
	want := filepath.Join(root, "shared", "conformance", "upstream", "v0.2.0")
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Dir(t, filepath.Join(root, "repo"), "v0.2.0"); got != want {
		t.Errorf("Dir = %s, want %s", got, want)
	}
	if got := Skipped() - before; got != 1 {
		t.Errorf("a present folder was counted as a skip (%d)", got)
	}
	if p := pkg(); p != "./internal/upstreamtest" {
		t.Errorf("pkg() = %q", p)
	}
}
