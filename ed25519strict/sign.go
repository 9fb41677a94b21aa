package ed25519strict

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"fmt"
)

// Errors of [Sign]. Every failure of Sign matches [ErrSigner]; the two
// refusals of a signature that came back also match their own error.
var (
	// ErrSigner: signing through a crypto.Signer failed: the signer is not
	// an Ed25519 signer with a strict public key, it returned an error (a
	// token or an agent that is gone, a PIN that no longer works), or its
	// signature was refused below. A server answers it "unavailable".
	ErrSigner = errors.New("ed25519: the signer failed")
	// ErrWrongSignerKey: the signer returned a signature that does not
	// verify under its own public key: it signed with another key (a
	// token object or agent key that is not the one its public half
	// says), or not over the message.
	ErrWrongSignerKey = errors.New("ed25519: the signer's signature does not verify under its public key")
	// ErrPrehashed: the signer returned an Ed25519ph signature (RFC 8032
	// §5.1, of SHA-512(message)) where pure Ed25519 is required.
	ErrPrehashed = errors.New("ed25519: the signer made an Ed25519ph (pre-hashed) signature, pure Ed25519 is required")
)

// SignerPublicKey returns the Ed25519 public key of s, which must be an
// ed25519.PublicKey that passes [CheckPublicKey]; otherwise the error
// matches [ErrSigner] and says what s gave. The public half of an
// ed25519.PrivateKey is taken as it is: a clamped scalar times the base
// point, canonically encoded, is never a small-order or non-canonical
// point.
func SignerPublicKey(s crypto.Signer) (ed25519.PublicKey, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: no signer", ErrSigner)
	}
	if priv, ok := s.(ed25519.PrivateKey); ok {
		if len(priv) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("%w: the Ed25519 private key is %d bytes, want %d", ErrSigner, len(priv), ed25519.PrivateKeySize)
		}
		return priv.Public().(ed25519.PublicKey), nil
	}
	pub, ok := s.Public().(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: the signer's public key is %T, not an Ed25519 key", ErrSigner, s.Public())
	}
	if err := CheckPublicKey(pub); err != nil {
		return nil, fmt.Errorf("%w: the signer's public key: %w", ErrSigner, err)
	}
	return pub, nil
}

// Sign signs msg with pure Ed25519 through s (crypto.Hash(0) as the
// options, as crypto/ed25519 defines it) and returns the 64-byte
// signature only once it verifies under s's own public key with the
// strict rules of [Verify]. This is how every signature of mcpres is made,
// whatever holds the key: an ed25519.PrivateKey, a PKCS#11 token, an
// ssh-agent or a caller's KMS. A signer that signs with another key than
// its public half, or returns an Ed25519ph signature, is refused
// ([ErrWrongSignerKey], [ErrPrehashed]); nothing it returned is passed on.
// Every error matches [ErrSigner].
func Sign(s crypto.Signer, msg []byte) ([]byte, error) {
	pub, err := SignerPublicKey(s)
	if err != nil {
		return nil, err
	}
	sig, err := s.Sign(nil, msg, crypto.Hash(0))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSigner, err)
	}
	if err := Verify(pub, msg, sig); err != nil {
		if len(sig) == ed25519.SignatureSize && isPrehashed(pub, msg, sig) {
			return nil, fmt.Errorf("%w: %w", ErrSigner, ErrPrehashed)
		}
		return nil, fmt.Errorf("%w: %w (%w)", ErrSigner, ErrWrongSignerKey, err)
	}
	return sig, nil
}

// isPrehashed reports whether sig is the Ed25519ph signature of msg (with
// an empty context) under pub: only to say so in the refusal.
func isPrehashed(pub ed25519.PublicKey, msg, sig []byte) bool {
	digest := sha512.Sum512(msg)
	return ed25519.VerifyWithOptions(pub, digest[:], sig, &ed25519.Options{Hash: crypto.SHA512}) == nil
}
