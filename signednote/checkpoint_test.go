package signednote_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

var (
	testOnlyCheckpointLogSeed     = bytes.Repeat([]byte{0x61}, 32)
	testOnlyCheckpointWitnessSeed = bytes.Repeat([]byte{0x62}, 32)
)

const origin = "example.org/log"

var testTime = time.Unix(1_700_000_000, 0)

const root = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" // SHA-256("")

func TestOpen(t *testing.T) {
	skey, vkey, _ := signednote.GenerateKey(bytes.NewReader(testOnlyCheckpointLogSeed), signednote.TypeEd25519, origin)
	s, _ := signednote.ParseLogSigner(skey)
	v, _ := signednote.ParseLogVerifier(vkey)
	wskey, wvkey, _ := signednote.GenerateKey(bytes.NewReader(testOnlyCheckpointWitnessSeed), signednote.TypeCosignatureV1, "example.org/w")
	w, _ := signednote.ParseWitnessSigner(wskey)
	wv, _ := signednote.ParseWitnessVerifier(wvkey)
	sign := func(text string, signers ...note.Signer) []byte {
		n, err := note.Sign(&note.Note{Text: text}, signers...)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	good := origin + "\n0\n" + root + "\n"
	cp, err := signednote.Open(sign(good, s), v)
	if err != nil || cp.Origin != origin || cp.Size != 0 || len(cp.Hash) != 32 || cp.Text != good {
		t.Fatalf("Open = %+v, %v", cp, err)
	}
	cosigned := sign(good, s, w.At(testTime))
	if cp, err := signednote.Open(cosigned, v); err != nil || len(cp.Sigs) != 1 || len(cp.UnverifiedSigs) != 1 {
		t.Fatalf("cosigned, witness key not given: %+v, %v", cp, err)
	}
	if cp, err := signednote.Open(cosigned, v, wv); err != nil || len(cp.Sigs) != 2 {
		t.Fatalf("cosigned, witness key given: %+v, %v", cp, err)
	}
	bad := []struct {
		name string
		note []byte
		msg  string
	}{
		{"size with a leading zero", sign(origin+"\n00\n"+root+"\n", s), "not in canonical form"},
		{"short hash", sign(origin+"\n0\nAAAA\n", s), "root hash is 3 bytes"},
		{"non-canonical base64", sign(origin+"\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV=\n", s), "not in canonical form"},
		{"another origin", sign("example.org/other\n0\n"+root+"\n", s), `origin is "example.org/other"`},
		{"unsigned by the log", sign(good, w.At(testTime)), "not signed by the log key example.org/log+"},
		{"too big", append(sign(good, s), make([]byte, signednote.MaxBytes)...), "more than 65536"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if cp, err := signednote.Open(tt.note, v); cp != nil || err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Open = %v, %v; want %q", cp, err, tt.msg)
			}
		})
	}
	// A tampered signature is note.InvalidSignatureError, reachable with
	// errors.As through the wrapping.
	tampered := bytes.Clone(sign(good, s))
	tampered[len(tampered)-5] ^= 1
	_, err = signednote.Open(tampered, v)
	var inv *note.InvalidSignatureError
	if !errors.As(err, &inv) {
		t.Errorf("tampered signature: %v, want note.InvalidSignatureError", err)
	}
}

// TestParseHash: one hash, one encoding: the canonical padded base64 of
// 32 bytes, which String gives back.
func TestParseHash(t *testing.T) {
	h, err := signednote.ParseHash(root)
	if err != nil || h.String() != root || h[0] != 0xe3 || h[31] != 0x55 {
		t.Fatalf("ParseHash(%q) = %v, %v", root, h, err)
	}
	for _, bad := range []struct{ name, s string }{
		{"31 bytes", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuA=="},
		{"33 bytes", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFUA"},
		{"no padding", strings.TrimSuffix(root, "=")},
		{"non-zero unused bits", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV="},
		{"URL alphabet", strings.ReplaceAll(root, "+", "-")},
		{"trailing newline", root + "\n"},
		{"empty", ""},
	} {
		if h, err := signednote.ParseHash(bad.s); err == nil || h != (signednote.Hash{}) || !strings.Contains(err.Error(), "not the canonical base64 of 32 bytes") {
			t.Errorf("%s: ParseHash(%q) = %v, %v", bad.name, bad.s, h, err)
		}
	}
}

// testNotes returns the log and witness keys of TestOpenNote and
// TestVerifyLine, and a signer of notes.
func testNotes(t testing.TB) (s *signednote.LogSigner, v *signednote.Verifier, w *signednote.WitnessSigner, wv *signednote.Verifier, sign func(string, ...note.Signer) []byte) {
	skey, vkey, _ := signednote.GenerateKey(bytes.NewReader(testOnlyCheckpointLogSeed), signednote.TypeEd25519, origin)
	s, _ = signednote.ParseLogSigner(skey)
	v, _ = signednote.ParseLogVerifier(vkey)
	wskey, wvkey, _ := signednote.GenerateKey(bytes.NewReader(testOnlyCheckpointWitnessSeed), signednote.TypeCosignatureV1, "example.org/w")
	w, _ = signednote.ParseWitnessSigner(wskey)
	wv, _ = signednote.ParseWitnessVerifier(wvkey)
	sign = func(text string, signers ...note.Signer) []byte {
		n, err := note.Sign(&note.Note{Text: text}, signers...)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return s, v, w, wv, sign
}

// TestOpenNote: each outcome of OpenNote is its own error, which Open
// passes on (the one place that opens a note for offline, witness and
// tlog).
func TestOpenNote(t *testing.T) {
	s, v, w, wv, sign := testNotes(t)
	good := origin + "\n0\n" + root + "\n"
	key := fmt.Sprintf("%s+%08x", v.Name(), v.KeyHash())
	n, err := signednote.OpenNote(sign(good, s, w.At(testTime)), v, wv)
	if err != nil || n.Text != good || len(n.Sigs) != 2 || n.Sigs[0].Name != origin || n.Sigs[1].Name != "example.org/w" {
		t.Fatalf("OpenNote = %+v, %v", n, err)
	}
	// OpenNote does not read the text: a body Open refuses opens.
	if n, err := signednote.OpenNote(sign("not a checkpoint\n", s), v); err != nil || n == nil {
		t.Errorf("OpenNote(any text) = %v, %v", n, err)
	}

	var ns *signednote.NotSignedByLogError
	var unv *note.UnverifiedNoteError
	// No signature verifies at all: Err is sumdb/note's.
	_, err = signednote.OpenNote(sign(good, w.At(testTime)), v)
	if !errors.As(err, &ns) || ns.Key != key || !errors.As(err, &unv) || err.Error() != "checkpoint is not signed by the log key "+key+": note has no verifiable signatures" {
		t.Errorf("witness only, not given: %v", err)
	}
	// Another given key verified, the log's did not sign: no Err.
	_, err = signednote.OpenNote(sign(good, w.At(testTime)), v, wv)
	if !errors.As(err, &ns) || ns.Err != nil || errors.As(err, &unv) || err.Error() != "checkpoint is not signed by the log key "+key {
		t.Errorf("witness only, given: %v", err)
	}
	if _, err := signednote.Open(sign(good, w.At(testTime)), v, wv); !errors.As(err, &ns) || err.Error() != "checkpoint is not signed by the log key "+key {
		t.Errorf("Open, witness only, given: %v", err)
	}
	// A tampered cosignature by a given key: sumdb/note's error as it is.
	tampered := sign(good, s, w.At(testTime))
	tampered[len(tampered)-5] ^= 1
	_, err = signednote.OpenNote(tampered, v, wv)
	if inv, ok := err.(*note.InvalidSignatureError); !ok || inv.Name != "example.org/w" || errors.As(err, &ns) {
		t.Errorf("tampered cosignature: %T %v", err, err)
	}
	// The same note is fine when the witness key is not given: the line
	// is unverified, not invalid (control).
	if n, err := signednote.OpenNote(tampered, v); err != nil || len(n.UnverifiedSigs) != 1 {
		t.Errorf("tampered cosignature, key not given: %v, %v", n, err)
	}
	if _, err := signednote.OpenNote([]byte(good), v); err == nil || errors.As(err, &ns) || err.Error() != "malformed note" {
		t.Errorf("unsigned text: %v", err)
	}
}

// TestVerifyLine: a witness's cosignature line is checked against the
// checkpoint text, and each failure is told apart.
func TestVerifyLine(t *testing.T) {
	s, v, w, wv, sign := testNotes(t)
	good := origin + "\n0\n" + root + "\n"
	cp, err := signednote.Open(sign(good, s), v)
	if err != nil {
		t.Fatal(err)
	}
	line := func(text string, at time.Time) []byte {
		n := sign(text, w.At(at))
		return n[len(text)+1:]
	}
	l := line(good, testTime)
	sig, k, err := cp.VerifyLine(l, v, wv)
	if err != nil || k != wv || sig.Name != "example.org/w" || sig.Hash != wv.KeyHash() {
		t.Fatalf("VerifyLine = %+v, %v, %v", sig, k, err)
	}
	if ts, err := signednote.CosignatureTimestamp(sig); err != nil || ts != uint64(testTime.Unix()) {
		t.Errorf("timestamp %d, %v", ts, err)
	}
	var unk *note.UnknownVerifierError
	if _, k, err := cp.VerifyLine(l, v); !errors.As(err, &unk) || unk.Name != "example.org/w" || unk.KeyHash != wv.KeyHash() || k != nil {
		t.Errorf("key not given: %v, %v", k, err)
	}
	var inv *note.InvalidSignatureError
	other := line(origin+"\n1\n"+root+"\n", testTime)
	if _, _, err := cp.VerifyLine(other, wv); !errors.As(err, &inv) || inv.Name != "example.org/w" || errors.As(err, &unk) {
		t.Errorf("cosignature of another checkpoint: %v", err)
	}
	for _, bad := range []struct {
		name string
		line []byte
		msg  string
	}{
		{"two lines", append(bytes.Clone(l), l...), "not one signature line"},
		{"no newline", bytes.TrimSuffix(l, []byte("\n")), "not one signature line"},
		{"empty", nil, "not one signature line"},
		{"not a signature line", []byte("hello\n"), "malformed note"},
	} {
		if _, k, err := cp.VerifyLine(bad.line, wv); err == nil || k != nil || !strings.Contains(err.Error(), bad.msg) || errors.As(err, &unk) || errors.As(err, &inv) {
			t.Errorf("%s: %v, %v", bad.name, k, err)
		}
	}
}

// FuzzVerifyLine: whatever a witness answers, VerifyLine returns a key
// given and its signature, or an error and nothing.
func FuzzVerifyLine(f *testing.F) {
	s, v, w, wv, sign := testNotes(f)
	good := origin + "\n0\n" + root + "\n"
	n := sign(good, s, w.At(testTime))
	f.Add(n[len(good)+1:])
	f.Add([]byte("— example.org/w AAAAAQ==\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		cp, err := signednote.Open(n, v)
		if err != nil {
			t.Fatal(err)
		}
		sig, k, err := cp.VerifyLine(line, v, wv)
		if err != nil {
			if k != nil || sig != (note.Signature{}) {
				t.Fatalf("a key or signature returned with %v", err)
			}
			return
		}
		if (k != v && k != wv) || sig.Name != k.Name() || sig.Hash != k.KeyHash() {
			t.Fatalf("VerifyLine(%q) = %+v by %v", line, sig, k)
		}
	})
}

func TestUnverifiedSize(t *testing.T) {
	for _, c := range []struct {
		note string
		size uint64
		ok   bool
	}{
		{"example.org/log\n42\nAAAA\n\n— sig\n", 42, true},
		{"example.org/log\n0\nAAAA\n", 0, true},
		{"example.org/log\n18446744073709551615\nAAAA\n", 1<<64 - 1, true},
		// Controls: what is not a size line reads as no size at all.
		{"example.org/log\n18446744073709551616\nAAAA\n", 0, false}, // overflows
		{"example.org/log\n-1\nAAAA\n", 0, false},
		{"example.org/log\n+1\nAAAA\n", 0, false},
		{"example.org/log\n 1\nAAAA\n", 0, false},
		{"example.org/log\n\nAAAA\n", 0, false},
		{"example.org/log\n42", 0, false}, // no end of line after the size
		{"example.org/log", 0, false},
		{"", 0, false},
	} {
		size, ok := signednote.UnverifiedSize([]byte(c.note))
		if size != c.size || ok != c.ok {
			t.Errorf("UnverifiedSize(%q) = %d, %v; want %d, %v", c.note, size, ok, c.size, c.ok)
		}
	}
}
