package keyfile

import (
	"crypto/ed25519"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/ed25519strict"
)

// ErrInvalidSPKI is wrapped by every error of [ParseSPKI].
var ErrInvalidSPKI = errors.New("public key is not a 44-byte Ed25519 SubjectPublicKeyInfo")

// ParseSPKI returns the raw Ed25519 public key held in der, which must be
// exactly ed25519strict.SPKISize bytes: ed25519strict.SPKIPrefix followed by 32 key bytes
// (REFERENCE §6.6, check E5). Any other layout is rejected, including other
// valid DER encodings of the same key, raw 32-byte keys and keys of other
// algorithms (whose algorithm the error then names). The error wraps
// [ErrInvalidSPKI].
//
// ParseSPKI checks the layout only, not the point: ed25519strict.Verify and
// ed25519strict.CheckPublicKey apply the point rules. The result is a copy and
// does not alias der.
func ParseSPKI(der []byte) (ed25519.PublicKey, error) {
	pub, ok := ed25519strict.KeyFromSPKI(der)
	if !ok {
		if alg := describeSPKI(der); alg != "" {
			return nil, fmt.Errorf("%w: public key is %s, only Ed25519 is supported", ErrInvalidSPKI, alg)
		}
		if len(der) != ed25519strict.SPKISize {
			return nil, fmt.Errorf("%w: got %d bytes, want %d", ErrInvalidSPKI, len(der), ed25519strict.SPKISize)
		}
		return nil, fmt.Errorf("%w: the first %d bytes are not the Ed25519 SPKI prefix", ErrInvalidSPKI, len(ed25519strict.SPKIPrefix))
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
