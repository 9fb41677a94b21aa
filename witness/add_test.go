package witness_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/tessera/client"
)

// consistency builds the proof from size from to the log's current size.
func consistency(t testing.TB, dir string, from, to uint64) [][]byte {
	t.Helper()
	pb, err := client.NewProofBuilder(ctx(t), to, posix.New(dir).ReadTile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pb.ConsistencyProof(ctx(t), from, to)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readCP(t testing.TB, dir string) []byte {
	t.Helper()
	cp, err := posix.New(dir).ReadCheckpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestParseAddRequest(t *testing.T) {
	h := b64(bytes.Repeat([]byte{7}, 32))
	good := "old 3\n" + h + "\n" + h + "\n\nexample.org/log\n5\n" + h + "\n\n— example.org/log AAAA\n"
	r, err := witness.ParseAddRequest([]byte(good))
	if err != nil || r.OldSize != 3 || len(r.Proof) != 2 || !strings.HasPrefix(string(r.Checkpoint), "example.org/log\n") {
		t.Fatalf("control: %+v, %v", r, err)
	}
	if string(r.Marshal()) != good {
		t.Fatalf("Marshal: %q", r.Marshal())
	}
	many := "old 3\n" + strings.Repeat(h+"\n", witness.MaxProofLines) + "\ncp\n"
	if _, err := witness.ParseAddRequest([]byte(many)); err != nil {
		t.Fatalf("63 proof lines (the limit): %v", err)
	}
	for name, body := range map[string]string{
		"empty":             "",
		"no newline":        "old 3",
		"not old":           "new 3\n\ncp\n",
		"leading zero":      "old 03\n\ncp\n",
		"negative":          "old -1\n\ncp\n",
		"too large":         "old 18446744073709551616\n\ncp\n",
		"space":             "old  3\n\ncp\n",
		"no blank line":     "old 3\n" + h + "\n",
		"no checkpoint":     "old 3\n\n",
		"short hash":        "old 3\n" + b64([]byte{1, 2, 3}) + "\n\ncp\n",
		"unpadded hash":     "old 3\n" + strings.TrimRight(h, "=") + "\n\ncp\n",
		"CR":                "old 3\r\n\ncp\n",
		"proof from 0":      "old 0\n" + h + "\n\ncp\n",
		"64 proof lines":    "old 3\n" + strings.Repeat(h+"\n", witness.MaxProofLines+1) + "\ncp\n",
		"body beyond limit": "old 3\n\n" + strings.Repeat("x", witness.MaxAddRequestBytes),
	} {
		if r, err := witness.ParseAddRequest([]byte(body)); !errors.Is(err, witness.ErrMalformedRequest) || r != nil {
			t.Errorf("%s: %v, %v; want ErrMalformedRequest", name, r, err)
		}
	}
}

// TestAddCheckpoint: each protocol answer fires for its own reason, and the
// same log and state with a correct request is cosigned.
func TestAddCheckpoint(t *testing.T) {
	k := testKeys(t)
	dir, l := makeLog(t, k, "a", "b")
	cp2 := readCP(t, dir)
	// First use: old 0.
	c, err := witness.AddCheckpoint(&witness.AddRequest{OldSize: 0, Checkpoint: cp2}, k.logKey, k.w, nil, testNow)
	if err != nil || c.State.Size != 2 || c.From != nil {
		t.Fatalf("first use: %+v, %v", c, err)
	}
	st2 := c.State
	for _, e := range []string{"c", "d", "e"} {
		if _, err := l.Add(ctx(t), k.logSigner, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	cp5 := readCP(t, dir)
	good := &witness.AddRequest{OldSize: 2, Proof: consistency(t, dir, 2, 5), Checkpoint: cp5}
	c, err = witness.AddCheckpoint(good, k.logKey, k.w, &st2, testNow)
	if err != nil || c.State.Size != 5 || c.From.Size != 2 {
		t.Fatalf("control 2→5: %+v, %v", c, err)
	}
	st5 := c.State
	// The same tree again: old 5, no proof.
	if _, err := witness.AddCheckpoint(&witness.AddRequest{OldSize: 5, Checkpoint: cp5}, k.logKey, k.w, &st5, testNow); err != nil {
		t.Fatalf("same tree again: %v", err)
	}
	badProof := consistency(t, dir, 2, 5)
	badProof[0] = bytes.Repeat([]byte{9}, 32)
	forked := st2
	forked.Hash = signednote.Hash(bytes.Repeat([]byte{1}, 32))
	other, _ := makeLog(t, k, "x", "y")
	for _, tc := range []struct {
		name     string
		req      *witness.AddRequest
		prev     *witness.LogState
		want     error
		conflict int64 // the size a ConflictError carries, -1 for none
	}{
		{"old size not the recorded one", &witness.AddRequest{OldSize: 3, Proof: consistency(t, dir, 3, 5), Checkpoint: cp5}, &st2, witness.ErrRefused, 2},
		{"old 0 but a recorded state", &witness.AddRequest{OldSize: 0, Checkpoint: cp5}, &st2, witness.ErrRefused, 2},
		{"rollback: checkpoint smaller than old", &witness.AddRequest{OldSize: 5, Checkpoint: cp2}, &st5, witness.ErrMalformedRequest, -1},
		{"rollback with old 2 against state 5", &witness.AddRequest{OldSize: 2, Checkpoint: cp2}, &st5, witness.ErrRefused, 5},
		{"bad proof", &witness.AddRequest{OldSize: 2, Proof: badProof, Checkpoint: cp5}, &st2, witness.ErrBadProof, -1},
		{"missing proof", &witness.AddRequest{OldSize: 2, Checkpoint: cp5}, &st2, witness.ErrBadProof, -1},
		{"recorded tree forked", &witness.AddRequest{OldSize: 2, Proof: consistency(t, dir, 2, 5), Checkpoint: cp5}, &forked, witness.ErrBadProof, -1},
		{"same size, other root", &witness.AddRequest{OldSize: 2, Checkpoint: readCP(t, other)}, &st2, witness.ErrFork, 2},
		{"signed by another key", &witness.AddRequest{OldSize: 2, Proof: consistency(t, dir, 2, 5), Checkpoint: resign(t, cp5)}, &st2, witness.ErrBadCheckpoint, -1},
		{"malformed note", &witness.AddRequest{OldSize: 2, Checkpoint: []byte("example.org/witness-test-log\n")}, &st2, witness.ErrMalformedRequest, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := witness.AddCheckpoint(tc.req, k.logKey, k.w, tc.prev, testNow)
			if !errors.Is(err, tc.want) || c != nil {
				t.Fatalf("got %v, %v; want %v", c, err, tc.want)
			}
			var ce *witness.ConflictError
			if errors.As(err, &ce) != (tc.conflict >= 0) || (ce != nil && int64(ce.Size) != tc.conflict) {
				t.Fatalf("conflict: %+v, want size %d", ce, tc.conflict)
			}
		})
	}
}
