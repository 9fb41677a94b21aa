package notekey_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/internal/notekey"
	"github.com/mcpres/mcpres/trustpolicy"
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
	skey, vkey, err := notekey.GenerateKey(bytes.NewReader(seed), typ, name)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

// Log keys are exactly sumdb/note's keys.
func TestLogKeyIsSumdbNoteKey(t *testing.T) {
	skey, vkey := gen(t, notekey.TypeEd25519, "example.org/log", testOnlyLogSeed)
	nskey, nvkey, err := note.GenerateKey(bytes.NewReader(testOnlyLogSeed), "example.org/log")
	if err != nil {
		t.Fatal(err)
	}
	if skey != nskey || vkey != nvkey {
		t.Fatalf("GenerateKey differs from note.GenerateKey:\n%s\n%s", vkey, nvkey)
	}
	s, err := notekey.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := notekey.ParseLogVerifier(vkey)
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
	if v.Fingerprint() != attest.KeyID(attest.MarshalSPKI(v.PublicKey())) {
		t.Error("fingerprint is not the SHA-256 of the SPKI DER")
	}
}

// Witness keys and cosignatures interoperate with transparency-dev/formats.
func TestWitnessKeyInteropWithFormats(t *testing.T) {
	skey, vkey := gen(t, notekey.TypeCosignatureV1, "example.org/witness", testOnlyWitnessSeed)
	raw, _ := base64.StdEncoding.DecodeString(strings.SplitN(vkey, "+", 3)[2])
	if raw[0] != 0x04 {
		t.Fatalf("witness vkey type 0x%02x, want 0x04", raw[0])
	}
	c, err := notekey.ParseCosigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := notekey.ParseWitnessVerifier(vkey)
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
	if ts, err := notekey.CosignatureTime(n.Sigs[0]); err != nil || !ts.Equal(at) {
		t.Errorf("CosignatureTime = %v, %v", ts, err)
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
func mustLogVerifierSameKey(t testing.TB, v *notekey.Verifier) note.Verifier {
	t.Helper()
	lv, err := notekey.ParseVerifier(notekey.FormatVerifierKey(v.Name(), notekey.TypeEd25519, v.PublicKey()))
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

// The trust policy's tlog-policy parser accepts the keys we generate, each
// in its role.
func TestKeysFitTheTrustPolicy(t *testing.T) {
	_, lv := gen(t, notekey.TypeEd25519, "example.org/log", testOnlyLogSeed)
	_, wv := gen(t, notekey.TypeCosignatureV1, "example.org/witness", testOnlyWitnessSeed)
	text := "log " + lv + "\nwitness w1 " + wv + "\nquorum w1\n"
	if _, errs := trustpolicy.ParseTLogPolicy(text); len(errs) > 0 {
		t.Fatalf("ParseTLogPolicy: %v", errs)
	}
	if wv != trustpolicy.FormatNoteKey("example.org/witness", trustpolicy.NoteKeyCosignatureV1, mustVerifier(t, wv).PublicKey()) {
		t.Error("vkey differs from trustpolicy.FormatNoteKey")
	}
}

func mustVerifier(t testing.TB, vkey string) *notekey.Verifier {
	t.Helper()
	v, err := notekey.ParseVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every one-character change to a vkey, and every proper prefix, is
// rejected: one key has one encoding.
func TestParseVerifierMangled(t *testing.T) {
	for _, typ := range []byte{notekey.TypeEd25519, notekey.TypeCosignatureV1} {
		_, vkey := gen(t, typ, "example.org/k", testOnlyLogSeed)
		for i := range len(vkey) {
			if _, err := notekey.ParseVerifier(vkey[:i]); err == nil {
				t.Errorf("prefix %q accepted", vkey[:i])
			}
			for _, c := range []byte{'+', 'A', 'a', '0', '/', '=', ' ', 'g'} {
				m := []byte(vkey)
				if m[i] == c {
					continue
				}
				m[i] = c
				if _, err := notekey.ParseVerifier(string(m)); err == nil {
					t.Errorf("mangled vkey %q accepted", m)
				}
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	lskey, lvkey := gen(t, notekey.TypeEd25519, "example.org/log", testOnlyLogSeed)
	wskey, wvkey := gen(t, notekey.TypeCosignatureV1, "example.org/w", testOnlyWitnessSeed)
	identity := make([]byte, 32)
	identity[0] = 1 // the identity point, of small order
	smallOrder := notekey.FormatVerifierKey("example.org/bad", notekey.TypeEd25519, identity)
	tests := []struct {
		name string
		f    func() error
		msg  string
	}{
		{"witness vkey as log key", func() error { _, err := notekey.ParseLogVerifier(wvkey); return err }, "is a cosignature/v1 witness key (type 0x04), want a Ed25519 log key (type 0x01)"},
		{"log vkey as witness key", func() error { _, err := notekey.ParseWitnessVerifier(lvkey); return err }, "want a cosignature/v1 witness key (type 0x04)"},
		{"witness skey as log key", func() error { _, err := notekey.ParseLogSigner(wskey); return err }, `private key "example.org/w" is a cosignature/v1 witness key`},
		{"log skey as witness key", func() error { _, err := notekey.ParseCosigner(lskey); return err }, `private key "example.org/log" is a Ed25519 log key`},
		{"small-order key", func() error { _, err := notekey.ParseVerifier(smallOrder); return err }, "small-order"},
		{"vkey as skey", func() error { _, err := notekey.ParseLogSigner(lvkey); return err }, "malformed private key"},
		{"trailing newline", func() error { _, err := notekey.ParseVerifier(lvkey + "\n"); return err }, "not canonical"},
		{"name with space", func() error { _, _, err := notekey.GenerateKey(bytes.NewReader(testOnlyLogSeed), 1, "a b"); return err }, "contains a space"},
		{"unsupported type", func() error { _, _, err := notekey.GenerateKey(bytes.NewReader(testOnlyLogSeed), 2, "a"); return err }, "0x02 is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.f(); err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want %q", err, tt.msg)
			}
		})
	}
	if _, err := notekey.ParseVerifier(smallOrder); !errors.Is(err, attest.ErrSmallOrderKey) {
		t.Errorf("small-order key: %v, want attest.ErrSmallOrderKey", err)
	}
	// No message quotes private key material.
	secret := strings.SplitN(lskey, "+", 5)[4]
	for i := range len(lskey) {
		m := []byte(lskey)
		m[i] ^= 0x20
		if _, err := notekey.ParseLogSigner(string(m)); err != nil && (strings.Contains(err.Error(), secret[:8]) || strings.Contains(err.Error(), string(m))) {
			t.Fatalf("message quotes the key: %v", err)
		}
	}
}
