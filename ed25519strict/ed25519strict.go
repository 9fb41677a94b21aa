// Package ed25519strict owns the Ed25519 rules of mcpres: the strict
// verification of REFERENCE §6.7 (canonical point encodings, no
// small-order key or R, S < L, then the cofactorless equation of
// crypto/ed25519) and the SubjectPublicKeyInfo form of a key with its
// fingerprint (REFERENCE §6.6, DESIGN §5): the key id of an attestation
// envelope (keyid, signerKeyFingerprint, a trust policy's keyFingerprint)
// and the fingerprint by which signers and witnesses are counted.
//
// Every package that takes an Ed25519 key asks this one: attest (envelope
// keys, PEM files), signednote (log and witness note keys, and so
// offline, witness, tlog and trustpolicy) and trustpolicy/tufdist; code
// outside the module that checks an envelope signature or a key by hand
// uses it too ([Verify], [CheckPublicKey], [MarshalSPKI],
// [SPKIFingerprint]). It is pure: it imports neither crypto/x509 nor
// anything that links net, so that package offline can use it. A layout
// that is not the Ed25519 SPKI is rejected here without naming its
// algorithm; keyfile.ParseSPKI does that with crypto/x509 on its failure
// path.
//
// Why it exists: crypto/ed25519.Verify accepts small-order public keys
// (with the identity key 01 00…00 and the signature R = identity, S = 0 it
// accepts every message) and non-canonical encodings. A copy of these rules
// in another package once missed the non-canonical identity 01 00…00 80;
// TestEveryKeyParserIsStrict (internal/crosscheck) feeds one table of bad
// keys to every key parser of the module.
package ed25519strict

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
)

// Errors of [Verify] and [CheckPublicKey]. Each names the rule
// of REFERENCE §6.7 that failed; every one of them means "reject". They are
// returned wrapped, with the numbers, so test with errors.Is.
var (
	// ErrPublicKeySize: the public key is not exactly 32 bytes (rule 4).
	ErrPublicKeySize = errors.New("ed25519: wrong public key size")
	// ErrSignatureSize: the signature is not exactly 64 bytes (rule 4).
	ErrSignatureSize = errors.New("ed25519: wrong signature size")
	// ErrNonCanonicalKey: the public key A is not a canonical point
	// encoding: y ≥ p, or x = 0 with the sign bit set (rule 1).
	ErrNonCanonicalKey = errors.New("ed25519: public key is not a canonical point encoding")
	// ErrKeyNotOnCurve: the public key A does not decode to a curve point
	// (rule 1).
	ErrKeyNotOnCurve = errors.New("ed25519: public key is not a point on the curve")
	// ErrSmallOrderKey: the public key A is one of the eight points of order
	// dividing 8 (rule 2). With such a key a forgery needs no private key.
	ErrSmallOrderKey = errors.New("ed25519: public key is a small-order point")
	// ErrNonCanonicalR: the signature's R is not a canonical point encoding
	// (rule 1).
	ErrNonCanonicalR = errors.New("ed25519: signature R is not a canonical point encoding")
	// ErrRNotOnCurve: the signature's R does not decode to a curve point
	// (rule 1).
	ErrRNotOnCurve = errors.New("ed25519: signature R is not a point on the curve")
	// ErrSmallOrderR: the signature's R is a point of order dividing 8
	// (rule 2).
	ErrSmallOrderR = errors.New("ed25519: signature R is a small-order point")
	// ErrNonCanonicalS: the signature's S is not reduced, S ≥ L (rule 3).
	ErrNonCanonicalS = errors.New("ed25519: signature S is not below the group order L")
	// ErrSignatureMismatch: every encoding is well formed but the
	// verification equation does not hold (rule 5): wrong key, wrong
	// message or a tampered signature.
	ErrSignatureMismatch = errors.New("ed25519: signature does not verify")
)

// Verify verifies the pure Ed25519 signature sig of msg under the raw
// 32-byte public key pub, with the strict rules of REFERENCE §6.7. It
// returns nil if and only if all of these hold, and otherwise the error of
// the first that fails, in this order:
//
//  1. len(pub) = 32, else [ErrPublicKeySize]; len(sig) = 64, else
//     [ErrSignatureSize] (rule 4).
//  2. The public key A passes [CheckPublicKey]: a canonical encoding
//     ([ErrNonCanonicalKey]), a curve point ([ErrKeyNotOnCurve]), not of
//     small order ([ErrSmallOrderKey]) (rules 1, 2).
//  3. The same for R = sig[:32]: [ErrNonCanonicalR], [ErrRNotOnCurve],
//     [ErrSmallOrderR] (rules 1, 2).
//  4. S = sig[32:], little-endian, is below the group order
//     L = 2^252 + 27742317777372353535851937790883648493, else
//     [ErrNonCanonicalS] (rule 3).
//  5. crypto/ed25519.Verify accepts: the cofactorless equation
//     [S]B = R + [k]A with k = SHA-512(R ‖ A ‖ msg) mod L over the bytes as
//     given, else [ErrSignatureMismatch] (rule 5).
//
// Anything Verify accepts is also accepted by crypto/ed25519.Verify.
// The converse does not hold, which is why this function exists:
// crypto/ed25519.Verify accepts, for every message, the public key
// 01 00…00 (the identity point) with the signature R = 01 00…00, S = 0
// (REFERENCE §10 row 1), and it accepts non-canonical encodings of A.
//
// Cost: the encoding, small-order and S checks are byte comparisons done
// before crypto/ed25519.Verify. Whether A and R decode to curve points is
// implied when crypto/ed25519.Verify accepts (it decodes A, and compares R
// with the canonical encoding of a point it computed), so that check, which
// costs a Jacobi symbol per point, runs only on the failure path, to name
// the first rule that failed. An accepted signature costs crypto/ed25519.Verify
// plus well under a microsecond.
//
// For an MCP-RES envelope msg is PAE(payloadType, payload) (attest.PAE)
// and pub is the key held in the envelope's SPKI ([KeyFromSPKI]). The inputs are public: nothing
// here is constant-time.
func Verify(pub, msg, sig []byte) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: got %d bytes, want %d", ErrPublicKeySize, len(pub), ed25519.PublicKeySize)
	}
	if len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: got %d bytes, want %d", ErrSignatureSize, len(sig), ed25519.SignatureSize)
	}
	r, s := sig[:32], sig[32:]
	if encodingAcceptable(pub) && encodingAcceptable(r) && scalarIsCanonical(s) &&
		ed25519.Verify(ed25519.PublicKey(pub), msg, sig) {
		return nil
	}
	// Something failed: find the first rule, in the documented order.
	if err := checkPoint(pub, pointErrs{ErrNonCanonicalKey, ErrKeyNotOnCurve, ErrSmallOrderKey}); err != nil {
		return err
	}
	if err := checkPoint(r, pointErrs{ErrNonCanonicalR, ErrRNotOnCurve, ErrSmallOrderR}); err != nil {
		return err
	}
	if !scalarIsCanonical(s) {
		return fmt.Errorf("%w: S ≥ L", ErrNonCanonicalS)
	}
	// Every byte-level check passed above, so crypto/ed25519.Verify was
	// the one that rejected.
	return ErrSignatureMismatch
}

// CheckPublicKey applies the key rules of REFERENCE §6.7 to a raw
// public key without verifying anything: exactly 32 bytes
// ([ErrPublicKeySize]), a canonical point encoding ([ErrNonCanonicalKey]),
// a point on the curve ([ErrKeyNotOnCurve]) and not of small order
// ([ErrSmallOrderKey]). A key that fails it can never pass [Verify];
// key loaders use it to reject such keys early.
func CheckPublicKey(pub []byte) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: got %d bytes, want %d", ErrPublicKeySize, len(pub), ed25519.PublicKeySize)
	}
	return checkPoint(pub, pointErrs{ErrNonCanonicalKey, ErrKeyNotOnCurve, ErrSmallOrderKey})
}

// pointErrs are the sentinels reported for one point (A or R).
type pointErrs struct {
	nonCanonical, notOnCurve, smallOrder error
}

// smallOrderEncodings are the canonical encodings of the eight points whose
// order divides 8 (REFERENCE §6.7 rule 2), 32 bytes each. A string constant,
// so that nothing is built at package initialisation.
const smallOrderEncodings = "" +
	// identity (0, 1), order 1
	"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	// (0, -1), order 2
	"\xec\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f" +
	// (±sqrt(-1), 0), order 4
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80" +
	// the four points of order 8
	"\x26\xe8\x95\x8f\xc2\xb2\x27\xb0\x45\xc3\xf4\x89\xf2\xef\x98\xf0\xd5\xdf\xac\x05\xd3\xc6\x33\x39\xb1\x38\x02\x88\x6d\x53\xfc\x05" +
	"\x26\xe8\x95\x8f\xc2\xb2\x27\xb0\x45\xc3\xf4\x89\xf2\xef\x98\xf0\xd5\xdf\xac\x05\xd3\xc6\x33\x39\xb1\x38\x02\x88\x6d\x53\xfc\x85" +
	"\xc7\x17\x6a\x70\x3d\x4d\xd8\x4f\xba\x3c\x0b\x76\x0d\x10\x67\x0f\x2a\x20\x53\xfa\x2c\x39\xcc\xc6\x4e\xc7\xfd\x77\x92\xac\x03\x7a" +
	"\xc7\x17\x6a\x70\x3d\x4d\xd8\x4f\xba\x3c\x0b\x76\x0d\x10\x67\x0f\x2a\x20\x53\xfa\x2c\x39\xcc\xc6\x4e\xc7\xfd\x77\x92\xac\x03\xfa"

// groupOrderLE is L = 2^252 + 27742317777372353535851937790883648493,
// little-endian.
const groupOrderLE = "\xed\xd3\xf5\x5c\x1a\x63\x12\x58\xd6\x9c\xf7\xa2\xde\xf9\xde\x14" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"

// curveDBE is the curve constant d = -121665/121666 mod p, big-endian.
const curveDBE = "\x52\x03\x6c\xee\x2b\x6f\xfe\x73\x8c\xc7\x40\x79\x77\x79\xe8\x98" +
	"\x00\x70\x0a\x4d\x41\x41\xd8\xab\x75\xeb\x4d\xca\x13\x59\x78\xa3"

// checkPoint applies rules 1 and 2 of REFERENCE §6.7 to a 32-byte encoding.
func checkPoint(enc []byte, errs pointErrs) error {
	if yAtLeastP(enc) {
		return fmt.Errorf("%w: y ≥ p", errs.nonCanonical)
	}
	if enc[31]>>7 == 1 && xIsZero(enc) {
		return fmt.Errorf("%w: x = 0 with the sign bit set", errs.nonCanonical)
	}
	if !decodesToPoint(enc) {
		return errs.notOnCurve
	}
	if isSmallOrder(enc) {
		return errs.smallOrder
	}
	return nil
}

// encodingAcceptable is checkPoint without the curve-membership test: the
// byte-level part of rules 1 and 2.
func encodingAcceptable(enc []byte) bool {
	return !yAtLeastP(enc) && !(enc[31]>>7 == 1 && xIsZero(enc)) && !isSmallOrder(enc)
}

// isSmallOrder reports whether enc is one of the eight canonical encodings
// of the points of order dividing 8. For a canonical encoding this is the
// same as "8·P is the identity".
func isSmallOrder(enc []byte) bool {
	for i := 0; i < len(smallOrderEncodings); i += 32 {
		if string(enc) == smallOrderEncodings[i:i+32] {
			return true
		}
	}
	return false
}

// yAtLeastP reports whether the 255-bit little-endian y of enc (sign bit
// cleared) is ≥ p = 2^255 − 19, whose encoding is ed ff … ff 7f.
func yAtLeastP(enc []byte) bool {
	if enc[31]&0x7f != 0x7f {
		return false
	}
	for i := 30; i >= 1; i-- {
		if enc[i] != 0xff {
			return false
		}
	}
	return enc[0] >= 0xed
}

// xIsZero reports whether y (sign bit cleared) is 1 or p − 1, the only
// y values of points with x = 0. Assumes y < p.
func xIsZero(enc []byte) bool {
	one, minusOne := true, true
	for i := 0; i < 32; i++ {
		b := enc[i]
		if i == 31 {
			b &= 0x7f
		}
		var wantOne, wantMinusOne byte
		switch i {
		case 0:
			wantOne, wantMinusOne = 0x01, 0xec
		case 31:
			wantOne, wantMinusOne = 0x00, 0x7f
		default:
			wantOne, wantMinusOne = 0x00, 0xff
		}
		one = one && b == wantOne
		minusOne = minusOne && b == wantMinusOne
	}
	return one || minusOne
}

// decodesToPoint reports whether a canonical y (enc with the sign bit
// cleared, y < p) is the y-coordinate of a point of the curve
// −x² + y² = 1 + d·x²·y² over GF(p).
//
// It does not compute x: a point exists iff x² = u/v has a solution with
// u = y² − 1 and v = d·y² + 1. v is never 0 (−1/d is not a square), so this
// holds iff u = 0 or the Legendre symbol of u·v (which equals that of u/v)
// is 1. For the prime p the Jacobi symbol is the Legendre symbol, and
// big.Jacobi computes it without a modular exponentiation.
func decodesToPoint(enc []byte) bool {
	var be [32]byte
	for i := 0; i < 32; i++ {
		be[i] = enc[31-i]
	}
	be[0] &= 0x7f

	var p, d, y, u, v big.Int
	p.Lsh(big.NewInt(1), 255).Sub(&p, big.NewInt(19))
	d.SetBytes([]byte(curveDBE))
	y.SetBytes(be[:])

	y.Mul(&y, &y).Mod(&y, &p) // y²
	u.Sub(&y, big.NewInt(1))  // y² − 1, in [−1, p−2]
	if u.Sign() == 0 {
		return true
	}
	v.Mul(&d, &y).Add(&v, big.NewInt(1)) // d·y² + 1
	u.Mul(&u, &v).Mod(&u, &p)            // u·v mod p, in [0, p)
	return big.Jacobi(&u, &p) == 1
}

// scalarIsCanonical reports whether the 32-byte little-endian s is < L.
func scalarIsCanonical(s []byte) bool {
	for i := 31; i >= 0; i-- {
		switch {
		case s[i] < groupOrderLE[i]:
			return true
		case s[i] > groupOrderLE[i]:
			return false
		}
	}
	return false // s = L
}

// SPKIPrefix is the DER prefix of every Ed25519 SubjectPublicKeyInfo
// (REFERENCE §0.1, §6.6): SEQUENCE (42 bytes) { SEQUENCE { OID 1.3.101.112 },
// BIT STRING (33 bytes, 0 unused bits) }, followed by the 32-byte raw key.
const SPKIPrefix = "\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00"

// SPKISize is the length of an Ed25519 SubjectPublicKeyInfo DER: 44 bytes.
const SPKISize = len(SPKIPrefix) + ed25519.PublicKeySize

// MarshalSPKI returns the 44-byte DER SubjectPublicKeyInfo of pub:
// [SPKIPrefix] followed by the raw key. It panics if pub is not 32 bytes
// long, like crypto/ed25519 does for malformed keys.
func MarshalSPKI(pub ed25519.PublicKey) []byte {
	if len(pub) != ed25519.PublicKeySize {
		panic(fmt.Sprintf("ed25519strict: MarshalSPKI: public key is %d bytes, want %d", len(pub), ed25519.PublicKeySize))
	}
	der := make([]byte, 0, SPKISize)
	der = append(der, SPKIPrefix...)
	return append(der, pub...)
}

// KeyFromSPKI returns a copy of the raw key held in der when der is exactly
// [SPKIPrefix] followed by 32 bytes, and false for any other layout
// (including other valid DER encodings of the same key). It checks the
// layout only: [CheckPublicKey] applies the point rules.
func KeyFromSPKI(der []byte) (ed25519.PublicKey, bool) {
	if len(der) != SPKISize || string(der[:len(SPKIPrefix)]) != SPKIPrefix {
		return nil, false
	}
	return ed25519.PublicKey(append([]byte(nil), der[len(SPKIPrefix):]...)), true
}

// SPKIFingerprint is the key fingerprint of mcpres (DESIGN §5) and the key
// id of MCP-RES (REFERENCE §6.6): the lowercase hex SHA-256 of an SPKI DER,
// hashed as given (the layout is not checked, so that a key id can be
// compared before the key is parsed). Keys of other algorithms (a Rekor
// log's ECDSA key) are fingerprinted the same way.
func SPKIFingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// Fingerprint is the [SPKIFingerprint] of the SPKI of an Ed25519 key: how
// mcpres counts signers and witnesses, whatever their names. It panics if
// pub is not 32 bytes long.
func Fingerprint(pub ed25519.PublicKey) string { return SPKIFingerprint(MarshalSPKI(pub)) }
