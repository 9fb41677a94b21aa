package witness_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	"k8s.io/klog/v2"
)

// Fixed key seeds: test keys only.
var (
	testOnlyLogSeed      = signednotetest.Seed(0x31)
	testOnlyOtherLogSeed = signednotetest.Seed(0x32)
	testOnlyWitnessSeed  = signednotetest.Seed(0x41)
	testOnlyWitness2Seed = signednotetest.Seed(0x42)
)

const testOrigin = "example.org/witness-test-log"

var testNow = time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // Tessera's logging, in tests only
	os.Exit(m.Run())
}

type keys struct {
	logSigner *signednote.LogSigner
	logKey    *signednote.Verifier
	w         *signednote.WitnessSigner
	wv        *signednote.Verifier
	w2        *signednote.WitnessSigner
	w2v       *signednote.Verifier
}

func testKeys(t testing.TB) keys {
	t.Helper()
	var k keys
	k.logSigner, k.logKey, _ = signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	k.w, k.wv, _ = signednotetest.WitnessKey(t, testOnlyWitnessSeed, "example.org/witness")
	k.w2, k.w2v, _ = signednotetest.WitnessKey(t, testOnlyWitness2Seed, "example.org/witness-2")
	return k
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// makeLog creates a POSIX log holding the given entries.
func makeLog(t testing.TB, k keys, entries ...string) (string, *tlog.Log) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "log")
	l := tlog.Open(posix.New(dir), k.logKey)
	if _, err := l.Init(ctx(t), k.logSigner); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := l.Add(ctx(t), k.logSigner, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, l
}

func cosign(t testing.TB, k keys, dir string, prev *witness.LogState) (*witness.Cosignature, error) {
	t.Helper()
	return witness.CosignCheckpoint(ctx(t), posix.New(dir), k.logKey, k.w, prev, testNow)
}

func mustCosign(t testing.TB, k keys, dir string, prev *witness.LogState) *witness.Cosignature {
	t.Helper()
	c, err := cosign(t, k, dir, prev)
	if err != nil {
		t.Fatalf("CosignCheckpoint: %v", err)
	}
	return c
}

func TestCosignFollowsTheLog(t *testing.T) {
	k := testKeys(t)
	dir, l := makeLog(t, k)
	c0 := mustCosign(t, k, dir, nil) // the empty log, on first use
	if c0.State.Size != 0 || c0.From != nil {
		t.Fatalf("first cosignature: %+v", c0.State)
	}
	if _, err := l.Add(ctx(t), k.logSigner, []byte("a")); err != nil {
		t.Fatal(err)
	}
	c1 := mustCosign(t, k, dir, &c0.State) // from the empty tree
	if _, err := l.Add(ctx(t), k.logSigner, []byte("b")); err != nil {
		t.Fatal(err)
	}
	c2 := mustCosign(t, k, dir, &c1.State)
	if c2.State.Size != 2 || c2.From.Size != 1 || len(c2.ConsistencyProof) != 1 {
		t.Fatalf("cosignature 1→2: %+v from %+v, %d proof hashes", c2.State, c2.From, len(c2.ConsistencyProof))
	}
	again := mustCosign(t, k, dir, &c2.State) // same tree: cosigned again, no proof
	if again.State.Size != 2 || len(again.ConsistencyProof) != 0 {
		t.Fatalf("same tree: %+v, %d proof hashes", again.State, len(again.ConsistencyProof))
	}
	// The line is a cosignature/v1 signature with our timestamp, which
	// formats verifies and dates.
	fv, err := fnote.NewVerifierForCosignatureV1(k.wv.String())
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(append([]byte(c2.Checkpoint.Text+"\n"), c2.Line...), note.VerifierList(fv))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := fnote.CoSigV1Timestamp(n.Sigs[0])
	if err != nil || !ts.Equal(testNow) {
		t.Fatalf("timestamp %v, %v; want %v", ts, err, testNow)
	}
}

// TestCosignRefusals: each misbehaviour is refused with its own error and
// message, and the control case with the same setup succeeds.
func TestCosignRefusals(t *testing.T) {
	k := testKeys(t)
	dirA, _ := makeLog(t, k, "a", "b")
	state := mustCosign(t, k, dirA, nil).State // the witness saw A at size 2

	// Forks: other logs with the same key and origin but other entries.
	dirB1, _ := makeLog(t, k, "x")
	dirB2, _ := makeLog(t, k, "a", "x")
	dirB3, _ := makeLog(t, k, "a", "x", "c")
	dirA3, _ := makeLog(t, k, "a", "b", "c") // a consistent extension of A

	// A log signed by another key under the same name.
	otherSkey, _, _ := signednote.GenerateKey(bytes.NewReader(testOnlyOtherLogSeed), signednote.TypeEd25519, testOrigin)
	otherSigner, _ := signednote.ParseLogSigner(otherSkey)
	dirForeign := filepath.Join(t.TempDir(), "foreign")
	if _, err := tlog.Open(posix.New(dirForeign), otherSigner.Verifier()).Init(ctx(t), otherSigner); err != nil {
		t.Fatal(err)
	}
	// A's checkpoint with its root hash altered (the signature no longer
	// matches).
	dirTampered := copyLog(t, dirA)
	tamper(t, filepath.Join(dirTampered, "checkpoint"), func(cp string) string {
		lines := strings.SplitN(cp, "\n", 4)
		lines[2] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
		return strings.Join(lines, "\n")
	})

	tests := []struct {
		name string
		dir  string
		want error // nil: cosigned
		msg  string
	}{
		{"control: consistent extension", dirA3, nil, ""},
		{"control: the same tree", dirA, nil, ""},
		{"going backwards", dirB1, witness.ErrRollback, "checkpoint size 1 is smaller than the size 2"},
		{"fork at the same size", dirB2, witness.ErrFork, "at size 2 has root"},
		{"fork detected by the consistency proof", dirB3, witness.ErrFork, "is not an extension of the tree this witness cosigned at size 2"},
		{"checkpoint signed by another key", dirForeign, witness.ErrBadCheckpoint, "not signed by the log key"},
		{"checkpoint altered", dirTampered, witness.ErrBadCheckpoint, "invalid signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := state
			c, err := cosign(t, k, tt.dir, &prev)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CosignCheckpoint: %v", err)
				}
				return
			}
			if c != nil || !errors.Is(err, tt.want) || !errors.Is(err, witness.ErrRefused) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("CosignCheckpoint = %v, %v; want %v mentioning %q", c, err, tt.want, tt.msg)
			}
		})
	}
	t.Run("state of another log", func(t *testing.T) {
		prev := state
		prev.Origin = "example.org/other"
		if _, err := cosign(t, k, dirA, &prev); err == nil || errors.Is(err, witness.ErrRefused) {
			t.Errorf("CosignCheckpoint with another log's state: %v", err)
		}
	})
}

// TestCosignTiles: tiles are authenticated against the new checkpoint: a
// corrupt tile is an error reading the log (not a refusal: the witness
// decided nothing), and a full tile may stand in for a removed partial one.
func TestCosignTiles(t *testing.T) {
	k := testKeys(t)
	dir, _ := makeLog(t, k, "a", "b", "c")
	// What a witness recorded at size 1: the root is the leaf hash of "a".
	prev := witness.LogState{Origin: testOrigin, Size: 1, Hash: leafHash([]byte("a"))}
	mustCosign(t, k, dir, &prev) // control
	t.Run("corrupt tile", func(t *testing.T) {
		d := copyLog(t, dir)
		tile := filepath.Join(d, "tile/0/000.p/3")
		data, err := os.ReadFile(tile)
		if err != nil {
			t.Fatal(err)
		}
		data[70] ^= 1
		os.WriteFile(tile, data, 0o644)
		p := prev
		_, err = cosign(t, k, d, &p)
		if err == nil || errors.Is(err, witness.ErrRefused) || !strings.Contains(err.Error(), "consistency proof") {
			t.Errorf("CosignCheckpoint with a corrupt tile: %v", err)
		}
	})
	t.Run("full tile for a partial one", func(t *testing.T) {
		d := copyLog(t, dir)
		tile := filepath.Join(d, "tile/0/000.p/3")
		data, err := os.ReadFile(tile)
		if err != nil {
			t.Fatal(err)
		}
		full := append(data, bytes.Repeat([]byte{7}, 253*32)...)
		os.Remove(tile)
		os.WriteFile(filepath.Join(d, "tile/0/000"), full, 0o644)
		p := prev
		if _, err := cosign(t, k, d, &p); err != nil {
			t.Errorf("CosignCheckpoint with a full tile: %v", err)
		}
	})
	t.Run("short tile", func(t *testing.T) {
		d := copyLog(t, dir)
		tile := filepath.Join(d, "tile/0/000.p/3")
		os.WriteFile(tile, make([]byte, 64), 0o644)
		p := prev
		if _, err := cosign(t, k, d, &p); err == nil || !strings.Contains(err.Error(), "is 64 bytes, want 96") {
			t.Errorf("CosignCheckpoint with a short tile: %v", err)
		}
	})
}

func TestAttach(t *testing.T) {
	k := testKeys(t)
	dir, l := makeLog(t, k, "a")
	c1 := mustCosign(t, k, dir, nil)
	c2, err := witness.CosignCheckpoint(ctx(t), posix.New(dir), k.logKey, k.w2, nil, testNow)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := l.Checkpoint(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	ws := []*signednote.Verifier{k.wv, k.w2v}
	in := func(lines ...[]byte) []witness.CosignatureInput {
		var out []witness.CosignatureInput
		for i, l := range lines {
			out = append(out, witness.CosignatureInput{Source: fmt.Sprintf("cosig%d", i+1), Data: l})
		}
		return out
	}
	t.Run("both, in one file", func(t *testing.T) {
		res, err := witness.Attach(cp.Note, k.logKey, ws, in(append(bytes.Clone(c1.Line), c2.Line...)))
		if err != nil || len(res.Added) != 2 || len(res.Cosigners) != 2 {
			t.Fatalf("Attach: %+v, %v", res, err)
		}
		if !bytes.HasPrefix(res.Checkpoint, cp.Note) || !bytes.HasSuffix(res.Checkpoint, c2.Line) {
			t.Errorf("the note's bytes are not kept, with the lines appended")
		}
		// Attaching again changes nothing: both are dropped.
		again, err := witness.Attach(res.Checkpoint, k.logKey, ws, in(c2.Line, c1.Line))
		if err != nil || len(again.Added) != 0 || len(again.Dropped) != 2 || !bytes.Equal(again.Checkpoint, res.Checkpoint) {
			t.Fatalf("Attach again: %+v, %v", again, err)
		}
	})
	t.Run("one key under two names counts once", func(t *testing.T) {
		// The same Ed25519 key as witness 1, under another name.
		skey, vkey, _ := signednote.GenerateKey(bytes.NewReader(testOnlyWitnessSeed), signednote.TypeCosignatureV1, "example.org/alias")
		alias, _ := signednote.ParseWitnessSigner(skey)
		aliasV, _ := signednote.ParseWitnessVerifier(vkey)
		ca, err := witness.CosignCheckpoint(ctx(t), posix.New(dir), k.logKey, alias, nil, testNow)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := witness.Attach(cp.Note, k.logKey, []*signednote.Verifier{k.wv, aliasV}, in(c1.Line, ca.Line)); !errors.Is(err, witness.ErrDuplicateWitnessKey) {
			t.Errorf("Attach with one key under two names: %v, want ErrDuplicateWitnessKey", err)
		}
	})
	errCases := []struct {
		name  string
		cp    []byte
		ws    []*signednote.Verifier
		lines [][]byte
		want  error
		msg   string
	}{
		{"unknown witness", cp.Note, ws[:1], [][]byte{c2.Line}, witness.ErrUnknownWitness, `cosig1: witness: cosignature by a key that was not given: "example.org/witness-2"`},
		{"cosignature of another checkpoint", cp.Note, ws, [][]byte{flipLastBase64(t, c1.Line)}, witness.ErrBadCosignature, "does not verify against the checkpoint of"},
		{"not a signature line", cp.Note, ws, [][]byte{[]byte("hello\n")}, nil, "line 1 is not a signature line"},
		{"no final newline", cp.Note, ws, [][]byte{bytes.TrimSuffix(c1.Line, []byte("\n"))}, nil, "must end with a newline"},
		{"empty file", cp.Note, ws, [][]byte{nil}, nil, "empty cosignature file"},
		{"a file over the note limit", cp.Note, ws, [][]byte{[]byte("— " + strings.Repeat("A", signednote.MaxBytes) + "\n")}, nil, fmt.Sprintf("bytes, more than %d", signednote.MaxBytes)},
		{"a line that is no signature", cp.Note, ws, [][]byte{[]byte("— example.org/witness-1 not base64!\n")}, nil, "malformed cosignature line"},
		{"checkpoint of another key", resign(t, cp.Note), ws, [][]byte{c1.Line}, nil, "not signed by the log key"},
	}
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := witness.Attach(tt.cp, k.logKey, tt.ws, in(tt.lines...))
			if res != nil || err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Attach = %v, %v; want %v with %q", res, err, tt.want, tt.msg)
			}
		})
	}
	t.Run("a cosignature by a listed key that does not verify is not kept", func(t *testing.T) {
		bad := append(bytes.Clone(cp.Note), flipLastBase64(t, c1.Line)...)
		if _, err := witness.Attach(bad, k.logKey, ws, in(c2.Line)); err == nil || !strings.Contains(err.Error(), "invalid signature") {
			t.Errorf("Attach to a checkpoint with a bad cosignature: %v", err)
		}
	})
}

func TestState(t *testing.T) {
	h := leafHash([]byte("a"))
	s := &witness.State{}
	s.Put(witness.LogState{Origin: "b.example/log", Size: 2, Hash: h})
	s.Put(witness.LogState{Origin: "a.example/log", Size: 1, Hash: h})
	s.Put(witness.LogState{Origin: "b.example/log", Size: 3, Hash: h})
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "schemaVersion": "mcpres.witness-state/v1",
  "logs": [
    {
      "origin": "a.example/log",
      "size": 1,
      "rootHash": "` + h.String() + `"
    },
    {
      "origin": "b.example/log",
      "size": 3,
      "rootHash": "` + h.String() + `"
    }
  ]
}
`
	if string(data) != want {
		t.Fatalf("Marshal:\n%s\nwant\n%s", data, want)
	}
	back, err := witness.ParseState(data)
	if err != nil || len(back.Logs) != 2 || back.Get("b.example/log").Size != 3 || back.Get("c") != nil {
		t.Fatalf("ParseState: %+v, %v", back, err)
	}
	empty, err := (&witness.State{}).Marshal()
	if err != nil || !strings.Contains(string(empty), `"logs": []`) {
		t.Fatalf("empty state: %s, %v", empty, err)
	}
	bad := []struct{ name, doc, msg string }{
		{"schema", `{"schemaVersion":"x","logs":[]}`, `schemaVersion is "x"`},
		{"missing logs", `{"schemaVersion":"mcpres.witness-state/v1"}`, `"logs" is missing`},
		{"unknown member", `{"schemaVersion":"mcpres.witness-state/v1","logs":[],"x":1}`, `unknown member "x"`},
		{"duplicate key", `{"schemaVersion":"mcpres.witness-state/v1","logs":[],"logs":[]}`, "duplicate key"},
		{"missing size", `{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"o","rootHash":"` + h.String() + `"}]}`, `"size" is missing`},
		{"negative size", `{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"o","size":-1,"rootHash":"` + h.String() + `"}]}`, "negative"},
		{"short hash", `{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"o","size":1,"rootHash":"AAAA"}]}`, "rootHash"},
		{"origin twice", `{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"o","size":1,"rootHash":"` + h.String() + `"},{"origin":"o","size":2,"rootHash":"` + h.String() + `"}]}`, "listed twice"},
		{"empty origin", `{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"","size":1,"rootHash":"` + h.String() + `"}]}`, "/logs/0: origin is empty or has a newline"},
		{"origin with a newline", `{"schemaVersion":"mcpres.witness-state/v1","logs":[{"origin":"o\nx","size":1,"rootHash":"` + h.String() + `"}]}`, "/logs/0: origin is empty or has a newline"},
		{"too many logs", `{"schemaVersion":"mcpres.witness-state/v1","logs":[` + strings.TrimSuffix(strings.Repeat(`{"origin":"o","size":1,"rootHash":"`+h.String()+`"},`, witness.MaxStateLogs+1), ",") + `]}`, "1025 logs, more than 1024"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := witness.ParseState([]byte(tt.doc)); s != nil || err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ParseState = %v, %v; want %q", s, err, tt.msg)
			}
		})
	}
}

func b64(h []byte) string { return base64.StdEncoding.EncodeToString(h) }

func leafHash(data []byte) signednote.Hash {
	return signednote.Hash(rfc6962.DefaultHasher.HashLeaf(data))
}

// copyLog copies a log directory (files only, without Tessera's locks).
func copyLog(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func tamper(t testing.TB, path string, f func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(f(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// flipLastBase64 changes the signature bytes of a signature line, keeping
// it well formed.
func flipLastBase64(t testing.TB, line []byte) []byte {
	t.Helper()
	s := strings.TrimSuffix(string(line), "\n")
	i := strings.LastIndex(s, " ")
	raw, err := base64.StdEncoding.DecodeString(s[i+1:])
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-10] ^= 1
	return []byte(s[:i+1] + base64.StdEncoding.EncodeToString(raw) + "\n")
}

// resign returns the checkpoint text signed by another key of the same
// name.
func resign(t testing.TB, cp []byte) []byte {
	t.Helper()
	_, err := note.Open(cp, note.VerifierList())
	var unv *note.UnverifiedNoteError
	if !errors.As(err, &unv) {
		t.Fatal(err)
	}
	skey, _, _ := signednote.GenerateKey(bytes.NewReader(testOnlyOtherLogSeed), signednote.TypeEd25519, testOrigin)
	s, _ := signednote.ParseLogSigner(skey)
	out, err := note.Sign(&note.Note{Text: unv.Note.Text}, s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
