package signednote_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"testing"

	"github.com/mcpres/mcpres/internal/signednote"
)

// FuzzParseVerifier: one key, one encoding. A vkey that parses is exactly
// the text its verifier formats back.
func FuzzParseVerifier(f *testing.F) {
	for _, typ := range []byte{signednote.TypeEd25519, signednote.TypeCosignatureV1} {
		_, vkey, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x53}, 32)), typ, "example.org/fuzz")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(vkey)
	}
	f.Add("a+00000000+AQ==")
	if key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err == nil {
		if der, err := x509.MarshalPKIXPublicKey(&key.PublicKey); err == nil {
			f.Add(signednote.FormatECDSAVerifierKey("rekor.example.org", der))
		}
	}
	f.Fuzz(func(t *testing.T, vkey string) {
		v, err := signednote.ParseVerifier(vkey)
		if err != nil {
			if v != nil {
				t.Fatal("a verifier returned with an error")
			}
			return
		}
		if v.String() != vkey {
			t.Fatalf("ParseVerifier(%q).String() = %q", vkey, v.String())
		}
	})
}

// FuzzParseSigner: a private key that parses gives a verifier whose vkey
// parses, with the same name.
func FuzzParseSigner(f *testing.F) {
	for _, typ := range []byte{signednote.TypeEd25519, signednote.TypeCosignatureV1} {
		skey, _, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x54}, 32)), typ, "example.org/fuzz")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(skey)
	}
	f.Fuzz(func(t *testing.T, skey string) {
		if s, err := signednote.ParseLogSigner(skey); err == nil {
			if _, err := signednote.ParseLogVerifier(s.Verifier().String()); err != nil {
				t.Fatal(err)
			}
		}
		if c, err := signednote.ParseCosigner(skey); err == nil {
			if _, err := signednote.ParseWitnessVerifier(c.Verifier().String()); err != nil {
				t.Fatal(err)
			}
		}
	})
}
