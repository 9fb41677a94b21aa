package signednote

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
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

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/truncate"
	"golang.org/x/mod/sumdb/note"
)

// Key types (the first byte of the encoded key).
const (
	// TypeEd25519 is an Ed25519 signed-note key: a log's checkpoint key.
	TypeEd25519 byte = 0x01
	// TypeECDSA is an ECDSA P-256/SHA-256 key in PKIX DER with the key hash
	// SHA-256(DER)[:4]: how Rekor v1 signs its checkpoints.
	TypeECDSA byte = 0x02
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

// p256SPKIPrefix is the DER prefix of a P-256 SubjectPublicKeyInfo with an
// uncompressed point: SEQUENCE (89 bytes) { SEQUENCE { OID ecPublicKey, OID
// prime256v1 }, BIT STRING (66 bytes, 0 unused bits) }, followed by 0x04 ‖
// X ‖ Y. It is the only encoding crypto/x509.MarshalPKIXPublicKey writes
// for such a key, so comparing it is the canonical-DER check without
// linking crypto/x509 (which imports net).
const p256SPKIPrefix = "\x30\x59\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x03\x42\x00"

// errPrivateKey is the one message for every malformed private key: its
// content must never be quoted.
var errPrivateKey = errors.New("malformed private key (want PRIVATE+KEY+NAME+HASH+BASE64)")

// TypeName describes a key type for messages.
func TypeName(t byte) string {
	switch t {
	case TypeEd25519:
		return "Ed25519 signed-note key"
	case TypeCosignatureV1:
		return "cosignature/v1 key"
	case TypeECDSA:
		return "ECDSA Rekor log key"
	}
	return "unsupported"
}

// checkType is the message of a key of another type than want.
func checkType(typ, want byte) error {
	if typ != want {
		return fmt.Errorf("key type 0x%02x (%s), want 0x%02x (%s)", typ, TypeName(typ), want, TypeName(want))
	}
	return nil
}

// CheckName applies the name rules of a key (and so of a log origin or a
// signature line): 1 to [MaxNameBytes] bytes of UTF-8 with no Unicode space,
// no "+" and no control character.
func CheckName(name string) error {
	switch {
	case name == "" || strings.IndexFunc(name, unicode.IsSpace) >= 0:
		return fmt.Errorf("name %q is empty or contains spaces", truncate.String(name, 128))
	case len(name) > MaxNameBytes:
		return fmt.Errorf("name %q is %d bytes, more than %d", truncate.String(name, 32), len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return fmt.Errorf("name %q is not valid UTF-8", truncate.String(name, 128))
	case strings.Contains(name, "+"):
		return fmt.Errorf("name %q contains a \"+\"", truncate.String(name, 128))
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("name %q contains a control character", truncate.String(name, 128))
	}
	return nil
}

// keyHash is the signed-note key hash of name and the typed key bytes.
func keyHash(name string, typ byte, key []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte("\n"))
	h.Write([]byte{typ})
	h.Write(key)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// ecdsaKeyHash is the key hash of an ECDSA key: SHA-256(DER)[:4].
func ecdsaKeyHash(der []byte) uint32 {
	sum := sha256.Sum256(der)
	return binary.BigEndian.Uint32(sum[:])
}

// FormatVerifierKey returns the vkey of the 32-byte Ed25519 key pub with
// type typ ([TypeEd25519] or [TypeCosignatureV1]) under name.
func FormatVerifierKey(name string, typ byte, pub ed25519.PublicKey) string {
	typed := append([]byte{typ}, pub...)
	return fmt.Sprintf("%s+%08x+%s", name, keyHash(name, typ, pub), base64.StdEncoding.EncodeToString(typed))
}

// FormatECDSAVerifierKey returns the type 0x02 vkey of an ECDSA key given
// as its PKIX DER, under name, with the key hash SHA-256(DER)[:4] (what
// transparency-dev/formats' NewECDSAVerifier reads). It does not check der:
// [ParseVerifier] does.
func FormatECDSAVerifierKey(name string, der []byte) string {
	return fmt.Sprintf("%s+%08x+%s", name, ecdsaKeyHash(der), base64.StdEncoding.EncodeToString(append([]byte{TypeECDSA}, der...)))
}

// FormatSignerKey returns the skey of the Ed25519 private key priv with
// type typ ([TypeEd25519] or [TypeCosignatureV1]) under name: what
// [GenerateKey] writes, and what sumdb/note's NewSigner (type 0x01) and
// formats' NewSignerForCosignatureV1 (type 0x04) read.
func FormatSignerKey(name string, typ byte, priv ed25519.PrivateKey) string {
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
	if err := CheckName(name); err != nil {
		return "", "", fmt.Errorf("key %w", err)
	}
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return "", "", err
	}
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		// Not reachable with a real random source: a seed whose key is
		// a small-order point would need a hash collision.
		return "", "", err
	}
	return FormatSignerKey(name, typ, priv), FormatVerifierKey(name, typ, pub), nil
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
	if err := CheckName(name); err != nil {
		return "", 0, nil, fmt.Errorf("private key %w", err)
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
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		return "", 0, nil, fmt.Errorf("private key %q: %w", name, err)
	}
	return name, typ, priv, nil
}

// A Verifier is a parsed verifier key, and a strict note.Verifier for it.
// Its zero value is not usable: get one from [ParseVerifier] or a signer.
type Verifier struct {
	name string
	typ  byte
	hash uint32
	pub  ed25519.PublicKey // types 0x01 and 0x04
	ec   *ecdsa.PublicKey  // type 0x02
	der  []byte            // type 0x02
	fp   string            // the fingerprint, computed once
}

func newEd25519Verifier(name string, typ byte, hash uint32, pub ed25519.PublicKey) *Verifier {
	return &Verifier{name: name, typ: typ, hash: hash, pub: pub, fp: ed25519strict.Fingerprint(pub)}
}

var _ note.Verifier = (*Verifier)(nil)

// ParseVerifier parses a vkey of any of the three types strictly (see the
// package documentation) and returns its verifier, or nil and an error
// that names the rule that failed, in this order: the NAME+HASH+BASE64
// shape, the name ([CheckName]), the hash's form (8 lowercase hex digits),
// canonical padded base64, for type 0x02 the canonical P-256 DER, else a
// 32-byte key and a supported type, the hash's value, and last
// ed25519strict.CheckPublicKey.
func ParseVerifier(vkey string) (*Verifier, error) {
	// The base64 may itself contain "+": split at the first two only.
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, fmt.Errorf("malformed vkey (want NAME+HASH+BASE64, got %d parts)", len(parts))
	}
	name, hash, b64 := parts[0], parts[1], parts[2]
	if err := CheckName(name); err != nil {
		return nil, fmt.Errorf("vkey %w", err)
	}
	qname := truncate.String(name, 128)
	if len(hash) != 8 || strings.Trim(hash, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("vkey %q: hash %q is not 8 lowercase hex digits", qname, truncate.String(hash, 16))
	}
	got, _ := strconv.ParseUint(hash, 16, 32)
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != b64 {
		return nil, fmt.Errorf("vkey %q: key is not canonical padded base64", qname)
	}
	if len(raw) > 1 && raw[0] == TypeECDSA {
		der := bytes.Clone(raw[1:])
		ec, ok := parseP256(der)
		if !ok {
			return nil, fmt.Errorf("vkey %q: type 0x02 key is not the PKIX DER of an ECDSA P-256 key", qname)
		}
		want := ecdsaKeyHash(der)
		if uint32(got) != want {
			return nil, fmt.Errorf("vkey %q: hash %s does not match the key (want %08x)", qname, hash, want)
		}
		return &Verifier{name: name, typ: TypeECDSA, hash: want, ec: ec, der: der, fp: ed25519strict.SPKIFingerprint(der)}, nil
	}
	if len(raw) != 1+ed25519.PublicKeySize {
		return nil, fmt.Errorf("vkey %q: key is %d bytes, want %d (a type byte and a 32-byte Ed25519 key)", qname, len(raw), 1+ed25519.PublicKeySize)
	}
	typ, pub := raw[0], ed25519.PublicKey(bytes.Clone(raw[1:]))
	if typ != TypeEd25519 && typ != TypeCosignatureV1 {
		return nil, fmt.Errorf("vkey %q: key type 0x%02x is not supported (want 0x01 Ed25519, 0x02 ECDSA or 0x04 cosignature/v1)", qname, typ)
	}
	want := keyHash(name, typ, pub)
	if uint32(got) != want {
		return nil, fmt.Errorf("vkey %q: hash %s does not match the key (want %08x)", qname, hash, want)
	}
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		return nil, fmt.Errorf("vkey %q: %w", qname, err)
	}
	return newEd25519Verifier(name, typ, want, pub), nil
}

// parseP256 reads the PKIX DER of an ECDSA P-256 key: exactly
// [p256SPKIPrefix] and an uncompressed point on the curve (not the point at
// infinity), which crypto/ecdsa checks.
func parseP256(der []byte) (*ecdsa.PublicKey, bool) {
	point, ok := bytes.CutPrefix(der, []byte(p256SPKIPrefix))
	if !ok || len(point) != 65 {
		return nil, false
	}
	ec, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	return ec, err == nil
}

// ParseLogVerifier parses a log's vkey, which must have type 0x01.
// (Package keyfile names another kind of key file given instead.)
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
	if err := v.CheckType(want); err != nil {
		return nil, fmt.Errorf("vkey %q: %w", truncate.String(v.name, 128), err)
	}
	return v, nil
}

// CheckType returns nil if the key has type want, else an error naming
// both: "key type 0x04 (cosignature/v1 key), want 0x01 (Ed25519
// signed-note key)".
func (v *Verifier) CheckType(want byte) error { return checkType(v.typ, want) }

// Name returns the key name: a log's origin, or a witness's name.
func (v *Verifier) Name() string { return v.name }

// KeyHash returns the signed-note key hash.
func (v *Verifier) KeyHash() uint32 { return v.hash }

// Type returns the key type: [TypeEd25519], [TypeECDSA] or
// [TypeCosignatureV1].
func (v *Verifier) Type() byte { return v.typ }

// PublicKey returns a copy of the raw Ed25519 public key, or nil for an
// ECDSA key.
func (v *Verifier) PublicKey() ed25519.PublicKey { return bytes.Clone(v.pub) }

// DER returns a copy of the PKIX DER of an ECDSA key, or nil for an
// Ed25519 key.
func (v *Verifier) DER() []byte { return bytes.Clone(v.der) }

// Fingerprint returns the key fingerprint used everywhere in mcpres to
// count keys: the lowercase hex SHA-256 of the key's SPKI DER
// (ed25519strict.SPKIFingerprint). It does not depend on the name or type,
// so one Ed25519 key under two names has one fingerprint.
// The zero Verifier, which holds no key, has the fingerprint "".
func (v *Verifier) Fingerprint() string { return v.fp }

// SameKey reports whether v and w hold the same key material, whatever
// their names and types.
func (v *Verifier) SameKey(w *Verifier) bool {
	return bytes.Equal(v.pub, w.pub) && bytes.Equal(v.der, w.der)
}

// String returns the vkey text.
func (v *Verifier) String() string {
	if v.typ == TypeECDSA {
		return FormatECDSAVerifierKey(v.name, v.der)
	}
	return FormatVerifierKey(v.name, v.typ, v.pub)
}

// Verify reports whether sig is a valid signature of msg by this key: a
// strict Ed25519 signature (ed25519strict.Verify) for type 0x01, an ASN.1
// ECDSA signature of SHA-256(msg) for type 0x02, a cosignature/v1
// signature for type 0x04.
func (v *Verifier) Verify(msg, sig []byte) bool {
	switch v.typ {
	case TypeCosignatureV1:
		if len(sig) != CosignatureSize {
			return false
		}
		m, err := cosignedMessage(binary.BigEndian.Uint64(sig), msg)
		if err != nil {
			return false
		}
		return ed25519strict.Verify(v.pub, m, sig[8:]) == nil
	case TypeECDSA:
		digest := sha256.Sum256(msg)
		return ecdsa.VerifyASN1(v.ec, digest[:], sig)
	}
	return ed25519strict.Verify(v.pub, msg, sig) == nil
}

// cosignedMessage is the message a cosignature/v1 signature signs. Like
// formats' formatEd25519CosignatureV1 it refuses a text of fewer than two
// lines.
func cosignedMessage(t uint64, text []byte) ([]byte, error) {
	if bytes.Count(text, []byte("\n")) < 2 {
		return nil, errors.New("a cosigned note needs at least two lines")
	}
	m := make([]byte, 0, 32+len(text))
	m = append(m, "cosignature/v1\ntime "...)
	m = strconv.AppendUint(m, t, 10)
	m = append(m, '\n')
	return append(m, text...), nil
}

// CosignatureTimestamp returns the timestamp T of a cosignature/v1
// signature as it appears in a note (sig.Base64 is a 4-byte key hash
// followed by the signature) as written: seconds since the Unix epoch,
// not range-checked. It does not verify anything.
func CosignatureTimestamp(sig note.Signature) (uint64, error) {
	raw, err := base64.StdEncoding.Strict().DecodeString(sig.Base64)
	if err != nil || len(raw) != 4+CosignatureSize {
		return 0, fmt.Errorf("signature by %q is not a cosignature/v1 signature", sig.Name)
	}
	return binary.BigEndian.Uint64(raw[4:]), nil
}

// A signerKey is an Ed25519 signed-note key that signs: a parsed skey,
// or a name given to a crypto.Signer (a token, an agent). It is what
// LogSigner and WitnessSigner hold.
type signerKey struct {
	name   string
	hash   uint32
	pub    ed25519.PublicKey
	signer crypto.Signer
}

// SignerKeyType returns the key type of skey, a signed-note private key
// that parses strictly (the rules of [ParseLogSigner] and
// [ParseWitnessSigner] but the type check), and whether it does. Nothing
// of the key is kept.
func SignerKeyType(skey string) (byte, bool) {
	_, typ, priv, err := parsePrivate(skey)
	clear(priv)
	return typ, err == nil
}

// parseSignerKey parses an skey, which must have type want.
func parseSignerKey(skey string, want byte) (signerKey, error) {
	name, typ, priv, err := parsePrivate(skey)
	if err != nil {
		return signerKey{}, err
	}
	if err := checkType(typ, want); err != nil {
		clear(priv)
		return signerKey{}, fmt.Errorf("private key %q: %w", name, err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	return signerKey{name: name, hash: keyHash(name, typ, pub), pub: pub, signer: priv}, nil
}

// newSignerKey names the Ed25519 signer s name, as a key of type typ.
func newSignerKey(name string, typ byte, s crypto.Signer) (signerKey, error) {
	if err := CheckName(name); err != nil {
		return signerKey{}, fmt.Errorf("key %w", err)
	}
	pub, err := ed25519strict.SignerPublicKey(s)
	if err != nil {
		return signerKey{}, err
	}
	return signerKey{name: name, hash: keyHash(name, typ, pub), pub: pub, signer: s}, nil
}

// sign signs msg through ed25519strict.Sign: a signature that does not
// verify under the key (another key, Ed25519ph) is never returned.
func (k *signerKey) sign(msg []byte) ([]byte, error) {
	sig, err := ed25519strict.Sign(k.signer, msg)
	if err != nil {
		return nil, fmt.Errorf("signing as %q: %w", k.name, err)
	}
	return sig, nil
}

// A LogSigner signs checkpoints with a log key (type 0x01). It is a
// note.Signer, as Tessera's WithCheckpointSigner expects. Its signatures
// are made and checked by ed25519strict.Sign, so one that fails matches
// ed25519strict.ErrSigner.
type LogSigner struct{ signerKey }

var _ note.Signer = (*LogSigner)(nil)

// ParseLogSigner parses a log's skey, which must have type 0x01.
func ParseLogSigner(skey string) (*LogSigner, error) {
	k, err := parseSignerKey(skey, TypeEd25519)
	if err != nil {
		return nil, err
	}
	return &LogSigner{k}, nil
}

// NewLogSigner returns the log signer of the log whose origin is origin
// and whose key is held by s: an Ed25519 crypto.Signer (Public() an
// ed25519.PublicKey that passes ed25519strict.CheckPublicKey), such as
// package keyref's keys in a PKCS#11 token or an ssh-agent. The origin
// follows the rules of [CheckName].
func NewLogSigner(origin string, s crypto.Signer) (*LogSigner, error) {
	k, err := newSignerKey(origin, TypeEd25519, s)
	if err != nil {
		return nil, err
	}
	return &LogSigner{k}, nil
}

// Name returns the key name, the log's origin.
func (s *LogSigner) Name() string { return s.name }

// KeyHash returns the signed-note key hash.
func (s *LogSigner) KeyHash() uint32 { return s.hash }

// Sign signs msg with Ed25519 (ed25519strict.Sign).
func (s *LogSigner) Sign(msg []byte) ([]byte, error) { return s.sign(msg) }

// Signer returns the Ed25519 crypto.Signer that holds the key.
func (s *LogSigner) Signer() crypto.Signer { return s.signer }

// Verifier returns the verifier of this key.
func (s *LogSigner) Verifier() *Verifier {
	return newEd25519Verifier(s.name, TypeEd25519, s.hash, s.pub)
}

// A WitnessSigner holds a witness key (type 0x04).
type WitnessSigner struct{ signerKey }

// ParseWitnessSigner parses a witness's skey, which must have type 0x04.
func ParseWitnessSigner(skey string) (*WitnessSigner, error) {
	k, err := parseSignerKey(skey, TypeCosignatureV1)
	if err != nil {
		return nil, err
	}
	return &WitnessSigner{k}, nil
}

// NewWitnessSigner returns the witness signer of the witness named name
// whose key is held by s (see [NewLogSigner]).
func NewWitnessSigner(name string, s crypto.Signer) (*WitnessSigner, error) {
	k, err := newSignerKey(name, TypeCosignatureV1, s)
	if err != nil {
		return nil, err
	}
	return &WitnessSigner{k}, nil
}

// Name returns the witness name.
func (c *WitnessSigner) Name() string { return c.name }

// Signer returns the Ed25519 crypto.Signer that holds the key.
func (c *WitnessSigner) Signer() crypto.Signer { return c.signer }

// Verifier returns the verifier of this key.
func (c *WitnessSigner) Verifier() *Verifier {
	return newEd25519Verifier(c.name, TypeCosignatureV1, c.hash, c.pub)
}

// At returns a note.Signer that makes cosignature/v1 signatures stamped
// with t (whole seconds; t must not precede the Unix epoch).
func (c *WitnessSigner) At(t time.Time) note.Signer { return &timedWitnessSigner{c: c, t: t} }

type timedWitnessSigner struct {
	c *WitnessSigner
	t time.Time
}

func (s *timedWitnessSigner) Name() string    { return s.c.name }
func (s *timedWitnessSigner) KeyHash() uint32 { return s.c.hash }

func (s *timedWitnessSigner) Sign(msg []byte) ([]byte, error) {
	if s.t.Unix() < 0 {
		return nil, fmt.Errorf("cosignature time %s precedes the Unix epoch", s.t.UTC().Format(time.RFC3339))
	}
	t := uint64(s.t.Unix())
	m, err := cosignedMessage(t, msg)
	if err != nil {
		return nil, err
	}
	sig, err := s.c.sign(m)
	if err != nil {
		return nil, err
	}
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, CosignatureSize), t), sig...), nil
}
