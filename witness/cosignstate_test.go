package witness_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
)

// TestCosignCheckpointWithState: a log the state does not know is cosigned only on
// trust on first use, and the tree cosigned is recorded before the
// cosignature is returned; a later run follows the recorded tree, and
// refuses a fork without changing the state; a state whose lock another
// holder keeps is never read.
func TestCosignCheckpointWithState(t *testing.T) {
	k := testKeys(t)
	dirA, _ := makeLog(t, k, "a", "b")
	state := filepath.Join(t.TempDir(), "state.json")
	opts := witness.StateOptions{}
	read := func() []byte {
		t.Helper()
		data, err := os.ReadFile(state)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return data
	}

	if _, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dirA), k.logKey, k.w, state, opts, testNow); !errors.Is(err, witness.ErrUnknownLog) || read() != nil {
		t.Fatalf("no state, no trust on first use: %v", err)
	}
	opts.TrustOnFirstUse = true
	c, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dirA), k.logKey, k.w, state, opts, testNow)
	if err != nil || c.From != nil || c.State.Size != 2 {
		t.Fatalf("trust on first use: %+v, %v", c, err)
	}
	s, err := witness.ParseState(read())
	if err != nil || s.Get(testOrigin) == nil || s.Get(testOrigin).Size != 2 {
		t.Fatalf("the state recorded: %v %v", s, err)
	}

	// Recorded: the next run is checked against size 2, with or without
	// trust on first use (it never overrides a record).
	dirA3, _ := makeLog(t, k, "a", "b", "c")
	opts.TrustOnFirstUse = false
	c, err = witness.CosignCheckpointWithState(ctx(t), posix.New(dirA3), k.logKey, k.w, state, opts, testNow)
	if err != nil || c.From == nil || c.From.Size != 2 || c.State.Size != 3 {
		t.Fatalf("a consistent extension: %+v, %v", c, err)
	}
	before := read()
	dirFork, _ := makeLog(t, k, "a", "x", "c")
	opts.TrustOnFirstUse = true
	if _, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dirFork), k.logKey, k.w, state, opts, testNow); !errors.Is(err, witness.ErrFork) || !bytes.Equal(read(), before) {
		t.Fatalf("a fork: %v (the state changed: %v)", err, !bytes.Equal(read(), before))
	}

	// A state that knows other logs only: this log is unknown.
	other := filepath.Join(t.TempDir(), "other.json")
	st := &witness.State{}
	st.Put(witness.LogState{Origin: "example.org/another-log", Size: 1, Hash: signednote.Hash{}})
	data, _ := st.Marshal()
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dirA), k.logKey, k.w, other, witness.StateOptions{}, testNow); !errors.Is(err, witness.ErrUnknownLog) {
		t.Fatalf("a state without this log: %v", err)
	}

	// Locked by another holder: nothing is read or written.
	sf, err := witness.LockStateFile(state, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Unlock()
	if _, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dirA3), k.logKey, k.w, state, witness.StateOptions{}, testNow); !errors.Is(err, witness.ErrStateLocked) || !bytes.Equal(read(), before) {
		t.Fatalf("a locked state: %v", err)
	}
}
