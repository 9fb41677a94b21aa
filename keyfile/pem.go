package keyfile

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/truncate"
	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
)

// MaxBytes bounds a PEM key file: a key is well under 1 KiB (an
// encrypted one about 700 bytes); readers refuse a larger file unread.
const MaxBytes = 64 << 10

// PEM block types of the key files this package reads and writes.
const (
	// PEMTypePrivateKey is an unencrypted PKCS#8 private key.
	PEMTypePrivateKey = "PRIVATE KEY"
	// PEMTypePublicKey is a DER SubjectPublicKeyInfo.
	PEMTypePublicKey = "PUBLIC KEY"
	// PEMTypeEncryptedSigstore is a private key encrypted the way cosign
	// and sigstore do it: the block's bytes are the JSON container of
	// go-securesystemslib's encrypted package (scrypt key derivation, NaCl
	// secretbox) whose plaintext is the PKCS#8 DER.
	PEMTypeEncryptedSigstore = "ENCRYPTED SIGSTORE PRIVATE KEY"
	// PEMTypeEncryptedCosign is the older name cosign gave the same format;
	// it is read but never written.
	PEMTypeEncryptedCosign = "ENCRYPTED COSIGN PRIVATE KEY"
)

// Errors of the key-file functions. They are returned wrapped with details;
// test with errors.Is. No message ever contains key material, the PEM body
// or a passphrase.
var (
	// ErrInvalidPEM: the data is not exactly one PEM block, optionally
	// surrounded by whitespace.
	ErrInvalidPEM = errors.New("invalid PEM key file")
	// ErrUnsupportedKeyFormat: a PEM block or container this package does
	// not read (OpenSSH, PKCS#8 EncryptedPrivateKeyInfo, a public key where
	// a private key is wanted, PEM headers...).
	ErrUnsupportedKeyFormat = errors.New("unsupported key format")
	// ErrUnsupportedKeyType: a well-formed key of another algorithm than
	// Ed25519; the message names the algorithm.
	ErrUnsupportedKeyType = errors.New("unsupported key type")
	// ErrMalformedKey: the key encoding is damaged (bad PKCS#8 DER, bad
	// encrypted container, inconsistent key halves).
	ErrMalformedKey = errors.New("malformed key")
	// ErrPassphraseRequired: the private key is encrypted and no passphrase
	// function was given.
	ErrPassphraseRequired = errors.New("private key is encrypted and no passphrase was supplied")
	// ErrIncorrectPassphrase: decryption failed; the passphrase is wrong or
	// the ciphertext was altered (the two cannot be told apart).
	ErrIncorrectPassphrase = errors.New("cannot decrypt private key: wrong passphrase or corrupted key")
	// ErrEmptyPassphrase: encrypting with an empty passphrase was requested.
	ErrEmptyPassphrase = errors.New("refusing to encrypt a private key with an empty passphrase")
)

// GenerateKey returns a new Ed25519 private key whose 32-byte seed is read
// from rand; a nil rand means crypto/rand. With a fixed reader the result is
// deterministic (tests only).
func GenerateKey(rand io.Reader) (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return nil, fmt.Errorf("generating Ed25519 key: %w", err)
	}
	return priv, nil
}

// MarshalPrivateKeyPEM returns priv as an unencrypted PKCS#8 PEM block of
// type [PEMTypePrivateKey], the format openssl and cosign's unencrypted
// import read. priv must be 64 bytes whose second half is the public key of
// the first (the seed), else the error wraps [ErrMalformedKey]. Write the
// result with mode 0600.
func MarshalPrivateKeyPEM(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := marshalPKCS8(priv)
	if err != nil {
		return nil, err
	}
	defer clear(der)
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypePrivateKey, Bytes: der}), nil
}

// MarshalEncryptedPrivateKeyPEM returns priv encrypted with passphrase in
// cosign's format: the PKCS#8 DER of priv is sealed by go-securesystemslib's
// encrypted.Encrypt (scrypt N=2^16, r=8, p=1, random 32-byte salt; NaCl
// secretbox with a random nonce) and the resulting JSON container is the
// body of a PEM block of type [PEMTypeEncryptedSigstore]. cosign reads the
// result, and [ParsePrivateKeyPEM] reads cosign's keys.
//
// An empty passphrase is refused with [ErrEmptyPassphrase] (it would only
// look protected; write an unencrypted key with mode 0600 instead). A
// malformed priv yields [ErrMalformedKey]. The passphrase is neither kept
// nor modified.
func MarshalEncryptedPrivateKeyPEM(priv ed25519.PrivateKey, passphrase []byte) ([]byte, error) {
	if len(passphrase) == 0 {
		return nil, ErrEmptyPassphrase
	}
	der, err := marshalPKCS8(priv)
	if err != nil {
		return nil, err
	}
	defer clear(der)
	sealed, err := encrypted.Encrypt(der, passphrase)
	if err != nil {
		// Only the random source or scrypt can fail here; neither error
		// carries the plaintext or the passphrase.
		return nil, fmt.Errorf("encrypting private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypeEncryptedSigstore, Bytes: sealed}), nil
}

// ParsePrivateKeyPEM reads an Ed25519 private key from data, which must hold
// exactly one PEM block (surrounding whitespace is allowed, other text is
// not; else [ErrInvalidPEM]) without PEM headers, of one of the types
//
//   - [PEMTypePrivateKey]: unencrypted PKCS#8;
//   - [PEMTypeEncryptedSigstore] or [PEMTypeEncryptedCosign]: cosign's
//     encrypted format (see [MarshalEncryptedPrivateKeyPEM]). passphrase is
//     called once to obtain the passphrase; if passphrase is nil the error
//     is [ErrPassphraseRequired], an error it returns is wrapped, and a
//     failed decryption yields [ErrIncorrectPassphrase]. An empty
//     passphrase is tried as given (cosign allows one).
//
// passphrase is not called for unencrypted keys; it may be nil then.
//
// A well-formed key of another algorithm fails with [ErrUnsupportedKeyType]
// and a message naming it ("private key is RSA, only Ed25519 is supported"),
// also for the PEM types "RSA PRIVATE KEY" and "EC PRIVATE KEY". Other
// formats ("OPENSSH PRIVATE KEY", the PKCS#8 "ENCRYPTED PRIVATE KEY", a
// "PUBLIC KEY", unknown types, any PEM header) fail with
// [ErrUnsupportedKeyFormat]; damaged encodings with [ErrMalformedKey].
//
// Another kind of key file — an Ed25519 public key, a signed-note key —
// fails with a *[KindError] (matching [ErrUnsupportedKeyFormat]) that says
// what it is.
//
// Error messages never contain key bytes, the PEM body or the passphrase.
// Intermediate copies of the DER are zeroed; the returned passphrase slice
// is left to the caller.
func ParsePrivateKeyPEM(data []byte, passphrase func() ([]byte, error)) (ed25519.PrivateKey, error) {
	block, err := decodeSinglePEM(data)
	if err != nil {
		return nil, otherKind(data, PEMPrivateKey, err)
	}
	defer clear(block.Bytes)
	if len(block.Headers) != 0 {
		return nil, fmt.Errorf("%w: PEM headers are not supported (legacy OpenSSL encryption?), use PKCS#8", ErrUnsupportedKeyFormat)
	}
	switch block.Type {
	case PEMTypePrivateKey:
		return parsePKCS8Ed25519(block.Bytes)
	case PEMTypeEncryptedSigstore, PEMTypeEncryptedCosign:
		der, err := decryptSigstore(block.Bytes, passphrase)
		if err != nil {
			return nil, err
		}
		defer clear(der)
		return parsePKCS8Ed25519(der)
	case "RSA PRIVATE KEY":
		return nil, fmt.Errorf("%w: private key is RSA, only Ed25519 is supported", ErrUnsupportedKeyType)
	case "EC PRIVATE KEY":
		return nil, fmt.Errorf("%w: private key is ECDSA, only Ed25519 is supported", ErrUnsupportedKeyType)
	case "OPENSSH PRIVATE KEY":
		return nil, fmt.Errorf("%w: OpenSSH private keys are not supported, use a PKCS#8 %q PEM block", ErrUnsupportedKeyFormat, PEMTypePrivateKey)
	case "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("%w: PKCS#8-encrypted keys are not supported, use %q (cosign's format) or an unencrypted %q",
			ErrUnsupportedKeyFormat, PEMTypeEncryptedSigstore, PEMTypePrivateKey)
	case PEMTypePublicKey:
		// Say which public key it is: the half of an Ed25519 pair, or a
		// key of another algorithm (which no private key of it could fix).
		if alg := describeSPKI(block.Bytes); alg != "" {
			return nil, fmt.Errorf("%w: PEM block is a public key (%s); a private key is needed here, and only Ed25519 keys are accepted", ErrUnsupportedKeyFormat, alg)
		}
		return nil, &KindError{Got: PEMPublicKey, Want: PEMPrivateKey, Err: ErrUnsupportedKeyFormat}
	default:
		return nil, fmt.Errorf("%w: PEM block type %q is not a supported private key type", ErrUnsupportedKeyFormat, truncate.String(block.Type, 64))
	}
}

// MarshalPublicKeyPEM returns pub as a PEM block of type [PEMTypePublicKey]
// holding the 44-byte SPKI DER of ed25519strict.MarshalSPKI. A pub that is not 32 bytes
// yields [ErrPublicKeySize].
func MarshalPublicKeyPEM(pub ed25519.PublicKey) ([]byte, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: got %d bytes, want %d", ed25519strict.ErrPublicKeySize, len(pub), ed25519.PublicKeySize)
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypePublicKey, Bytes: ed25519strict.MarshalSPKI(pub)}), nil
}

// ParsePublicKeyPEM reads an Ed25519 public key from data, which is either
// exactly one PEM block of type [PEMTypePublicKey] without headers, or the
// strict base64 (see [DecodeStrictBase64]) of the SPKI DER, as found in an
// envelope's publicKeySpkiBase64; surrounding whitespace is allowed in both
// forms. The DER must be the 44-byte layout of [ParseSPKI] (else
// [ErrInvalidSPKI], naming the algorithm of a well-formed non-Ed25519 key),
// and the key must pass ed25519strict.CheckPublicKey (a non-canonical,
// off-curve or small-order key could never verify a signature under
// ed25519strict.Verify, so it is rejected when loaded, with that function's
// error).
//
// Other failures: empty input, damaged PEM or text around the block
// ([ErrInvalidPEM]); bad base64 ([ErrInvalidBase64]); a PKCS#1
// "RSA PUBLIC KEY" ([ErrUnsupportedKeyType]); a private key, another PEM
// type or PEM headers ([ErrUnsupportedKeyFormat]). A private key given by
// mistake is reported without any of its content.
func ParsePublicKeyPEM(data []byte) (ed25519.PublicKey, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: no public key found (empty input)", ErrInvalidPEM)
	}
	var der []byte
	if bytes.HasPrefix(trimmed, []byte("-----BEGIN")) {
		block, err := decodeSinglePEM(trimmed)
		if err != nil {
			return nil, err
		}
		switch {
		case len(block.Headers) != 0:
			return nil, fmt.Errorf("%w: PEM headers are not supported", ErrUnsupportedKeyFormat)
		case block.Type == PEMTypePublicKey:
			der = block.Bytes
		case block.Type == "RSA PUBLIC KEY":
			return nil, fmt.Errorf("%w: public key is RSA, only Ed25519 is supported", ErrUnsupportedKeyType)
		case bytes.Contains([]byte(block.Type), []byte("PRIVATE KEY")):
			clear(block.Bytes)
			if err := otherKind(trimmed, PEMPublicKey, nil); err != nil {
				return nil, err // the private half of an Ed25519 key pair
			}
			return nil, fmt.Errorf("%w: PEM block is a private key, want a public key (%q)", ErrUnsupportedKeyFormat, PEMTypePublicKey)
		default:
			return nil, fmt.Errorf("%w: PEM block type %q is not %q", ErrUnsupportedKeyFormat, truncate.String(block.Type, 64), PEMTypePublicKey)
		}
	} else {
		var err error
		der, err = DecodeStrictBase64(string(trimmed))
		if err != nil {
			return nil, otherKind(data, PEMPublicKey, fmt.Errorf("public key is neither a PEM block nor base64 SPKI: %w", err))
		}
	}
	pub, err := ParseSPKI(der)
	if err != nil {
		return nil, err
	}
	if err := ed25519strict.CheckPublicKey(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

// otherKind is err, or a *KindError matching ErrUnsupportedKeyFormat when
// data is another kind of key file than want.
func otherKind(data []byte, want Kind, err error) error {
	var ke *KindError
	if errors.As(CheckKind(data, want), &ke) {
		ke.Err = ErrUnsupportedKeyFormat
		return ke
	}
	return err
}

// decodeSinglePEM returns the only PEM block of data. Whitespace may
// surround it; any other text before or after it, or a second block (even a
// damaged one, which pem.Decode would skip), is an error.
func decodeSinglePEM(data []byte) (*pem.Block, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch n := bytes.Count(trimmed, []byte("-----BEGIN ")); {
	case n == 0:
		return nil, fmt.Errorf("%w: no PEM block found", ErrInvalidPEM)
	case n > 1:
		return nil, fmt.Errorf("%w: %d PEM blocks, want one key per file", ErrInvalidPEM, n)
	}
	if !bytes.HasPrefix(trimmed, []byte("-----BEGIN ")) {
		return nil, fmt.Errorf("%w: text before the PEM block", ErrInvalidPEM)
	}
	block, rest := pem.Decode(trimmed)
	if block == nil {
		return nil, fmt.Errorf("%w: the PEM block is damaged (bad delimiters or base64)", ErrInvalidPEM)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		clear(block.Bytes)
		return nil, fmt.Errorf("%w: data after the PEM block", ErrInvalidPEM)
	}
	return block, nil
}

// marshalPKCS8 checks priv and returns its PKCS#8 DER.
func marshalPKCS8(priv ed25519.PrivateKey) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: Ed25519 private key is %d bytes, want %d", ErrMalformedKey, len(priv), ed25519.PrivateKeySize)
	}
	derived := ed25519.NewKeyFromSeed(priv.Seed())
	match := bytes.Equal(derived[ed25519.SeedSize:], priv[ed25519.SeedSize:])
	clear(derived)
	if !match {
		return nil, fmt.Errorf("%w: the public half of the Ed25519 private key does not match its seed", ErrMalformedKey)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedKey, err)
	}
	return der, nil
}

// parsePKCS8Ed25519 parses PKCS#8 DER and insists on Ed25519. The x509
// error texts it wraps carry lengths and object identifiers, never key
// bytes.
func parsePKCS8Ed25519(der []byte) (ed25519.PrivateKey, error) {
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: private key is not valid PKCS#8: %w", ErrMalformedKey, err)
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: private key is %s, only Ed25519 is supported", ErrUnsupportedKeyType, describeKey(key))
	}
	return priv, nil
}

// describeKey names the algorithm of a key parsed by crypto/x509.
func describeKey(key any) string {
	switch k := key.(type) {
	case *rsa.PublicKey, *rsa.PrivateKey:
		return "RSA"
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case *ecdh.PublicKey:
		return fmt.Sprint(k.Curve())
	case *ecdh.PrivateKey:
		return fmt.Sprint(k.Curve())
	case ed25519.PublicKey, ed25519.PrivateKey:
		return "Ed25519"
	default:
		return fmt.Sprintf("of an unsupported algorithm (%T)", key)
	}
}

// sigstoreContainer mirrors the JSON container of go-securesystemslib's
// encrypted package, so that its structure can be checked before the
// (expensive) key derivation and damage told apart from a wrong passphrase.
type sigstoreContainer struct {
	KDF struct {
		Name   string `json:"name"`
		Params struct {
			N int `json:"N"`
			R int `json:"r"`
			P int `json:"p"`
		} `json:"params"`
		Salt []byte `json:"salt"`
	} `json:"kdf"`
	Cipher struct {
		Name  string `json:"name"`
		Nonce []byte `json:"nonce"`
	} `json:"cipher"`
	Ciphertext []byte `json:"ciphertext"`
}

// decryptSigstore returns the plaintext of a cosign encrypted key container.
func decryptSigstore(container []byte, passphrase func() ([]byte, error)) ([]byte, error) {
	var c sigstoreContainer
	if err := json.Unmarshal(container, &c); err != nil {
		// The JSON error would quote bytes of the container: do not wrap it.
		return nil, fmt.Errorf("%w: the encrypted key container is not valid JSON", ErrMalformedKey)
	}
	if c.KDF.Name != "scrypt" || c.Cipher.Name != "nacl/secretbox" {
		return nil, fmt.Errorf("%w: the encrypted key container does not use scrypt and nacl/secretbox", ErrUnsupportedKeyFormat)
	}
	// The parameter sets encrypted.Decrypt accepts (Legacy, Standard, OWASP).
	switch p := c.KDF.Params; {
	case p.R == 8 && p.P == 1 && (p.N == 1<<15 || p.N == 1<<16 || p.N == 1<<17):
	default:
		return nil, fmt.Errorf("%w: unsupported scrypt parameters N=%d r=%d p=%d", ErrUnsupportedKeyFormat, p.N, p.R, p.P)
	}
	if len(c.Cipher.Nonce) != 24 {
		return nil, fmt.Errorf("%w: secretbox nonce is %d bytes, want 24", ErrMalformedKey, len(c.Cipher.Nonce))
	}
	if len(c.Ciphertext) < 16 {
		return nil, fmt.Errorf("%w: ciphertext is %d bytes, shorter than the 16-byte authenticator", ErrMalformedKey, len(c.Ciphertext))
	}
	if passphrase == nil {
		return nil, ErrPassphraseRequired
	}
	pass, err := passphrase()
	if err != nil {
		return nil, fmt.Errorf("reading passphrase: %w", err)
	}
	der, err := encrypted.Decrypt(container, pass)
	if err != nil {
		// The container was checked above, so what is left is the
		// authenticator: wrong passphrase or altered ciphertext.
		return nil, ErrIncorrectPassphrase
	}
	return der, nil
}
