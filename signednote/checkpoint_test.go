package signednote_test

import (
	"bytes"
	"errors"
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
