package signednote_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/signednote"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// Fixed seeds: test keys only.
var (
	testOnlyLogSeed     = bytes.Repeat([]byte{0x51}, 32)
	testOnlyWitnessSeed = bytes.Repeat([]byte{0x52}, 32)
)

const checkpointText = "example.org/log\n2\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"

func gen(t testing.TB, typ byte, name string, seed []byte) (string, string) {
	t.Helper()
	skey, vkey, err := signednote.GenerateKey(bytes.NewReader(seed), typ, name)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

// Log keys are exactly sumdb/note's keys.
func TestLogKeyIsSumdbNoteKey(t *testing.T) {
	skey, vkey := gen(t, signednote.TypeEd25519, "example.org/log", testOnlyLogSeed)
	nskey, nvkey, err := note.GenerateKey(bytes.NewReader(testOnlyLogSeed), "example.org/log")
	if err != nil {
		t.Fatal(err)
	}
	if skey != nskey || vkey != nvkey {
		t.Fatalf("GenerateKey differs from note.GenerateKey:\n%s\n%s", vkey, nvkey)
	}
	s, err := signednote.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseLogVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != vkey || s.Verifier().String() != vkey {
		t.Fatalf("vkey round trip: %s / %s", v, s.Verifier())
	}
	// Signed by us, verified by sumdb/note, and the other way round.
	ns, _ := note.NewSigner(skey)
	nv, _ := note.NewVerifier(vkey)
	ours, err := note.Sign(&note.Note{Text: checkpointText}, s)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := note.Sign(&note.Note{Text: checkpointText}, ns)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Fatal("signatures differ from sumdb/note's (Ed25519 is deterministic)")
	}
	if _, err := note.Open(ours, note.VerifierList(nv)); err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open(theirs, note.VerifierList(v)); err != nil {
		t.Fatal(err)
	}
	spki := sha256.Sum256(append([]byte("\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00"), v.PublicKey()...))
	if v.Fingerprint() != hex.EncodeToString(spki[:]) {
		t.Error("fingerprint is not the SHA-256 of the SPKI DER")
	}
}

// Witness keys and cosignatures interoperate with transparency-dev/formats.
func TestWitnessKeyInteropWithFormats(t *testing.T) {
	skey, vkey := gen(t, signednote.TypeCosignatureV1, "example.org/witness", testOnlyWitnessSeed)
	raw, _ := base64.StdEncoding.DecodeString(strings.SplitN(vkey, "+", 3)[2])
	if raw[0] != 0x04 {
		t.Fatalf("witness vkey type 0x%02x, want 0x04", raw[0])
	}
	c, err := signednote.ParseWitnessSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseWitnessVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		t.Fatal(err)
	}
	fv, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	if fs.KeyHash() != v.KeyHash() || fv.KeyHash() != v.KeyHash() {
		t.Fatalf("key hashes differ: formats %08x %08x, ours %08x", fs.KeyHash(), fv.KeyHash(), v.KeyHash())
	}
	at := time.Unix(1_700_000_000, 0)
	ours, err := note.Sign(&note.Note{Text: checkpointText}, c.At(at))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := note.Sign(&note.Note{Text: checkpointText}, fs)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(ours, note.VerifierList(fv))
	if err != nil {
		t.Fatalf("formats rejects our cosignature: %v", err)
	}
	if ts, err := fnote.CoSigV1Timestamp(n.Sigs[0]); err != nil || !ts.Equal(at) {
		t.Errorf("formats reads timestamp %v, %v", ts, err)
	}
	if ts, err := signednote.CosignatureTimestamp(n.Sigs[0]); err != nil || ts != uint64(at.Unix()) {
		t.Errorf("CosignatureTimestamp = %v, %v", ts, err)
	}
	if _, err := note.Open(theirs, note.VerifierList(v)); err != nil {
		t.Fatalf("we reject formats' cosignature: %v", err)
	}
	// A cosignature is not a log signature: the message differs.
	if _, err := note.Open(ours, note.VerifierList(mustLogVerifierSameKey(t, v))); err == nil {
		t.Error("a cosignature verified as a plain Ed25519 note signature")
	}
	if _, err := note.Sign(&note.Note{Text: checkpointText}, c.At(time.Unix(-1, 0))); err == nil {
		t.Error("signed with a time before the epoch")
	}
	if _, err := note.Sign(&note.Note{Text: "one line\n"}, c.At(at)); err == nil {
		t.Error("cosigned a note of one line")
	}
}

// mustLogVerifierSameKey returns a type 0x01 verifier for the same key and
// name as v (a different key hash).
func mustLogVerifierSameKey(t testing.TB, v *signednote.Verifier) note.Verifier {
	t.Helper()
	lv, err := signednote.ParseVerifier(signednote.FormatVerifierKey(v.Name(), signednote.TypeEd25519, v.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	// Same name and hash as v, so that note.Open asks this verifier.
	return hashAs{lv, v.KeyHash()}
}

type hashAs struct {
	note.Verifier
	hash uint32
}

func (h hashAs) KeyHash() uint32 { return h.hash }

// Every one-character change to a vkey, and every proper prefix, is
// rejected: one key has one encoding.
func TestParseVerifierMangled(t *testing.T) {
	for _, typ := range []byte{signednote.TypeEd25519, signednote.TypeCosignatureV1} {
		_, vkey := gen(t, typ, "example.org/k", testOnlyLogSeed)
		for i := range len(vkey) {
			if _, err := signednote.ParseVerifier(vkey[:i]); err == nil {
				t.Errorf("prefix %q accepted", vkey[:i])
			}
			for _, c := range []byte{'+', 'A', 'a', '0', '/', '=', ' ', 'g'} {
				m := []byte(vkey)
				if m[i] == c {
					continue
				}
				m[i] = c
				if _, err := signednote.ParseVerifier(string(m)); err == nil {
					t.Errorf("mangled vkey %q accepted", m)
				}
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	lskey, lvkey := gen(t, signednote.TypeEd25519, "example.org/log", testOnlyLogSeed)
	wskey, wvkey := gen(t, signednote.TypeCosignatureV1, "example.org/w", testOnlyWitnessSeed)
	identity := make([]byte, 32)
	identity[0] = 1 // the identity point, of small order
	smallOrder := signednote.FormatVerifierKey("example.org/bad", signednote.TypeEd25519, identity)
	tests := []struct {
		name string
		f    func() error
		msg  string
	}{
		{"witness vkey as log key", func() error { _, err := signednote.ParseLogVerifier(wvkey); return err }, "key type 0x04 (cosignature/v1 key), want 0x01 (Ed25519 signed-note key)"},
		{"log vkey as witness key", func() error { _, err := signednote.ParseWitnessVerifier(lvkey); return err }, "want 0x04 (cosignature/v1 key)"},
		{"witness skey as log key", func() error { _, err := signednote.ParseLogSigner(wskey); return err }, `private key "example.org/w": key type 0x04 (cosignature/v1 key)`},
		{"log skey as witness key", func() error { _, err := signednote.ParseWitnessSigner(lskey); return err }, `private key "example.org/log": key type 0x01 (Ed25519 signed-note key)`},
		{"small-order key", func() error { _, err := signednote.ParseVerifier(smallOrder); return err }, "small-order"},
		{"vkey as skey", func() error { _, err := signednote.ParseLogSigner(lvkey); return err }, "malformed private key"}, // package keyfile names the kind
		{"garbage as skey", func() error { _, err := signednote.ParseLogSigner("PRIVATE+KEY+x"); return err }, "malformed private key"},
		{"trailing newline", func() error { _, err := signednote.ParseVerifier(lvkey + "\n"); return err }, "not canonical"},
		{"name with space", func() error {
			_, _, err := signednote.GenerateKey(bytes.NewReader(testOnlyLogSeed), 1, "a b")
			return err
		}, "is empty or contains spaces"},
		{"unsupported type", func() error {
			_, _, err := signednote.GenerateKey(bytes.NewReader(testOnlyLogSeed), 2, "a")
			return err
		}, "0x02 is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.f(); err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want %q", err, tt.msg)
			}
		})
	}
	if _, err := signednote.ParseVerifier(smallOrder); !errors.Is(err, ed25519strict.ErrSmallOrderKey) {
		t.Errorf("small-order key: %v, want ed25519strict.ErrSmallOrderKey", err)
	}
	// No message quotes private key material.
	secret := strings.SplitN(lskey, "+", 5)[4]
	for i := range len(lskey) {
		m := []byte(lskey)
		m[i] ^= 0x20
		if _, err := signednote.ParseLogSigner(string(m)); err != nil && (strings.Contains(err.Error(), secret[:8]) || strings.Contains(err.Error(), string(m))) {
			t.Fatalf("message quotes the key: %v", err)
		}
	}
}
