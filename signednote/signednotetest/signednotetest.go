// Package signednotetest makes note keys from fixed seeds for the tests of
// the log, the witness and their clients. The seeds are public, so the keys
// are test keys only.
package signednotetest

import (
	"bytes"
	"testing"

	"github.com/mcpres/mcpres/signednote"
)

// Seed returns a 32-byte test seed of b repeated.
func Seed(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

// LogKey returns the Ed25519 log key of origin made from seed (32 bytes):
// its signer, its verifier and its verifier key in note form.
func LogKey(t testing.TB, seed []byte, origin string) (*signednote.LogSigner, *signednote.Verifier, string) {
	t.Helper()
	skey, vkey := generate(t, seed, signednote.TypeEd25519, origin)
	s, err := signednote.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseLogVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return s, v, vkey
}

// WitnessKey returns the cosignature/v1 witness key name made from seed:
// its cosigner, its verifier and its verifier key in note form.
func WitnessKey(t testing.TB, seed []byte, name string) (*signednote.WitnessSigner, *signednote.Verifier, string) {
	t.Helper()
	skey, vkey := generate(t, seed, signednote.TypeCosignatureV1, name)
	c, err := signednote.ParseWitnessSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseWitnessVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return c, v, vkey
}

func generate(t testing.TB, seed []byte, typ byte, name string) (skey, vkey string) {
	t.Helper()
	skey, vkey, err := signednote.GenerateKey(bytes.NewReader(seed), typ, name)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}
