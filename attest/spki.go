package attest

import (
	"crypto/ed25519"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/internal/ed25519strict"
)

// SPKIPrefix is the DER prefix of every Ed25519 SubjectPublicKeyInfo
// (REFERENCE §0.1, §6.6): SEQUENCE (42 bytes) { SEQUENCE { OID 1.3.101.112 },
// BIT STRING (33 bytes, 0 unused bits) }, followed by the 32-byte raw key.
const SPKIPrefix = ed25519strict.SPKIPrefix

// SPKISize is the length of an Ed25519 SubjectPublicKeyInfo DER: 44 bytes.
const SPKISize = ed25519strict.SPKISize

// ErrInvalidSPKI is wrapped by every error of [ParseSPKI].
var ErrInvalidSPKI = errors.New("public key is not a 44-byte Ed25519 SubjectPublicKeyInfo")

// MarshalSPKI returns the 44-byte DER SubjectPublicKeyInfo of pub:
// [SPKIPrefix] followed by the raw key. Its standard base64 is the envelope's
// publicKeySpkiBase64 and its [KeyID] is the keyid. It panics if pub is not
// 32 bytes long, like crypto/ed25519 does for malformed keys.
func MarshalSPKI(pub ed25519.PublicKey) []byte { return ed25519strict.MarshalSPKI(pub) }

// ParseSPKI returns the raw Ed25519 public key held in der, which must be
// exactly [SPKISize] bytes: [SPKIPrefix] followed by 32 key bytes
// (REFERENCE §6.6, check E5). Any other layout is rejected, including other
// valid DER encodings of the same key, raw 32-byte keys and keys of other
// algorithms (whose algorithm the error then names). The error wraps
// [ErrInvalidSPKI].
//
// ParseSPKI checks the layout only, not the point: [VerifyEd25519] and
// [CheckEd25519PublicKey] apply the point rules. The result is a copy and
// does not alias der.
func ParseSPKI(der []byte) (ed25519.PublicKey, error) {
	pub, ok := ed25519strict.KeyFromSPKI(der)
	if !ok {
		if alg := describeSPKI(der); alg != "" {
			return nil, fmt.Errorf("%w: public key is %s, only Ed25519 is supported", ErrInvalidSPKI, alg)
		}
		if len(der) != SPKISize {
			return nil, fmt.Errorf("%w: got %d bytes, want %d", ErrInvalidSPKI, len(der), SPKISize)
		}
		return nil, fmt.Errorf("%w: the first %d bytes are not the Ed25519 SPKI prefix", ErrInvalidSPKI, len(SPKIPrefix))
	}
	return pub, nil
}

// describeSPKI names the algorithm of a well-formed non-Ed25519 SPKI, or
// returns "" when der is not one. Only called on the failure path.
// (crypto/x509 also accepts some non-canonical Ed25519 layouts, such as a
// non-zero unused-bits count in the BIT STRING; those are reported as a
// wrong prefix.)
func describeSPKI(der []byte) string {
	key, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return ""
	}
	if _, ok := key.(ed25519.PublicKey); ok {
		return ""
	}
	return describeKey(key)
}

// KeyID returns the key id of an SPKI DER: the lowercase hex SHA-256 of der
// (REFERENCE §6.6). It is the envelope's keyid, the predicate's
// signerKeyFingerprint and the trust policy's keyFingerprint. KeyID hashes
// der as given; it does not check the layout (check E4 compares the key id
// before E5 checks the shape).
func KeyID(der []byte) string { return ed25519strict.SPKIFingerprint(der) }
