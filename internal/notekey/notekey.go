// Package notekey handles the Ed25519 signed-note keys of transparency logs
// and of their witnesses (C2SP signed-note, tlog-checkpoint,
// tlog-cosignature):
//
//   - a log key, type 0x01, signs checkpoints: the Ed25519 keys of
//     golang.org/x/mod/sumdb/note, the log's origin is the key's name;
//   - a witness key, type 0x04, cosigns checkpoints with timestamped
//     cosignature/v1 signatures (transparency-dev/formats' note package
//     reads and writes the same keys and signatures).
//
// # Key encodings
//
// A private key ("skey") is the text
//
//	PRIVATE+KEY+NAME+HASH+BASE64(TYPE ‖ SEED)
//
// and the matching verifier key ("vkey")
//
//	NAME+HASH+BASE64(TYPE ‖ PUB)
//
// where SEED is the 32-byte Ed25519 seed, PUB the 32-byte public key, TYPE
// one byte, and HASH eight lowercase hex digits of the first four bytes
// (big-endian) of SHA-256(NAME ‖ "\n" ‖ TYPE ‖ PUB). NAME is non-empty
// UTF-8 with no space and no "+". These are the strings note.GenerateKey
// produces for type 0x01; key files hold one of them and a final newline.
//
// Parsing is strict: one encoding per key (lowercase hash, canonical padded
// base64), the hash must match the key, and public keys must pass
// attest.CheckEd25519PublicKey (no small-order or non-canonical point). No
// message ever contains private key material.
//
// # Signatures
//
// A log signature (type 0x01) is a plain Ed25519 signature of the note
// text. A cosignature/v1 signature (type 0x04) is 8 bytes of big-endian
// timestamp T (seconds since the Unix epoch) followed by the Ed25519
// signature of
//
//	"cosignature/v1\ntime " ‖ decimal(T) ‖ "\n" ‖ TEXT
//
// where TEXT is the checkpoint body (at least three lines). The witness
// asserts append-only observation of the first three lines (origin, size,
// root hash) only. Verification here uses attest.VerifyEd25519, which is
// stricter than crypto/ed25519.Verify (used by sumdb/note and formats): it
// rejects small-order keys and R points and non-canonical encodings.
//
// The package reads no clock: a cosignature's timestamp is an argument
// ([Cosigner.At]).
package notekey

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"golang.org/x/mod/sumdb/note"
)

// Key types (the first byte of the encoded key).
const (
	// TypeEd25519 is an Ed25519 signed-note key: a log's checkpoint key.
	TypeEd25519 byte = 0x01
	// TypeCosignatureV1 is an Ed25519 cosignature/v1 key: a witness key.
	TypeCosignatureV1 byte = 0x04
)

// CosignatureSize is the size of a cosignature/v1 signature: an 8-byte
// timestamp and a 64-byte Ed25519 signature.
const CosignatureSize = 8 + ed25519.SignatureSize

// MaxNameBytes is the longest key name accepted. Names are log origins and
// witness names; C2SP does not bound them, 256 bytes is far more than any
// real one.
const MaxNameBytes = 256

// errPrivateKey is the one message for every malformed private key: its
// content must never be quoted.
var errPrivateKey = errors.New("malformed private key (want PRIVATE+KEY+NAME+HASH+BASE64)")

// TypeName describes a key type for messages.
func TypeName(t byte) string {
	switch t {
	case TypeEd25519:
		return "Ed25519 log key"
	case TypeCosignatureV1:
		return "cosignature/v1 witness key"
	}
	return "unsupported key type"
}

// checkName applies the signed-note name rules.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("key name is empty")
	case len(name) > MaxNameBytes:
		return fmt.Errorf("key name is %d bytes, more than %d", len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return errors.New("key name is not valid UTF-8")
	case strings.IndexFunc(name, unicode.IsSpace) >= 0 || strings.Contains(name, "+"):
		return fmt.Errorf("key name %q contains a space or a \"+\"", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("key name %q contains a control character", name)
		}
	}
	return nil
}

// keyHash is the signed-note key hash of name and the typed public key.
func keyHash(name string, typ byte, pub []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte("\n"))
	h.Write([]byte{typ})
	h.Write(pub)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// FormatVerifierKey returns the vkey of pub with type typ under name.
func FormatVerifierKey(name string, typ byte, pub ed25519.PublicKey) string {
	typed := append([]byte{typ}, pub...)
	return fmt.Sprintf("%s+%08x+%s", name, keyHash(name, typ, pub), base64.StdEncoding.EncodeToString(typed))
}

func formatPrivateKey(name string, typ byte, priv ed25519.PrivateKey) string {
	pub := priv.Public().(ed25519.PublicKey)
	typed := append([]byte{typ}, priv.Seed()...)
	return fmt.Sprintf("PRIVATE+KEY+%s+%08x+%s", name, keyHash(name, typ, pub), base64.StdEncoding.EncodeToString(typed))
}

// GenerateKey returns a new key pair of type typ ([TypeEd25519] or
// [TypeCosignatureV1]) named name, as skey and vkey texts (without a final
// newline). It reads the 32-byte seed from rand, so a fixed reader gives a
// fixed key. For TypeEd25519 the result is what note.GenerateKey returns.
func GenerateKey(rand io.Reader, typ byte, name string) (skey, vkey string, err error) {
	if typ != TypeEd25519 && typ != TypeCosignatureV1 {
		return "", "", fmt.Errorf("key type 0x%02x is not supported", typ)
	}
	if err := checkName(name); err != nil {
		return "", "", err
	}
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return "", "", err
	}
	if err := attest.CheckEd25519PublicKey(pub); err != nil {
		// Not reachable with a real random source: a seed whose key is
		// a small-order point would need a hash collision.
		return "", "", err
	}
	return formatPrivateKey(name, typ, priv), FormatVerifierKey(name, typ, pub), nil
}

// parsePrivate parses an skey strictly and returns its parts.
func parsePrivate(skey string) (name string, typ byte, priv ed25519.PrivateKey, err error) {
	rest, ok := strings.CutPrefix(skey, "PRIVATE+KEY+")
	if !ok {
		return "", 0, nil, errPrivateKey
	}
	name, rest, ok1 := strings.Cut(rest, "+")
	hash, b64, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 {
		return "", 0, nil, errPrivateKey
	}
	if err := checkName(name); err != nil {
		return "", 0, nil, fmt.Errorf("private key: %w", err)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != b64 || len(raw) != 1+ed25519.SeedSize {
		return "", 0, nil, errPrivateKey
	}
	typ = raw[0]
	if typ != TypeEd25519 && typ != TypeCosignatureV1 {
		return "", 0, nil, fmt.Errorf("private key %q: key type 0x%02x is not supported (want 0x01 or 0x04)", name, typ)
	}
	priv = ed25519.NewKeyFromSeed(raw[1:])
	pub := priv.Public().(ed25519.PublicKey)
	if len(hash) != 8 || hash != fmt.Sprintf("%08x", keyHash(name, typ, pub)) {
		return "", 0, nil, fmt.Errorf("private key %q: the key hash is not 8 lowercase hex digits or does not match the key", name)
	}
	if err := attest.CheckEd25519PublicKey(pub); err != nil {
		return "", 0, nil, fmt.Errorf("private key %q: %w", name, err)
	}
	return name, typ, priv, nil
}

// A Verifier is a strict note.Verifier for one Ed25519 log key or witness
// key.
type Verifier struct {
	name string
	typ  byte
	hash uint32
	pub  ed25519.PublicKey
}

var _ note.Verifier = (*Verifier)(nil)

// ParseVerifier parses a vkey of either type strictly.
func ParseVerifier(vkey string) (*Verifier, error) {
	name, rest, ok1 := strings.Cut(vkey, "+")
	hash, b64, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 {
		return nil, errors.New("malformed verifier key (want NAME+HASH+BASE64)")
	}
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("verifier key: %w", err)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != b64 {
		return nil, fmt.Errorf("verifier key %q: the key is not canonical padded base64", name)
	}
	if len(raw) != 1+ed25519.PublicKeySize {
		return nil, fmt.Errorf("verifier key %q: the key is %d bytes, want %d (a type byte and a 32-byte Ed25519 key)", name, len(raw), 1+ed25519.PublicKeySize)
	}
	typ, pub := raw[0], ed25519.PublicKey(bytes.Clone(raw[1:]))
	if typ != TypeEd25519 && typ != TypeCosignatureV1 {
		return nil, fmt.Errorf("verifier key %q: key type 0x%02x is not supported (want 0x01 Ed25519 or 0x04 cosignature/v1)", name, typ)
	}
	want := keyHash(name, typ, pub)
	if len(hash) != 8 || hash != fmt.Sprintf("%08x", want) {
		return nil, fmt.Errorf("verifier key %q: hash %q is not %08x, the hash of the key", name, hash, want)
	}
	if err := attest.CheckEd25519PublicKey(pub); err != nil {
		return nil, fmt.Errorf("verifier key %q: %w", name, err)
	}
	return &Verifier{name: name, typ: typ, hash: want, pub: pub}, nil
}

// ParseLogVerifier parses a log's vkey, which must have type 0x01.
func ParseLogVerifier(vkey string) (*Verifier, error) {
	return parseTyped(vkey, TypeEd25519)
}

// ParseWitnessVerifier parses a witness's vkey, which must have type 0x04.
func ParseWitnessVerifier(vkey string) (*Verifier, error) {
	return parseTyped(vkey, TypeCosignatureV1)
}

func parseTyped(vkey string, want byte) (*Verifier, error) {
	v, err := ParseVerifier(vkey)
	if err != nil {
		return nil, err
	}
	if v.typ != want {
		return nil, fmt.Errorf("verifier key %q is a %s (type 0x%02x), want a %s (type 0x%02x)", v.name, TypeName(v.typ), v.typ, TypeName(want), want)
	}
	return v, nil
}

// Name returns the key name: a log's origin, or a witness's name.
func (v *Verifier) Name() string { return v.name }

// KeyHash returns the signed-note key hash.
func (v *Verifier) KeyHash() uint32 { return v.hash }

// Type returns the key type, [TypeEd25519] or [TypeCosignatureV1].
func (v *Verifier) Type() byte { return v.typ }

// PublicKey returns a copy of the raw Ed25519 public key.
func (v *Verifier) PublicKey() ed25519.PublicKey { return bytes.Clone(v.pub) }

// Fingerprint returns the key fingerprint used everywhere in mcpres to
// count keys: the lowercase hex SHA-256 of the key's SPKI DER. It does not
// depend on the name or type, so one Ed25519 key under two names has one
// fingerprint.
func (v *Verifier) Fingerprint() string { return attest.KeyID(attest.MarshalSPKI(v.pub)) }

// String returns the vkey text.
func (v *Verifier) String() string { return FormatVerifierKey(v.name, v.typ, v.pub) }

// Verify reports whether sig is a valid signature of msg by this key: a
// plain Ed25519 signature for type 0x01, a cosignature/v1 signature for
// type 0x04.
func (v *Verifier) Verify(msg, sig []byte) bool {
	if v.typ == TypeCosignatureV1 {
		if len(sig) != CosignatureSize {
			return false
		}
		m, err := cosignedMessage(binary.BigEndian.Uint64(sig), msg)
		if err != nil {
			return false
		}
		return attest.VerifyEd25519(v.pub, m, sig[8:]) == nil
	}
	return attest.VerifyEd25519(v.pub, msg, sig) == nil
}

// cosignedMessage is the message a cosignature/v1 signature signs.
func cosignedMessage(t uint64, text []byte) ([]byte, error) {
	if bytes.Count(text, []byte("\n")) < 3 {
		return nil, errors.New("a cosigned note needs at least three lines (origin, size, root hash)")
	}
	m := make([]byte, 0, 32+len(text))
	m = append(m, "cosignature/v1\ntime "...)
	m = strconv.AppendUint(m, t, 10)
	m = append(m, '\n')
	return append(m, text...), nil
}

// CosignatureTime returns the timestamp of a cosignature/v1 signature as it
// appears in a note: sig is the decoded base64 of a signature line, a
// 4-byte key hash followed by the signature. It does not verify anything.
func CosignatureTime(sig note.Signature) (time.Time, error) {
	raw, err := base64.StdEncoding.Strict().DecodeString(sig.Base64)
	if err != nil || len(raw) != 4+CosignatureSize {
		return time.Time{}, fmt.Errorf("signature by %q is not a cosignature/v1 signature", sig.Name)
	}
	t := binary.BigEndian.Uint64(raw[4:])
	if t > 1<<62 {
		return time.Time{}, fmt.Errorf("signature by %q has timestamp %d, out of range", sig.Name, t)
	}
	return time.Unix(int64(t), 0).UTC(), nil
}

// A LogSigner signs checkpoints with a log key (type 0x01). It is a
// note.Signer, as Tessera's WithCheckpointSigner expects.
type LogSigner struct {
	name string
	hash uint32
	priv ed25519.PrivateKey
}

var _ note.Signer = (*LogSigner)(nil)

// ParseLogSigner parses a log's skey, which must have type 0x01.
func ParseLogSigner(skey string) (*LogSigner, error) {
	name, typ, priv, err := parsePrivate(skey)
	if err != nil {
		return nil, err
	}
	if typ != TypeEd25519 {
		return nil, fmt.Errorf("private key %q is a %s (type 0x%02x), want a %s (type 0x01)", name, TypeName(typ), typ, TypeName(TypeEd25519))
	}
	pub := priv.Public().(ed25519.PublicKey)
	return &LogSigner{name: name, hash: keyHash(name, typ, pub), priv: priv}, nil
}

// Name returns the key name, the log's origin.
func (s *LogSigner) Name() string { return s.name }

// KeyHash returns the signed-note key hash.
func (s *LogSigner) KeyHash() uint32 { return s.hash }

// Sign signs msg with Ed25519.
func (s *LogSigner) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.priv, msg), nil }

// Verifier returns the verifier of this key.
func (s *LogSigner) Verifier() *Verifier {
	return &Verifier{name: s.name, typ: TypeEd25519, hash: s.hash, pub: s.priv.Public().(ed25519.PublicKey)}
}

// A Cosigner holds a witness key (type 0x04).
type Cosigner struct {
	name string
	hash uint32
	priv ed25519.PrivateKey
}

// ParseCosigner parses a witness's skey, which must have type 0x04.
func ParseCosigner(skey string) (*Cosigner, error) {
	name, typ, priv, err := parsePrivate(skey)
	if err != nil {
		return nil, err
	}
	if typ != TypeCosignatureV1 {
		return nil, fmt.Errorf("private key %q is a %s (type 0x%02x), want a %s (type 0x04)", name, TypeName(typ), typ, TypeName(TypeCosignatureV1))
	}
	pub := priv.Public().(ed25519.PublicKey)
	return &Cosigner{name: name, hash: keyHash(name, typ, pub), priv: priv}, nil
}

// Name returns the witness name.
func (c *Cosigner) Name() string { return c.name }

// Verifier returns the verifier of this key.
func (c *Cosigner) Verifier() *Verifier {
	return &Verifier{name: c.name, typ: TypeCosignatureV1, hash: c.hash, pub: c.priv.Public().(ed25519.PublicKey)}
}

// At returns a note.Signer that makes cosignature/v1 signatures stamped
// with t (whole seconds; t must not precede the Unix epoch).
func (c *Cosigner) At(t time.Time) note.Signer { return &timedCosigner{c: c, t: t} }

type timedCosigner struct {
	c *Cosigner
	t time.Time
}

func (s *timedCosigner) Name() string    { return s.c.name }
func (s *timedCosigner) KeyHash() uint32 { return s.c.hash }

func (s *timedCosigner) Sign(msg []byte) ([]byte, error) {
	if s.t.Unix() < 0 {
		return nil, fmt.Errorf("cosignature time %s precedes the Unix epoch", s.t.UTC().Format(time.RFC3339))
	}
	t := uint64(s.t.Unix())
	m, err := cosignedMessage(t, msg)
	if err != nil {
		return nil, err
	}
	sig := binary.BigEndian.AppendUint64(make([]byte, 0, CosignatureSize), t)
	return append(sig, ed25519.Sign(s.c.priv, m)...), nil
}
