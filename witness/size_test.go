package witness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/witness"
	"golang.org/x/mod/sumdb/note"
)

// checkpointLog is a LogReader whose checkpoint is given and which has no
// tiles.
type checkpointLog []byte

func (c checkpointLog) ReadCheckpoint(context.Context) ([]byte, error) { return c, nil }
func (c checkpointLog) ReadTile(context.Context, uint64, uint64, uint8) ([]byte, error) {
	return nil, fs.ErrNotExist
}

// signedCheckpoint is a checkpoint of the test log at size n, signed by
// its key (any root: nothing here needs a real tree).
func signedCheckpoint(t testing.TB, k keys, n uint64) []byte {
	t.Helper()
	cp, err := note.Sign(&note.Note{Text: fmt.Sprintf("%s\n%d\n%s\n", testOrigin, n, b64(bytes.Repeat([]byte{5}, 32)))}, k.logSigner)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestTreeSizeLimit: a tree of MaxTreeSize (2^53−1) is cosigned and its
// state recorded; any larger size, up to 2^64−1, is refused before
// anything is signed (CosignCheckpoint: a refusal; the protocol: a malformed
// request, also when only the old size or the unverified size line is too
// large), never signed and then unrecordable.
func TestTreeSizeLimit(t *testing.T) {
	k := testKeys(t)
	const limit = uint64(witness.MaxTreeSize)
	if limit != 1<<53-1 {
		t.Fatalf("MaxTreeSize %d", limit)
	}
	for _, n := range []uint64{1, limit} {
		c, err := witness.CosignCheckpoint(ctx(t), checkpointLog(signedCheckpoint(t, k, n)), k.logKey, k.w, nil, testNow)
		if err != nil {
			t.Fatalf("CosignCheckpoint at size %d: %v", n, err)
		}
		st := &witness.State{}
		st.Put(c.State)
		if _, err := st.Marshal(); err != nil {
			t.Fatalf("state at size %d: %v", n, err)
		}
		if _, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: signedCheckpoint(t, k, n)}, k.logKey, k.w, nil, testNow); err != nil {
			t.Fatalf("AddCheckpoint at size %d: %v", n, err)
		}
		body := (&witness.AddRequest{OldSize: n, Checkpoint: signedCheckpoint(t, k, n)}).Marshal()
		if _, err := witness.ParseAddRequest(body); err != nil {
			t.Fatalf("ParseAddRequest old %d, size %d: %v", n, n, err)
		}
	}
	for _, n := range []uint64{limit + 1, 1 << 62, 1<<63 - 1, 1 << 63, 1<<64 - 1} {
		cp := signedCheckpoint(t, k, n)
		c, err := witness.CosignCheckpoint(ctx(t), checkpointLog(cp), k.logKey, k.w, nil, testNow)
		if c != nil || !errors.Is(err, witness.ErrBadCheckpoint) || !strings.Contains(err.Error(), "the largest a witness records") {
			t.Errorf("CosignCheckpoint at size %d: %v, %v; want a refusal naming the limit", n, c, err)
		}
		c, err = witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp}, k.logKey, k.w, nil, testNow)
		if c != nil || !errors.Is(err, witness.ErrMalformedRequest) || !strings.Contains(err.Error(), "the largest a witness records") {
			t.Errorf("AddCheckpoint at size %d: %v, %v; want ErrMalformedRequest naming the limit", n, c, err)
		}
		if r, err := witness.ParseAddRequest((&witness.AddRequest{Checkpoint: cp}).Marshal()); r != nil || !errors.Is(err, witness.ErrMalformedRequest) || !strings.Contains(err.Error(), "checkpoint size") {
			t.Errorf("ParseAddRequest, checkpoint size %d: %v, %v; want ErrMalformedRequest", n, r, err)
		}
		old := (&witness.AddRequest{OldSize: n, Checkpoint: signedCheckpoint(t, k, 1)}).Marshal()
		if r, err := witness.ParseAddRequest(old); r != nil || !errors.Is(err, witness.ErrMalformedRequest) || !strings.Contains(err.Error(), "old size") {
			t.Errorf("ParseAddRequest, old size %d: %v, %v; want ErrMalformedRequest", n, r, err)
		}
	}
}
