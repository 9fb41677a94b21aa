package witness_test

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// downKey is an Ed25519 crypto.Signer that cannot sign (a token that is
// gone).
type downKey struct{ ed25519.PrivateKey }

func (downKey) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("the token is gone")
}

// AddCheckpoint refuses, each for its reason: a recorded state of another
// log; a checkpoint of size 0 whose root is not the empty tree's
// (ErrBadCheckpoint); a recorded tree of size 0 with another root
// (ErrFork); and a witness key that cannot sign (ErrKeyUnavailable). The
// controls cosign the empty tree on first use, then the next tree from
// the recorded empty one.
func TestAddCheckpointRefuses(t *testing.T) {
	k := testKeys(t)
	dir, l := makeLog(t, k)
	cp0 := readCP(t, dir)
	if _, err := l.Add(ctx(t), k.logSigner, []byte("a")); err != nil {
		t.Fatal(err)
	}
	cp1 := readCP(t, dir)
	empty := signednote.Hash(rfc6962.DefaultHasher.EmptyRoot())
	notEmpty := signednote.Hash(bytes.Repeat([]byte{7}, 32))
	forged, err := note.Sign(&note.Note{Text: testOrigin + "\n0\n" + notEmpty.String() + "\n"}, k.logSigner)
	if err != nil {
		t.Fatal(err)
	}
	down, err := signednote.NewWitnessSigner("example.org/witness", downKey{ed25519.NewKeyFromSeed(testOnlyWitnessSeed)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		req  *witness.AddRequest
		w    *signednote.WitnessSigner
		prev *witness.LogState
		is   error
		msg  string
	}{
		{"state of another log", &witness.AddRequest{Checkpoint: cp0}, k.w, &witness.LogState{Origin: "example.org/other", Hash: empty}, nil, `not a state of log "` + testOrigin + `"`},
		{"size 0, another root", &witness.AddRequest{Checkpoint: forged}, k.w, nil, witness.ErrBadCheckpoint, "not the empty tree's"},
		{"recorded size 0, another root", &witness.AddRequest{Checkpoint: cp1}, k.w, &witness.LogState{Origin: testOrigin, Hash: notEmpty}, witness.ErrFork, "the recorded tree of size 0"},
		{"key cannot sign", &witness.AddRequest{Checkpoint: cp0}, down, nil, witness.ErrKeyUnavailable, "the token is gone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := witness.AddCheckpoint(c.req, k.logKey, c.w, c.prev, testNow)
			if err == nil || got != nil || !strings.Contains(err.Error(), c.msg) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Errorf("%v, %v; want %v containing %q", got, err, c.is, c.msg)
			}
		})
	}
	c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp0}, k.logKey, k.w, nil, testNow)
	if err != nil || c.State.Size != 0 || c.State.Hash != empty {
		t.Fatalf("control, the empty tree: %+v, %v", c, err)
	}
	c, err = witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp1}, k.logKey, k.w, &witness.LogState{Origin: testOrigin, Hash: empty}, testNow)
	if err != nil || c.State.Size != 1 {
		t.Fatalf("control, from the recorded empty tree: %+v, %v", c, err)
	}
}

// CosignCheckpointWithState refuses when the state cannot be locked (a
// directory where its lock file goes) or read (a directory where it
// goes), and when it cannot record the new state (*StateWriteError:
// nothing cosigned); a state file's Path names it, and Read and Write
// after Unlock fail.
func TestCosignWithStateRefuses(t *testing.T) {
	k := testKeys(t)
	dir, _ := makeLog(t, k, "a")
	st := t.TempDir()
	opts := witness.StateOptions{TrustOnFirstUse: true}

	path := filepath.Join(st, "lock-blocked.json")
	os.Mkdir(path+witness.StateLockSuffix, 0o755)
	if _, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dir), k.logKey, k.w, path, opts, testNow); err == nil || !strings.Contains(err.Error(), "locking the state") {
		t.Errorf("a state that cannot be locked: %v", err)
	}

	path = filepath.Join(st, "a-directory.json")
	os.Mkdir(path, 0o755)
	if _, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dir), k.logKey, k.w, path, opts, testNow); err == nil || !strings.Contains(err.Error(), "witness state") {
		t.Errorf("a directory as the state: %v", err)
	}

	// The state's folder is gone once the lock is taken: its lock file
	// stays open, the new state cannot be written.
	gone := filepath.Join(st, "gone")
	os.Mkdir(gone, 0o755)
	path = filepath.Join(gone, "state.json")
	sf, err := witness.LockStateFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Path() != path {
		t.Errorf("Path %q", sf.Path())
	}
	os.RemoveAll(gone)
	if err := sf.Write(&witness.State{}); err == nil {
		t.Error("Write into a folder that is gone")
	}
	sf.Unlock()
	if _, err := sf.Read(); err == nil {
		t.Error("Read after Unlock")
	}
	if err := sf.Write(&witness.State{}); err == nil {
		t.Error("Write after Unlock")
	}
	if err := sf.Unlock(); err != nil {
		t.Errorf("a second Unlock: %v", err)
	}

	// Control: a state that can be written records the cosigned tree.
	path = filepath.Join(st, "ok.json")
	c, err := witness.CosignCheckpointWithState(ctx(t), posix.New(dir), k.logKey, k.w, path, opts, testNow)
	if err != nil || c.State.Size != 1 {
		t.Fatalf("control: %+v, %v", c, err)
	}
	var we *witness.StateWriteError
	e := &witness.StateWriteError{Path: "p", Err: os.ErrPermission}
	if !errors.As(error(e), &we) || !errors.Is(e, os.ErrPermission) || !strings.Contains(e.Error(), "recording the state p") {
		t.Errorf("StateWriteError: %v", e)
	}
}

// State.Marshal refuses a size beyond the JSON safe integers.
func TestStateMarshalRefuses(t *testing.T) {
	s := &witness.State{}
	s.Put(witness.LogState{Origin: "o", Size: witness.MaxTreeSize + 1})
	if _, err := s.Marshal(); err == nil || !strings.Contains(err.Error(), "beyond the JSON safe integers") {
		t.Errorf("a size beyond the safe integers: %v", err)
	}
	s.Put(witness.LogState{Origin: "o", Size: witness.MaxTreeSize})
	if _, err := s.Marshal(); err != nil {
		t.Errorf("control, MaxTreeSize: %v", err)
	}
}

// Cosigners counts the cosignatures that verify, by key, once per key;
// a cosignature by a given key that does not verify refuses the note.
// FormatCosigners names them with their fingerprints.
func TestCosigners(t *testing.T) {
	k := testKeys(t)
	dir, l := makeLog(t, k, "a")
	c1 := mustCosign(t, k, dir, nil)
	cp, err := l.Checkpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	signed := append(bytes.Clone(cp.Note), c1.Line...)
	cs, err := witness.Cosigners(signed, k.logKey, []*signednote.Verifier{k.wv, k.w2v})
	if err != nil || len(cs) != 1 || cs[0].Fingerprint != k.wv.Fingerprint() {
		t.Fatalf("control: %+v, %v", cs, err)
	}
	if s := witness.FormatCosigners(cs); s != "example.org/witness ("+k.wv.Fingerprint()+")" {
		t.Errorf("FormatCosigners: %s", s)
	}
	bad := append(bytes.Clone(cp.Note), flipLastBase64(t, c1.Line)...)
	if _, err := witness.Cosigners(bad, k.logKey, []*signednote.Verifier{k.wv}); err == nil {
		t.Error("a cosignature that does not verify was counted or ignored")
	}
	if cs, err := witness.Cosigners(bad, k.logKey, nil); err != nil || len(cs) != 0 {
		t.Errorf("a cosignature by a key not given: %+v, %v", cs, err)
	}
}
