package ghaction

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestReleaseBuildReproducible builds one target of the release matrix
// (mcpres for linux/amd64) with examples/github-actions/build-release.sh
// twice, from two copies of the committed sources at different paths, and
// requires identical SHA256SUMS: the flags keep the path, the VCS state
// and the build ID out of the bytes. The full matrix is the same command
// without arguments (docs/release-pipeline.md); it takes minutes on two
// cores, so the suite builds one target.
func TestReleaseBuildReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpres twice")
	}
	for _, tool := range []string{"bash", "git", "tar", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not available", tool)
		}
	}
	if err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	var sums [2][]byte
	for i := range sums {
		src := filepath.Join(t.TempDir(), "src", "copy"+string(rune('a'+i)))
		os.MkdirAll(src, 0o755)
		archive := exec.Command("bash", "-c", `git -C "$1" archive HEAD | tar -x -C "$2"`, "archive", repoRoot, src)
		if out, err := archive.CombinedOutput(); err != nil {
			t.Fatalf("git archive: %v\n%s", err, out)
		}
		out := filepath.Join(t.TempDir(), "out")
		build := exec.Command("bash", filepath.Join(src, "examples", "github-actions", "build-release.sh"), out, "linux/amd64")
		build.Env = append(os.Environ(), "MCPRES_RELEASE_PROGRAMS=mcpres")
		if o, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build-release.sh: %v\n%s", err, o)
		}
		var err error
		if sums[i], err = os.ReadFile(filepath.Join(out, "SHA256SUMS")); err != nil {
			t.Fatal(err)
		}
		if len(sums[i]) != 64+2+len("mcpres-linux-amd64")+1 {
			t.Fatalf("SHA256SUMS %q: want one line for mcpres-linux-amd64", sums[i])
		}
	}
	if string(sums[0]) != string(sums[1]) {
		t.Errorf("two builds of the same sources differ:\n%s%s", sums[0], sums[1])
	}
}
