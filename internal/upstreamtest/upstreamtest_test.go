package upstreamtest

import (
	"os"
	"path/filepath"
	"testing"
)

// linkTarget is what the committed testdata/upstream link holds.
const linkTarget = "../../shared/conformance/upstream"

// The repository's link points at ../shared/conformance/upstream beside the
// checkout, as Path assumes.
func TestCommittedLink(t *testing.T) {
	got, err := os.Readlink(filepath.Join("..", "..", "testdata", "upstream"))
	if err != nil {
		t.Fatalf("testdata/upstream must be a symbolic link to %s: %v", linkTarget, err)
	}
	if got != linkTarget {
		t.Errorf("testdata/upstream -> %s, want %s", got, linkTarget)
	}
}

// Dir skips and counts when the folder is absent (the link dangles), and
// returns it through the link without counting when the vectors are there
// (control).
func TestDir(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkRoot(repo); err == nil {
		t.Error("a folder without go.mod was taken for the repository root")
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(linkTarget, filepath.Join(repo, "testdata", "upstream")); err != nil {
		t.Fatal(err)
	}
	before := Skipped()
	t.Run("absent", func(t *testing.T) {
		Dir(t, repo, "v0.2.0")
		t.Error("Dir did not skip")
	})
	if got := Skipped() - before; got != 1 {
		t.Errorf("skips counted: %d, want 1", got)
	}
	if err := os.MkdirAll(filepath.Join(root, "shared", "conformance", "upstream", "v0.2.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(repo, "testdata", "upstream", "v0.2.0")
	if got := Dir(t, repo, "v0.2.0"); got != want {
		t.Errorf("Dir = %s, want %s", got, want)
	}
	if got := Skipped() - before; got != 1 {
		t.Errorf("a present folder was counted as a skip (%d)", got)
	}
	if p := pkg(); p != "./internal/upstreamtest" {
		t.Errorf("pkg() = %q", p)
	}
}

// The roots the tests pass are the repository root (a moved package that
// kept its old "../.." would otherwise skip its vectors forever).
func TestCheckRoot(t *testing.T) {
	if err := checkRoot(filepath.Join("..", "..")); err != nil {
		t.Errorf("the repository root: %v", err)
	}
	if err := checkRoot(".."); err == nil {
		t.Error("internal/ was taken for the repository root")
	}
}
