package offline

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Signed-note verifier key types (C2SP signed-note, tlog-cosignature, and
// the ECDSA type transparency-dev/formats uses for Rekor checkpoints).
const (
	// KeyTypeEd25519 is an Ed25519 signed-note key: what a log signs its
	// checkpoints with.
	KeyTypeEd25519 byte = 0x01
	// KeyTypeECDSA is an ECDSA P-256/SHA-256 key in PKIX DER, with the key
	// hash SHA-256(DER)[:4]: how Rekor v1 signs its checkpoints. This
	// package only checks the vkey's shape and hash; package offline/rekor
	// verifies with it.
	KeyTypeECDSA byte = 0x02
	// KeyTypeCosignatureV1 is an Ed25519 cosignature/v1 key: what a
	// witness cosigns checkpoints with.
	KeyTypeCosignatureV1 byte = 0x04
)

// A VKey is a parsed signed-note verifier key NAME+HASH+BASE64(TYPE ‖ KEY).
type VKey struct {
	Name string
	Hash uint32
	Type byte
	// Key is the 32-byte Ed25519 key (types 0x01 and 0x04) or the PKIX DER
	// (type 0x02).
	Key []byte
	// Text is the vkey as written.
	Text string
}

// Fingerprint is the lowercase hex SHA-256 of the key's SPKI DER: for an
// Ed25519 key the 44-byte SPKI mcpres uses everywhere (DESIGN §5), for an
// ECDSA key its DER as given. Witnesses are counted by fingerprint.
func (k VKey) Fingerprint() string {
	if k.Type == KeyTypeECDSA {
		return hexSHA256(k.Key)
	}
	return hexSHA256(append([]byte(ed25519SPKIPrefix), k.Key...))
}

// ed25519SPKIPrefix is the DER prefix of an Ed25519 SubjectPublicKeyInfo.
const ed25519SPKIPrefix = "\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00"

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ParseVKey parses a verifier key strictly: a valid note name (non-empty
// UTF-8 without spaces or "+"), 8 lowercase hex digits of key hash,
// canonical padded base64, a supported type, and a hash that matches the
// key (SHA-256(NAME ‖ "\n" ‖ TYPE ‖ KEY)[:4] for types 0x01 and 0x04,
// SHA-256(DER)[:4] for type 0x02). An Ed25519 key must be a canonical
// point encoding that is not of small order: Go's crypto/ed25519.Verify
// accepts a forged signature under a small-order key for every message.
func ParseVKey(s string) (VKey, error) {
	name, rest, ok1 := strings.Cut(s, "+")
	hash16, b64, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 {
		return VKey{}, fmt.Errorf("vkey %q: want NAME+HASH+BASE64", truncate(s, 64))
	}
	if !validNoteName(name) {
		return VKey{}, fmt.Errorf("vkey name %q is empty or has spaces or \"+\"", truncate(name, 64))
	}
	if len(hash16) != 8 || strings.Trim(hash16, "0123456789abcdef") != "" {
		return VKey{}, fmt.Errorf("vkey %q: hash %q is not 8 lowercase hex digits", name, truncate(hash16, 16))
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != b64 || len(raw) < 2 {
		return VKey{}, fmt.Errorf("vkey %q: key is not canonical padded base64 of a type byte and a key", name)
	}
	k := VKey{Name: name, Type: raw[0], Key: bytes.Clone(raw[1:]), Text: s}
	switch k.Type {
	case KeyTypeEd25519, KeyTypeCosignatureV1:
		if err := checkEd25519Key(k.Key); err != nil {
			return VKey{}, fmt.Errorf("vkey %q: %w", name, err)
		}
		k.Hash = noteKeyHash(name, raw)
	case KeyTypeECDSA:
		sum := sha256.Sum256(k.Key)
		k.Hash = binary.BigEndian.Uint32(sum[:])
	default:
		return VKey{}, fmt.Errorf("vkey %q: key type 0x%02x is not supported (want 0x01 Ed25519, 0x02 ECDSA or 0x04 cosignature/v1)", name, k.Type)
	}
	if got, _ := strconv.ParseUint(hash16, 16, 32); uint32(got) != k.Hash {
		return VKey{}, fmt.Errorf("vkey %q: hash %s does not match the key (want %08x)", name, hash16, k.Hash)
	}
	return k, nil
}

// noteKeyHash is the signed-note key hash of name and typed key bytes.
func noteKeyHash(name string, typedKey []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte("\n"))
	h.Write(typedKey)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// FormatVKey returns the vkey of a 32-byte Ed25519 key of type
// [KeyTypeEd25519] or [KeyTypeCosignatureV1] under name.
func FormatVKey(name string, typ byte, pub ed25519.PublicKey) string {
	typed := append([]byte{typ}, pub...)
	return fmt.Sprintf("%s+%08x+%s", name, noteKeyHash(name, typed), base64.StdEncoding.EncodeToString(typed))
}

// validNoteName is sumdb/note's rule for key and signature names.
func validNoteName(name string) bool {
	return name != "" && utf8.ValidString(name) && strings.IndexFunc(name, unicode.IsSpace) < 0 && !strings.Contains(name, "+")
}

// smallOrderEncodings are the canonical encodings of the eight Ed25519
// points whose order divides 8 (the list of attest.CheckEd25519PublicKey,
// which this package cannot import: attest links net).
const smallOrderEncodings = "" +
	"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\xec\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80" +
	"\x26\xe8\x95\x8f\xc2\xb2\x27\xb0\x45\xc3\xf4\x89\xf2\xef\x98\xf0\xd5\xdf\xac\x05\xd3\xc6\x33\x39\xb1\x38\x02\x88\x6d\x53\xfc\x05" +
	"\x26\xe8\x95\x8f\xc2\xb2\x27\xb0\x45\xc3\xf4\x89\xf2\xef\x98\xf0\xd5\xdf\xac\x05\xd3\xc6\x33\x39\xb1\x38\x02\x88\x6d\x53\xfc\x85" +
	"\xc7\x17\x6a\x70\x3d\x4d\xd8\x4f\xba\x3c\x0b\x76\x0d\x10\x67\x0f\x2a\x20\x53\xfa\x2c\x39\xcc\xc6\x4e\xc7\xfd\x77\x92\xac\x03\x7a" +
	"\xc7\x17\x6a\x70\x3d\x4d\xd8\x4f\xba\x3c\x0b\x76\x0d\x10\x67\x0f\x2a\x20\x53\xfa\x2c\x39\xcc\xc6\x4e\xc7\xfd\x77\x92\xac\x03\xfa"

// checkEd25519Key rejects a key that is not 32 bytes, not a canonical
// encoding (y ≥ p) or of small order. A key off the curve never verifies
// with crypto/ed25519, so it needs no check here.
func checkEd25519Key(k []byte) error {
	if len(k) != ed25519.PublicKeySize {
		return fmt.Errorf("Ed25519 key is %d bytes, want %d", len(k), ed25519.PublicKeySize)
	}
	for i := 0; i < len(smallOrderEncodings); i += 32 {
		if string(k) == smallOrderEncodings[i:i+32] {
			return fmt.Errorf("Ed25519 key is a small-order point")
		}
	}
	if k[31]&0x7f == 0x7f && k[0] >= 0xed && strings.Trim(string(k[1:31]), "\xff") == "" {
		return fmt.Errorf("Ed25519 key is not a canonical point encoding (y ≥ p)")
	}
	return nil
}

// cosignatureV1Verifier verifies C2SP cosignature/v1 Ed25519 signatures:
// a signature line's bytes are an 8-byte big-endian timestamp T and an
// Ed25519 signature over "cosignature/v1\ntime T\n" followed by the note
// text. It matches transparency-dev/formats' NewVerifierForCosignatureV1
// (offline_test.go checks both ways) without linking formats/note, which
// imports crypto/x509 and so the net package.
type cosignatureV1Verifier struct {
	name string
	hash uint32
	key  ed25519.PublicKey
}

func (v *cosignatureV1Verifier) Name() string    { return v.name }
func (v *cosignatureV1Verifier) KeyHash() uint32 { return v.hash }

func (v *cosignatureV1Verifier) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize || bytes.Count(msg, []byte("\n")) < 2 {
		return false
	}
	m := fmt.Appendf(nil, "cosignature/v1\ntime %d\n", binary.BigEndian.Uint64(sig))
	return ed25519.Verify(v.key, append(m, msg...), sig[8:])
}

// truncate shortens s to at most n bytes for a message, on a character
// boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
