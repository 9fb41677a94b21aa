package attest_test

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"io"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/ed25519strict"
)

// A kmsSigner stands for a caller's KMS: a crypto.Signer that is not an
// ed25519.PrivateKey. wrongKey and prehash make it a faulty one.
type kmsSigner struct {
	priv, wrongKey ed25519.PrivateKey
	prehash        bool
}

func (k *kmsSigner) Public() crypto.PublicKey { return k.priv.Public() }

func (k *kmsSigner) Sign(_ io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	switch {
	case k.wrongKey != nil:
		return ed25519.Sign(k.wrongKey, msg), nil
	case k.prehash:
		d := sha512.Sum512(msg)
		return k.priv.Sign(nil, d[:], &ed25519.Options{Hash: crypto.SHA512})
	}
	return ed25519.Sign(k.priv, msg), nil
}

// SignBundle and Cosign take any Ed25519 crypto.Signer: a KMS signer's
// envelope is byte for byte the file key's, and co-signing with another
// one reaches two envelopes.
func TestSignWithCryptoSigner(t *testing.T) {
	b := bundletest.Example(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	viaKMS, err := attest.SignBundle(b, &kmsSigner{priv: one}, signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	viaFile, err := attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	if canon(t, viaKMS.Attested) != canon(t, viaFile.Attested) || viaKMS.KeyID != attesttest.KeyID(one) {
		t.Fatal("a crypto.Signer's attested bundle differs from the file key's")
	}
	co, err := attest.Cosign(viaKMS.Attested, &kmsSigner{priv: two}, signOpts(attesttest.IdentityTwo))
	if err != nil || co.Envelopes != 2 {
		t.Fatalf("Cosign: %v, %d envelopes", err, co.Envelopes)
	}
}

// A signer whose signature does not verify under its public key (a token
// that signs with another key) or that pre-hashes (Ed25519ph) signs
// nothing: no attested bundle, an error naming the fault.
func TestSignRefusesFaultySigner(t *testing.T) {
	b := bundletest.Example(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	signed, err := attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		s, cosig crypto.Signer
		want     error
	}{
		{"another key", &kmsSigner{priv: one, wrongKey: two}, &kmsSigner{priv: two, wrongKey: one}, ed25519strict.ErrWrongSignerKey},
		{"Ed25519ph", &kmsSigner{priv: one, prehash: true}, &kmsSigner{priv: two, prehash: true}, ed25519strict.ErrPrehashed},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := attest.SignBundle(b, c.s, signOpts(attesttest.IdentityOne))
			if s != nil || !errors.Is(err, c.want) {
				t.Fatalf("SignBundle = %v, %v; want nil, %v", s, err, c.want)
			}
			s, err = attest.Cosign(signed.Attested, c.cosig, signOpts(attesttest.IdentityTwo))
			if s != nil || !errors.Is(err, c.want) {
				t.Fatalf("Cosign = %v, %v; want nil, %v", s, err, c.want)
			}
		})
	}
}
