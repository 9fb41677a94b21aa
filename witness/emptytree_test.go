package witness_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/witness"
	"golang.org/x/mod/sumdb/note"
)

// The empty tree has one root: a checkpoint of size 0 with another root
// (signed by the log key) is refused as a bad checkpoint, and a recorded
// state of size 0 with another root is refused as a fork; the controls
// are the empty log's own checkpoint, and a recorded empty tree that a
// larger checkpoint extends.
func TestCosignRefusesOtherEmptyRoot(t *testing.T) {
	k := testKeys(t)
	empty, _ := makeLog(t, k)
	first := mustCosign(t, k, empty, nil).State // control: size 0, the empty root
	if first.Size != 0 {
		t.Fatalf("the empty log's state has size %d", first.Size)
	}
	dirA, _ := makeLog(t, k, "a", "b")
	prev := first
	mustCosign(t, k, dirA, &prev) // control: a tree extends the empty tree

	odd := leafHash([]byte("a"))
	signed, err := note.Sign(&note.Note{Text: testOrigin + "\n0\n" + odd.String() + "\n"}, k.logSigner)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "checkpoint"), signed, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := cosign(t, k, empty, nil); c != nil || !errors.Is(err, witness.ErrBadCheckpoint) || !strings.Contains(err.Error(), "checkpoint of size 0 with root "+odd.String()+", not the empty tree's") {
		t.Errorf("a size-0 checkpoint with another root: %v, %v", c, err)
	}
	prev = witness.LogState{Origin: testOrigin, Size: 0, Hash: odd}
	if c, err := cosign(t, k, dirA, &prev); c != nil || !errors.Is(err, witness.ErrFork) || !strings.Contains(err.Error(), "the recorded tree of size 0 of \""+testOrigin+"\" has root "+odd.String()+", not the empty tree's") {
		t.Errorf("a recorded size-0 state with another root: %v, %v", c, err)
	}
}
