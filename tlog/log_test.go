package tlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/posix/posixtest"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/witness"
	flog "github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/formats/proof"
	mproof "github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	"k8s.io/klog/v2"
)

// Fixed key seeds: test keys only, never used outside tests.
var (
	testOnlyLogSeed      = signednotetest.Seed(0x11)
	testOnlyOtherLogSeed = signednotetest.Seed(0x12)
	testOnlyWitness1Seed = signednotetest.Seed(0x21)
	testOnlyWitness2Seed = signednotetest.Seed(0x22)
)

const testOrigin = "example.org/mcpres-test-log"

// Fixed cosignature time, so that outputs are reproducible.
var testNow = time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	// Tessera logs through klog; keep test output readable. (The library
	// never does this itself: only a program's main path may.)
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

func newLog(t testing.TB, dir string, seed []byte) (*tlog.Log, *signednote.LogSigner) {
	t.Helper()
	s, v, _ := signednotetest.LogKey(t, seed, testOrigin)
	l := tlog.Open(posix.New(dir), v)
	if _, err := l.Init(context.Background(), s); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return l, s
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// variantBundle is the example bundle run in another environment: a
// different, valid bundle.
func variantBundle(t testing.TB) []byte {
	t.Helper()
	v := bundletest.Example(t)
	v.Path("evidence", "run", "environment").Get("os").Str = "freebsd"
	if err := bundle.SealFrom(v, bundle.StageEvidence); err != nil {
		t.Fatal(err)
	}
	return entryOf(t, v)
}

func exampleEntry(t testing.TB) []byte { return entryOf(t, bundletest.Example(t)) }

// entryOf validates a bundle and returns its log entry bytes.
func entryOf(t testing.TB, b *canonjson.Value) []byte {
	t.Helper()
	r, err := validator.New().Bundle(b)
	if err != nil || !r.Valid {
		t.Fatalf("bundle is not valid: %v %+v", err, r.Diagnostics)
	}
	e, err := offline.EntryFor(b).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkProofBytes verifies C2SP tlog-proof bytes independently of package
// tlog, with formats, x/mod's note and merkle: the entry, the index, the
// log signature (with the non-strict standard verifier, for interop) and
// the inclusion proof. It returns the opened checkpoint note.
func checkProofBytes(t testing.TB, data []byte, logVKey string, wantEntry []byte, wantIndex, wantSize uint64) *note.Note {
	t.Helper()
	var p proof.TLogProof
	if err := p.Unmarshal(data); err != nil {
		t.Fatalf("tlog-proof: %v", err)
	}
	if !bytes.Equal(p.Marshal(), data) {
		t.Fatalf("tlog-proof does not re-marshal to the same bytes")
	}
	if p.Index != wantIndex || !bytes.Equal(p.ExtraData, wantEntry) {
		t.Fatalf("proof index %d entry %q, want %d %q", p.Index, p.ExtraData, wantIndex, wantEntry)
	}
	v, err := note.NewVerifier(logVKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(p.Checkpoint, note.VerifierList(v))
	if err != nil {
		t.Fatalf("checkpoint note: %v", err)
	}
	cp, _, _, err := flogParseCheckpoint(p.Checkpoint, testOrigin, v)
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	if cp.Size != wantSize {
		t.Fatalf("checkpoint size %d, want %d", cp.Size, wantSize)
	}
	hashes := make([][]byte, len(p.Hashes))
	for i := range p.Hashes {
		hashes[i] = p.Hashes[i][:]
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(p.ExtraData)
	if err := mproof.VerifyInclusion(rfc6962.DefaultHasher, p.Index, cp.Size, leaf, hashes, cp.Hash); err != nil {
		t.Fatalf("inclusion proof: %v", err)
	}
	return n
}

// TestEndToEnd runs the whole chain on a real Tessera POSIX log: init, two
// bundles logged, proofs verified independently, two witnesses cosign, the
// cosignatures attached, a fresh proof carries both, the log grows and a
// witness follows it with a consistency proof.
func TestEndToEnd(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	s, lv, logVKey := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	l := tlog.Open(posix.New(dir), lv)
	cp0, err := l.Init(c, s)
	if err != nil {
		t.Fatal(err)
	}
	if cp0.Size != 0 || !bytes.Equal(cp0.Hash[:], rfc6962.DefaultHasher.EmptyRoot()) || cp0.Origin != testOrigin {
		t.Fatalf("initial checkpoint %d %x %q", cp0.Size, cp0.Hash, cp0.Origin)
	}
	for _, f := range []string{"checkpoint", ".state/treeState"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("log directory: %v", err)
		}
	}

	e1, e2 := exampleEntry(t), variantBundle(t)
	if bytes.Equal(e1, e2) {
		t.Fatal("the two bundles give the same entry")
	}
	p1, err := l.Add(c, s, e1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := l.Add(c, s, e2)
	if err != nil {
		t.Fatal(err)
	}
	if p1.EntryID() != "0" || p2.EntryID() != "1" {
		t.Fatalf("indices %s %s, want 0 1", p1.EntryID(), p2.EntryID())
	}
	checkProofBytes(t, p1.Marshal(), logVKey, e1, 0, 1)
	checkProofBytes(t, p2.Marshal(), logVKey, e2, 1, 2)
	if _, err := os.Stat(filepath.Join(dir, "tile/entries/000.p/2")); err != nil {
		t.Errorf("tlog-tiles layout: %v", err)
	}
	// A fresh proof of the first entry is against the latest checkpoint.
	fresh, err := l.Proof(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkProofBytes(t, fresh.Marshal(), logVKey, e1, 0, 2)

	// Two witnesses cosign (first use), through their state documents.
	w1, w1v, w1VKey := signednotetest.WitnessKey(t, testOnlyWitness1Seed, "example.org/witness-1")
	w2, w2v, w2VKey := signednotetest.WitnessKey(t, testOnlyWitness2Seed, "example.org/witness-2")
	states := map[string][]byte{}
	cosign := func(w *signednote.WitnessSigner) *witness.Cosignature {
		t.Helper()
		st := &witness.State{}
		if data, ok := states[w.Name()]; ok {
			if st, err = witness.ParseState(data); err != nil {
				t.Fatal(err)
			}
		}
		cs, err := witness.CosignCheckpoint(c, posix.New(dir), lv, w, st.Get(testOrigin), testNow)
		if err != nil {
			t.Fatalf("%s: CosignCheckpoint: %v", w.Name(), err)
		}
		st.Put(cs.State)
		if states[w.Name()], err = st.Marshal(); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	c1, c2 := cosign(w1), cosign(w2)
	if c1.From != nil || c1.State.Size != 2 || !strings.HasPrefix(string(c1.Line), "— example.org/witness-1 ") {
		t.Fatalf("cosignature 1: from %v, state %+v, line %q", c1.From, c1.State, c1.Line)
	}
	// formats' own cosignature/v1 verifier accepts our lines.
	fv1, err := fnote.NewVerifierForCosignatureV1(w1VKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(append([]byte(c1.Checkpoint.Text+"\n"), c1.Line...), note.VerifierList(fv1)); err != nil {
		t.Fatalf("formats rejects our cosignature: %v", err)
	}

	// Attach both, plus the first one again (dropped).
	ws := []*signednote.Verifier{w1v, w2v}
	var res *witness.AttachResult
	if _, err := l.UpdateCheckpoint(c, func(cp *signednote.Checkpoint) ([]byte, error) {
		res, err = witness.Attach(cp.Note, lv, ws, []witness.CosignatureInput{
			{Source: "w1", Data: c1.Line}, {Source: "w2", Data: c2.Line}, {Source: "w1-again", Data: c1.Line},
		})
		if err != nil {
			return nil, err
		}
		return res.Checkpoint, nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 2 || len(res.Dropped) != 1 || len(res.Cosigners) != 2 {
		t.Fatalf("attach: added %d, dropped %d, cosigners %d", len(res.Added), len(res.Dropped), len(res.Cosigners))
	}
	if res.Added[0].Time != uint64(testNow.Unix()) {
		t.Errorf("cosignature time %d, want %d", res.Added[0].Time, testNow.Unix())
	}

	// A fresh proof carries both cosignatures, which formats verifies.
	p, err := l.Proof(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := checkProofBytes(t, p.Marshal(), logVKey, e2, 1, 2)
	if len(n.Sigs) != 1 || len(n.UnverifiedSigs) != 2 {
		t.Fatalf("checkpoint signatures: %d verified (log), %d others; want 1 and 2", len(n.Sigs), len(n.UnverifiedSigs))
	}
	fv2, err := fnote.NewVerifierForCosignatureV1(w2VKey)
	if err != nil {
		t.Fatal(err)
	}
	lnv, _ := note.NewVerifier(logVKey)
	if n, err := note.Open(p.Checkpoint.Note, note.VerifierList(lnv, fv1, fv2)); err != nil || len(n.Sigs) != 3 {
		t.Fatalf("formats verifiers on the cosigned checkpoint: %v", err)
	}
	cs, err := witness.Cosigners(p.Checkpoint.Note, lv, ws)
	if err != nil || len(cs) != 2 || cs[0].Fingerprint != w1v.Fingerprint() || cs[1].Fingerprint != w2v.Fingerprint() {
		t.Fatalf("Cosigners = %+v, %v", cs, err)
	}

	// The log grows: the cosignatures go, and witness 1 follows with a
	// consistency proof from size 2.
	// Logging e1 again answers its entry; a third bundle is appended.
	again, err := l.Add(c, s, e1)
	if err != nil {
		t.Fatal(err)
	}
	if again.Index != 0 || !again.Existing || again.Checkpoint.Size != 2 {
		t.Fatalf("e1 again: index %d, existing %v, size %d; want 0, true, 2", again.Index, again.Existing, again.Checkpoint.Size)
	}
	p3, err := l.Add(c, s, []byte("a third entry"))
	if err != nil {
		t.Fatal(err)
	}
	if p3.Index != 2 || len(p3.Checkpoint.UnverifiedSigs) != 0 {
		t.Fatalf("third entry: index %d, %d cosignatures", p3.Index, len(p3.Checkpoint.UnverifiedSigs))
	}
	c3 := cosign(w1)
	if c3.From == nil || c3.From.Size != 2 || c3.State.Size != 3 || len(c3.ConsistencyProof) == 0 {
		t.Fatalf("follow-up cosignature: from %+v to %+v, proof of %d hashes", c3.From, c3.State, len(c3.ConsistencyProof))
	}
	if err := mproof.VerifyConsistency(rfc6962.DefaultHasher, 2, 3, c3.ConsistencyProof, c1.State.Hash[:], c3.State.Hash[:]); err != nil {
		t.Fatal(err)
	}
}

func flogParseCheckpoint(cp []byte, origin string, v note.Verifier) (*flog.Checkpoint, []byte, *note.Note, error) {
	return flog.ParseCheckpoint(cp, origin, v)
}

func TestLogErrors(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	other, otherV, _ := signednotetest.LogKey(t, testOnlyOtherLogSeed, testOrigin)
	named, _, _ := signednotetest.LogKey(t, testOnlyLogSeed, "example.org/another-origin")
	e := exampleEntry(t)

	t.Run("init twice", func(t *testing.T) {
		if _, err := l.Init(c, s); !errors.Is(err, tlog.ErrExists) {
			t.Errorf("Init on a log: %v, want ErrExists", err)
		}
	})
	t.Run("another key with the same name", func(t *testing.T) {
		if _, err := l.Add(c, other, e); !errors.Is(err, tlog.ErrWrongKey) {
			t.Errorf("Add with another key: %v, want ErrWrongKey", err)
		}
	})
	t.Run("another origin", func(t *testing.T) {
		if _, err := l.Add(c, named, e); !errors.Is(err, tlog.ErrWrongKey) || !strings.Contains(err.Error(), "another-origin") {
			t.Errorf("Add with another origin: %v, want ErrWrongKey naming it", err)
		}
	})
	t.Run("a log signed by another key", func(t *testing.T) {
		// The right key for the Log value, but the directory holds a log
		// of another key: nothing is appended.
		foreign := tlog.Open(posix.New(dir), otherV)
		if _, err := foreign.Add(c, other, e); err == nil || !strings.Contains(err.Error(), "not signed by the log key") {
			t.Errorf("Add to a foreign log: %v", err)
		}
		if _, err := foreign.Proof(c, 0); err == nil {
			t.Error("Proof from a foreign log succeeded")
		}
	})
	t.Run("no log", func(t *testing.T) {
		empty := tlog.Open(posix.New(filepath.Join(t.TempDir(), "none")), otherV)
		if _, err := empty.Add(c, other, e); !errors.Is(err, tlog.ErrNoLog) {
			t.Errorf("Add without a log: %v, want ErrNoLog", err)
		}
		if _, err := empty.Proof(c, 0); !errors.Is(err, tlog.ErrNoLog) {
			t.Errorf("Proof without a log: %v, want ErrNoLog", err)
		}
	})
	t.Run("entry sizes", func(t *testing.T) {
		if _, err := l.Add(c, s, nil); err == nil {
			t.Error("empty entry accepted")
		}
		if _, err := l.Add(c, s, make([]byte, tlog.MaxEntrySize+1)); err == nil || !strings.Contains(err.Error(), fmt.Sprint(tlog.MaxEntrySize+1)) {
			t.Errorf("oversized entry: %v", err)
		}
	})
	t.Run("index out of range", func(t *testing.T) {
		if _, err := l.Proof(c, 0); !errors.Is(err, tlog.ErrIndex) || !strings.Contains(err.Error(), "size 0") {
			t.Errorf("Proof(0) of an empty log: %v, want ErrIndex", err)
		}
	})
	t.Run("checkpoint changed meanwhile", func(t *testing.T) {
		// Another writer (a second Log value stands in for another
		// process) appends between the read and the replacement.
		_, lv, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
		l2 := tlog.Open(posix.New(dir), lv)
		before, err := l.Checkpoint(c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = l.UpdateCheckpoint(c, func(cp *signednote.Checkpoint) ([]byte, error) {
			if _, err := l2.Add(c, s, e); err != nil {
				t.Fatal(err)
			}
			return cp.Note, nil
		})
		if !errors.Is(err, tlog.ErrCheckpointChanged) {
			t.Errorf("UpdateCheckpoint after a concurrent append: %v, want ErrCheckpointChanged", err)
		}
		after, err := l.Checkpoint(c)
		if err != nil || after.Size != before.Size+1 {
			t.Errorf("checkpoint after: %v, %v", after, err)
		}
	})
	t.Run("update must keep the body", func(t *testing.T) {
		_, err := l.UpdateCheckpoint(c, func(cp *signednote.Checkpoint) ([]byte, error) {
			n, err := note.Sign(&note.Note{Text: cp.Text + "extension line\n"}, s)
			return n, err
		})
		if err == nil || !strings.Contains(err.Error(), "another body") {
			t.Errorf("UpdateCheckpoint changing the body: %v", err)
		}
	})
}

// TestProofRejectsCorruptTile: a tile altered on disk gives an error, not a
// proof that does not verify.
func TestProofRejectsCorruptTile(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	for _, e := range [][]byte{exampleEntry(t), variantBundle(t)} {
		if _, err := l.Add(c, s, e); err != nil {
			t.Fatal(err)
		}
	}
	tile := filepath.Join(dir, "tile/0/000.p/2")
	data, err := os.ReadFile(tile)
	if err != nil || len(data) != 64 {
		t.Fatalf("tile: %d bytes, %v", len(data), err)
	}
	data[40] ^= 1 // the second leaf hash, the sibling in the proof of entry 0
	if err := os.WriteFile(tile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Proof(c, 0); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("Proof with a corrupt tile: %v", err)
	}
}

// bulkAppend appends entries directly through Tessera, in large batches,
// to build logs bigger than one tile quickly.
func bulkAppend(t testing.TB, dir string, s note.Signer, entries [][]byte) {
	t.Helper()
	posixtest.BulkAppend(t, ctx(t), dir, s, entries)
}

func numbered(from, to int) [][]byte {
	var es [][]byte
	for i := from; i < to; i++ {
		es = append(es, fmt.Appendf(nil, "entry %d", i))
	}
	return es
}

// TestProofsAcrossTiles checks proofs at tile boundaries of a log of 600
// entries (three level-0 tiles, a partial level-1 tile), and a witness
// following it across them.
func TestProofsAcrossTiles(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	_, lv, logVKey := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	w, _, _ := signednotetest.WitnessKey(t, testOnlyWitness1Seed, "example.org/witness-1")
	var prev *witness.LogState
	for _, size := range []int{5, 300, 600} {
		from := 0
		if prev != nil {
			from = int(prev.Size)
		}
		bulkAppend(t, dir, s, numbered(from, size))
		cs, err := witness.CosignCheckpoint(c, posix.New(dir), lv, w, prev, testNow)
		if err != nil {
			t.Fatalf("cosign at %d: %v", size, err)
		}
		if cs.State.Size != uint64(size) {
			t.Fatalf("cosigned size %d, want %d", cs.State.Size, size)
		}
		prev = &cs.State
	}
	for _, i := range []uint64{0, 1, 255, 256, 299, 511, 512, 599} {
		p, err := l.Proof(c, i)
		if err != nil {
			t.Fatalf("Proof(%d): %v", i, err)
		}
		checkProofBytes(t, p.Marshal(), logVKey, fmt.Appendf(nil, "entry %d", i), i, 600)
	}
	if _, err := l.Proof(c, 600); !errors.Is(err, tlog.ErrIndex) {
		t.Errorf("Proof(600): %v", err)
	}
}
