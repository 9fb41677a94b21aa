package ed25519strict_test

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"io"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
)

// A fakeSigner claims pub and signs with priv, as told: a token whose
// public key object is not the private key's, or one that pre-hashes.
type fakeSigner struct {
	pub       crypto.PublicKey
	priv      ed25519.PrivateKey
	prehash   bool
	err       error
	gotOpts   crypto.SignerOpts
	truncated bool
}

func (f *fakeSigner) Public() crypto.PublicKey { return f.pub }

func (f *fakeSigner) Sign(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	f.gotOpts = opts
	if f.err != nil {
		return nil, f.err
	}
	if f.prehash {
		d := sha512.Sum512(msg)
		return f.priv.Sign(nil, d[:], &ed25519.Options{Hash: crypto.SHA512})
	}
	sig := ed25519.Sign(f.priv, msg)
	if f.truncated {
		sig = sig[:63]
	}
	return sig, nil
}

func key(b byte) ed25519.PrivateKey {
	seed := make([]byte, 32)
	seed[0] = b
	return ed25519.NewKeyFromSeed(seed)
}

func TestSign(t *testing.T) {
	one, two := key(1), key(2)
	pubOne := one.Public().(ed25519.PublicKey)
	msg := []byte("message")
	if sig, err := ed25519strict.Sign(one, msg); err != nil || !ed25519.Verify(pubOne, msg, sig) {
		t.Fatalf("an ed25519.PrivateKey: %v", err)
	}
	f := &fakeSigner{pub: pubOne, priv: one}
	if _, err := ed25519strict.Sign(f, msg); err != nil || f.gotOpts != crypto.Hash(0) {
		t.Fatalf("an honest signer: %v, options %v (want crypto.Hash(0), pure Ed25519)", err, f.gotOpts)
	}
	identity := make(ed25519.PublicKey, 32)
	identity[0] = 1
	for _, c := range []struct {
		name string
		s    crypto.Signer
		want error
	}{
		{"signs with another key", &fakeSigner{pub: pubOne, priv: two}, ed25519strict.ErrWrongSignerKey},
		{"Ed25519ph", &fakeSigner{pub: pubOne, priv: one, prehash: true}, ed25519strict.ErrPrehashed},
		{"short signature", &fakeSigner{pub: pubOne, priv: one, truncated: true}, ed25519strict.ErrWrongSignerKey},
		{"signer error", &fakeSigner{pub: pubOne, priv: one, err: errors.New("token removed")}, ed25519strict.ErrSigner},
		{"not Ed25519", &fakeSigner{pub: "an RSA key", priv: one}, ed25519strict.ErrSigner},
		{"small-order public key", &fakeSigner{pub: identity, priv: one}, ed25519strict.ErrSmallOrderKey},
		{"no signer", nil, ed25519strict.ErrSigner},
	} {
		t.Run(c.name, func(t *testing.T) {
			sig, err := ed25519strict.Sign(c.s, msg)
			if sig != nil || !errors.Is(err, c.want) || !errors.Is(err, ed25519strict.ErrSigner) {
				t.Fatalf("Sign = %x, %v; want nil, %v (and ErrSigner)", sig, err, c.want)
			}
		})
	}
	// Wrong-reason control: the Ed25519ph refusal is for a pre-hashed
	// signature only; another key's signature is not called pre-hashed.
	if _, err := ed25519strict.Sign(&fakeSigner{pub: pubOne, priv: two}, msg); errors.Is(err, ed25519strict.ErrPrehashed) {
		t.Fatalf("another key's signature reported as Ed25519ph: %v", err)
	}
}
