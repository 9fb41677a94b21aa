package attest

import "github.com/mcpres/mcpres/internal/ed25519strict"

// Errors of [VerifyEd25519] and [CheckEd25519PublicKey], one per rule of
// REFERENCE §6.7; they are the errors of package internal/ed25519strict,
// which owns the rules (see its documentation), returned wrapped with the
// numbers: test with errors.Is.
var (
	ErrPublicKeySize     = ed25519strict.ErrPublicKeySize
	ErrSignatureSize     = ed25519strict.ErrSignatureSize
	ErrNonCanonicalKey   = ed25519strict.ErrNonCanonicalKey
	ErrKeyNotOnCurve     = ed25519strict.ErrKeyNotOnCurve
	ErrSmallOrderKey     = ed25519strict.ErrSmallOrderKey
	ErrNonCanonicalR     = ed25519strict.ErrNonCanonicalR
	ErrRNotOnCurve       = ed25519strict.ErrRNotOnCurve
	ErrSmallOrderR       = ed25519strict.ErrSmallOrderR
	ErrNonCanonicalS     = ed25519strict.ErrNonCanonicalS
	ErrSignatureMismatch = ed25519strict.ErrSignatureMismatch
)

// VerifyEd25519 verifies the pure Ed25519 signature sig of msg under the raw
// 32-byte public key pub with the strict rules of REFERENCE §6.7: a canonical,
// on-curve, not small-order A and R, S < L, then crypto/ed25519.Verify. It
// returns nil if and only if all hold, else the error of the first rule that
// fails. It is ed25519strict.Verify, exported here for users of the envelope
// API; for an envelope msg is [PAE](payloadType, payload) and pub the key of
// [ParseSPKI].
func VerifyEd25519(pub, msg, sig []byte) error { return ed25519strict.Verify(pub, msg, sig) }

// CheckEd25519PublicKey applies the key rules of REFERENCE §6.7 to a raw
// public key without verifying anything (ed25519strict.CheckPublicKey): 32
// bytes, a canonical encoding of a curve point, not of small order. A key
// that fails it can never pass [VerifyEd25519].
func CheckEd25519PublicKey(pub []byte) error { return ed25519strict.CheckPublicKey(pub) }
