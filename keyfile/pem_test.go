package keyfile

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/signednote"
	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
)

const (
	testPassphrase      = "correct horse battery staple"
	testWrongPassphrase = "Tr0ub4dor&3 is wrong"
	// pkcs8Ed25519Prefix is the DER of PKCS#8 v1 for Ed25519 up to the seed.
	pkcs8Ed25519Prefix = "302e020100300506032b657004220420"
)

func passphraseOf(s string) func() ([]byte, error) {
	return func() ([]byte, error) { return []byte(s), nil }
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// testOnlyEncryptedPEM builds a cosign-format key with the given scrypt
// strength (Legacy keeps the tests fast).
func testOnlyEncryptedPEM(t testing.TB, typ string, plaintext []byte, pass string, level encrypted.KDFParameterStrength) []byte {
	t.Helper()
	sealed, err := encrypted.EncryptWithCustomKDFParameters(plaintext, []byte(pass), level)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(typ, sealed)
}

// editContainer decodes the JSON container of an encrypted PEM key, lets f
// change it and re-encodes it.
func editContainer(t testing.TB, keyPEM []byte, f func(m map[string]any)) []byte {
	t.Helper()
	block, _ := pem.Decode(keyPEM)
	var m map[string]any
	if err := json.Unmarshal(block.Bytes, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(block.Type, out)
}

func pkcs8Of(t testing.TB, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestGenerateKey(t *testing.T) {
	seed := mustHex(testOnlySeedOneHex)
	priv, err := GenerateKey(bytes.NewReader(seed))
	if err != nil || !bytes.Equal(priv, testOnlyKeyOne()) {
		t.Fatalf("GenerateKey(fixed seed) = %x, %v; want the RFC 8032 key", priv, err)
	}
	priv, err = GenerateKey(nil)
	if err != nil || len(priv) != ed25519.PrivateKeySize {
		t.Fatalf("GenerateKey(nil) = %d bytes, %v", len(priv), err)
	}
	if _, err := GenerateKey(bytes.NewReader(seed[:31])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("GenerateKey(short reader) error = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestMarshalPrivateKeyPEMGolden(t *testing.T) {
	got, err := MarshalPrivateKeyPEM(testOnlyKeyOne())
	if err != nil {
		t.Fatal(err)
	}
	der := mustHex(pkcs8Ed25519Prefix + testOnlySeedOneHex)
	want := "-----BEGIN PRIVATE KEY-----\n" + base64.StdEncoding.EncodeToString(der) + "\n-----END PRIVATE KEY-----\n"
	if string(got) != want {
		t.Fatalf("MarshalPrivateKeyPEM =\n%s\nwant\n%s", got, want)
	}
	called := false
	priv, err := ParsePrivateKeyPEM(got, func() ([]byte, error) { called = true; return nil, nil })
	if err != nil || !bytes.Equal(priv, testOnlyKeyOne()) {
		t.Fatalf("ParsePrivateKeyPEM(round trip) = %v", err)
	}
	if called {
		t.Fatal("passphrase function called for an unencrypted key")
	}
	if _, err := ParsePrivateKeyPEM(got, nil); err != nil {
		t.Fatalf("ParsePrivateKeyPEM(unencrypted, nil passphrase) = %v", err)
	}
}

func TestMarshalPrivateKeyPEMRejectsMalformedKeys(t *testing.T) {
	inconsistent := bytes.Clone(testOnlyKeyOne())
	copy(inconsistent[32:], testOnlyKeyTwo()[32:])
	for name, priv := range map[string]ed25519.PrivateKey{
		"63 bytes":            testOnlyKeyOne()[:63],
		"seed only":           testOnlyKeyOne().Seed(),
		"nil":                 nil,
		"halves do not match": inconsistent,
	} {
		if _, err := MarshalPrivateKeyPEM(priv); !errors.Is(err, ErrMalformedKey) {
			t.Errorf("MarshalPrivateKeyPEM(%s) error = %v, want ErrMalformedKey", name, err)
		}
		if _, err := MarshalEncryptedPrivateKeyPEM(priv, []byte(testPassphrase)); !errors.Is(err, ErrMalformedKey) {
			t.Errorf("MarshalEncryptedPrivateKeyPEM(%s) error = %v, want ErrMalformedKey", name, err)
		}
	}
}

func TestEncryptedPrivateKeyRoundTrip(t *testing.T) {
	keyPEM, err := MarshalEncryptedPrivateKeyPEM(testOnlyKeyTwo(), []byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	block, rest := pem.Decode(keyPEM)
	if block == nil || len(rest) != 0 || block.Type != "ENCRYPTED SIGSTORE PRIVATE KEY" {
		t.Fatalf("MarshalEncryptedPrivateKeyPEM produced %q", keyPEM)
	}
	var c sigstoreContainer
	if err := json.Unmarshal(block.Bytes, &c); err != nil {
		t.Fatal(err)
	}
	if c.KDF.Name != "scrypt" || c.KDF.Params.N != 1<<16 || c.KDF.Params.R != 8 || c.KDF.Params.P != 1 ||
		len(c.KDF.Salt) != 32 || c.Cipher.Name != "nacl/secretbox" || len(c.Cipher.Nonce) != 24 {
		t.Fatalf("unexpected container parameters: %+v", c)
	}
	// The plaintext is the PKCS#8 DER, as cosign writes it.
	plain, err := encrypted.Decrypt(block.Bytes, []byte(testPassphrase))
	if err != nil || !bytes.Equal(plain, mustHex(pkcs8Ed25519Prefix+testOnlySeedTwoHex)) {
		t.Fatalf("container plaintext = %x, %v; want the PKCS#8 DER", plain, err)
	}
	calls := 0
	priv, err := ParsePrivateKeyPEM(keyPEM, func() ([]byte, error) { calls++; return []byte(testPassphrase), nil })
	if err != nil || !bytes.Equal(priv, testOnlyKeyTwo()) {
		t.Fatalf("ParsePrivateKeyPEM(encrypted) = %v", err)
	}
	if calls != 1 {
		t.Fatalf("passphrase function called %d times, want 1", calls)
	}
	if _, err := MarshalEncryptedPrivateKeyPEM(testOnlyKeyTwo(), nil); !errors.Is(err, ErrEmptyPassphrase) {
		t.Fatalf("MarshalEncryptedPrivateKeyPEM(empty passphrase) error = %v, want ErrEmptyPassphrase", err)
	}
}

// Keys written by cosign: same library call, under both PEM names, with
// every scrypt strength encrypted.Decrypt accepts, and with an empty
// passphrase (cosign allows COSIGN_PASSWORD="").
func TestParsePrivateKeyPEMReadsCosignKeys(t *testing.T) {
	der := pkcs8Of(t, testOnlyKeyOne())
	for _, tc := range []struct {
		name, typ, pass string
		level           encrypted.KDFParameterStrength
	}{
		{"sigstore legacy scrypt", "ENCRYPTED SIGSTORE PRIVATE KEY", testPassphrase, encrypted.Legacy},
		{"cosign legacy scrypt", "ENCRYPTED COSIGN PRIVATE KEY", testPassphrase, encrypted.Legacy},
		{"sigstore OWASP scrypt", "ENCRYPTED SIGSTORE PRIVATE KEY", testPassphrase, encrypted.OWASP},
		{"empty passphrase", "ENCRYPTED SIGSTORE PRIVATE KEY", "", encrypted.Legacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keyPEM := testOnlyEncryptedPEM(t, tc.typ, der, tc.pass, tc.level)
			priv, err := ParsePrivateKeyPEM(keyPEM, passphraseOf(tc.pass))
			if err != nil || !bytes.Equal(priv, testOnlyKeyOne()) {
				t.Fatalf("ParsePrivateKeyPEM = %v", err)
			}
		})
	}
}

// sharedEncrypted is one encrypted test key (legacy scrypt), built once.
var sharedEncrypted = sync.OnceValue(func() []byte {
	sealed, err := encrypted.EncryptWithCustomKDFParameters(mustHexBytes(pkcs8Ed25519Prefix+testOnlySeedOneHex), []byte(testPassphrase), encrypted.Legacy)
	if err != nil {
		panic(err)
	}
	return pemOf(PEMTypeEncryptedSigstore, sealed)
})

func mustHexBytes(s string) []byte { return mustHex(s) }

func TestParsePrivateKeyPEMErrors(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	xKey, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	goodDER := pkcs8Of(t, testOnlyKeyOne())
	goodPEM := pemOf("PRIVATE KEY", goodDER)
	enc := sharedEncrypted()
	errCallback := errors.New("terminal is not interactive")
	neverCalled := func() ([]byte, error) {
		t.Error("passphrase function called")
		return nil, nil
	}

	tests := []struct {
		name       string
		data       []byte
		passphrase func() ([]byte, error)
		want       error
		wantMsg    string
	}{
		{"empty input", nil, nil, ErrInvalidPEM, "no PEM block found"},
		{"not PEM", []byte("hello"), nil, ErrInvalidPEM, "no PEM block found"},
		{"text before the block", append([]byte("key:\n"), goodPEM...), nil, ErrInvalidPEM, "text before the PEM block"},
		{"two blocks", append(bytes.Clone(goodPEM), goodPEM...), nil, ErrInvalidPEM, "2 PEM blocks, want one key per file"},
		{"damaged block before a good one", append(bytes.Replace(bytes.Clone(goodPEM), []byte("MC4C"), []byte("MC!C"), 1), goodPEM...), nil,
			ErrInvalidPEM, "2 PEM blocks"},
		{"text after the block", append(bytes.Clone(goodPEM), "trailer"...), nil, ErrInvalidPEM, "data after the PEM block"},
		{"damaged base64", bytes.Replace(goodPEM, []byte("MC4C"), []byte("MC!C"), 1), nil, ErrInvalidPEM, "damaged"},
		{"PEM header", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: goodDER}), nil,
			ErrUnsupportedKeyFormat, "PEM headers are not supported"},

		{"RSA PKCS#8", pemOf("PRIVATE KEY", pkcs8Of(t, rsaKey)), nil, ErrUnsupportedKeyType, "private key is RSA, only Ed25519 is supported"},
		{"ECDSA PKCS#8", pemOf("PRIVATE KEY", pkcs8Of(t, ecKey)), nil, ErrUnsupportedKeyType, "private key is ECDSA P-256, only Ed25519 is supported"},
		{"X25519 PKCS#8", pemOf("PRIVATE KEY", pkcs8Of(t, xKey)), nil, ErrUnsupportedKeyType, "private key is X25519, only Ed25519 is supported"},
		{"RSA PKCS#1 block", pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), nil, ErrUnsupportedKeyType, "private key is RSA, only Ed25519 is supported"},
		{"SEC 1 EC block", pemOf("EC PRIVATE KEY", []byte{0x30, 0}), nil, ErrUnsupportedKeyType, "private key is ECDSA, only Ed25519 is supported"},
		{"encrypted RSA (cosign format)", testOnlyEncryptedPEM(t, PEMTypeEncryptedSigstore, pkcs8Of(t, rsaKey), testPassphrase, encrypted.Legacy),
			passphraseOf(testPassphrase), ErrUnsupportedKeyType, "private key is RSA, only Ed25519 is supported"},

		{"OpenSSH", pemOf("OPENSSH PRIVATE KEY", []byte("openssh-key-v1\x00")), nil, ErrUnsupportedKeyFormat, "OpenSSH private keys are not supported"},
		{"PKCS#8 encrypted", pemOf("ENCRYPTED PRIVATE KEY", []byte{0x30, 0}), nil, ErrUnsupportedKeyFormat, "PKCS#8-encrypted keys are not supported"},
		{"public key", pemOf("PUBLIC KEY", ed25519strict.MarshalSPKI(mustHex(testKeyOnePubHex))), nil, ErrUnsupportedKeyFormat, "this is a PEM public key; not a PEM private key"},
		{"ECDSA public key", pemOf("PUBLIC KEY", spkiOf(t, &ecKey.PublicKey)), nil, ErrUnsupportedKeyFormat, "PEM block is a public key (ECDSA P-256); a private key is needed here, and only Ed25519 keys are accepted"},
		{"X25519 public key", pemOf("PUBLIC KEY", spkiOf(t, xKey.Public())), nil, ErrUnsupportedKeyFormat, "(X25519); a private key is needed here, and only Ed25519 keys are accepted"},
		{"unknown type", pemOf("CERTIFICATE", []byte{1}), nil, ErrUnsupportedKeyFormat, `PEM block type "CERTIFICATE" is not a supported private key type`},
		{"signed-note log vkey", []byte(testOnlyLogVKey + "\n"), nil, ErrUnsupportedKeyFormat, "this is a signed-note log verifier key; not a PEM private key"},
		{"cosignature/v1 vkey", []byte(testOnlyWitnessVKey + "\n"), nil, ErrUnsupportedKeyFormat, "this is a cosignature/v1 witness verifier key"},
		{"base64 SPKI", []byte(testKeyOneSPKIB64), nil, ErrUnsupportedKeyFormat, "this is a PEM public key"},
		{"not a key at all", []byte("hello\n"), nil, ErrInvalidPEM, "no PEM block found"},

		{"truncated PKCS#8", pemOf("PRIVATE KEY", goodDER[:40]), nil, ErrMalformedKey, "private key is not valid PKCS#8"},
		{"Ed25519 PKCS#8 with a 31-byte seed", pemOf("PRIVATE KEY", mustHex("302d020100300506032b657004210420"+testOnlySeedOneHex[:62])), nil,
			ErrMalformedKey, "private key is not valid PKCS#8"},
		{"encrypted non-PKCS#8 plaintext", testOnlyEncryptedPEM(t, PEMTypeEncryptedSigstore, []byte("not der"), testPassphrase, encrypted.Legacy),
			passphraseOf(testPassphrase), ErrMalformedKey, "private key is not valid PKCS#8"},

		{"encrypted, no passphrase function", enc, nil, ErrPassphraseRequired, "no passphrase was supplied"},
		{"encrypted, passphrase function fails", enc, func() ([]byte, error) { return nil, errCallback }, errCallback, "reading passphrase: terminal is not interactive"},
		{"encrypted, wrong passphrase", enc, passphraseOf(testWrongPassphrase), ErrIncorrectPassphrase, "wrong passphrase or corrupted key"},
		{"encrypted, empty passphrase", enc, passphraseOf(""), ErrIncorrectPassphrase, "wrong passphrase or corrupted key"},
		{"encrypted, ciphertext altered", editContainer(t, enc, func(m map[string]any) {
			ct, _ := base64.StdEncoding.DecodeString(m["ciphertext"].(string))
			ct[len(ct)/2] ^= 1
			m["ciphertext"] = ct
		}), passphraseOf(testPassphrase), ErrIncorrectPassphrase, "wrong passphrase or corrupted key"},
		{"encrypted, salt altered", editContainer(t, enc, func(m map[string]any) {
			m["kdf"].(map[string]any)["salt"] = make([]byte, 32)
		}), passphraseOf(testPassphrase), ErrIncorrectPassphrase, "wrong passphrase or corrupted key"},
		{"encrypted, not JSON", pemOf(PEMTypeEncryptedSigstore, []byte("{not json")), neverCalled, ErrMalformedKey, "not valid JSON"},
		{"encrypted, huge scrypt N", editContainer(t, enc, func(m map[string]any) {
			m["kdf"].(map[string]any)["params"].(map[string]any)["N"] = 1 << 30
		}), neverCalled, ErrUnsupportedKeyFormat, "unsupported scrypt parameters N=1073741824 r=8 p=1"},
		{"encrypted, other KDF", editContainer(t, enc, func(m map[string]any) {
			m["kdf"].(map[string]any)["name"] = "argon2id"
		}), neverCalled, ErrUnsupportedKeyFormat, "does not use scrypt and nacl/secretbox"},
		{"encrypted, other cipher", editContainer(t, enc, func(m map[string]any) {
			m["cipher"].(map[string]any)["name"] = "aes-gcm"
		}), neverCalled, ErrUnsupportedKeyFormat, "does not use scrypt and nacl/secretbox"},
		{"encrypted, short nonce", editContainer(t, enc, func(m map[string]any) {
			m["cipher"].(map[string]any)["nonce"] = make([]byte, 12)
		}), neverCalled, ErrMalformedKey, "secretbox nonce is 12 bytes, want 24"},
		{"encrypted, short ciphertext", editContainer(t, enc, func(m map[string]any) {
			m["ciphertext"] = make([]byte, 15)
		}), neverCalled, ErrMalformedKey, "ciphertext is 15 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			priv, err := ParsePrivateKeyPEM(tt.data, tt.passphrase)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("ParsePrivateKeyPEM error = %v, want %v containing %q", err, tt.want, tt.wantMsg)
			}
			if priv != nil {
				t.Fatal("ParsePrivateKeyPEM returned a key with an error")
			}
		})
	}
}

// assertNoSecret fails if msg contains any secret, or any 12-byte window of
// one (so that neither a key nor a PEM line leaks in part).
func assertNoSecret(t *testing.T, context, msg string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if len(s) <= 12 {
			if strings.Contains(msg, s) {
				t.Fatalf("%s: error message %q contains a secret", context, msg)
			}
			continue
		}
		for i := 0; i+12 <= len(s); i++ {
			if strings.Contains(msg, s[i:i+12]) {
				t.Fatalf("%s: error message %q contains part of a secret (%q)", context, msg, s[i:i+12])
			}
		}
	}
}

// No error message contains key material, the PEM body or a passphrase
// (STYLE §4), whatever the corruption.
func TestPrivateKeyErrorsDoNotLeak(t *testing.T) {
	seed := mustHex(testOnlySeedOneHex)
	der := mustHex(pkcs8Ed25519Prefix + testOnlySeedOneHex)
	enc := sharedEncrypted()
	encBlock, _ := pem.Decode(enc)
	secrets := []string{
		string(seed), hex.EncodeToString(seed), strings.ToUpper(hex.EncodeToString(seed)),
		base64.StdEncoding.EncodeToString(seed), base64.StdEncoding.EncodeToString(der),
		string(der[16:]), base64.StdEncoding.EncodeToString(encBlock.Bytes), string(encBlock.Bytes),
		testPassphrase, testWrongPassphrase,
	}
	for _, line := range strings.Split(string(enc)+string(pemOf("PRIVATE KEY", der)), "\n") {
		if line != "" && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}

	var inputs [][]byte
	// Every byte of the PKCS#8 DER changed, and every truncation.
	for i := range der {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			inputs = append(inputs, pemOf("PRIVATE KEY", withByte(der, i, der[i]^x)))
		}
	}
	for n := 0; n < len(der); n++ {
		inputs = append(inputs, pemOf("PRIVATE KEY", der[:n]))
	}
	// Damaged PEM text: each body character replaced.
	good := pemOf("PRIVATE KEY", der)
	for i := len("-----BEGIN PRIVATE KEY-----\n"); i < len(good)-len("-----END PRIVATE KEY-----\n"); i++ {
		inputs = append(inputs, withByte(good, i, '!'))
	}
	// A damaged encrypted container (JSON truncated at every 7th byte).
	for n := 0; n < len(encBlock.Bytes); n += 7 {
		inputs = append(inputs, pemOf(PEMTypeEncryptedSigstore, encBlock.Bytes[:n]))
	}
	for i, in := range inputs {
		_, err := ParsePrivateKeyPEM(in, passphraseOf(testWrongPassphrase))
		if err != nil {
			assertNoSecret(t, fmt.Sprintf("input %d", i), err.Error(), secrets...)
		}
		if _, err := ParsePublicKeyPEM(in); err != nil {
			assertNoSecret(t, "public key parser", err.Error(), secrets...)
		}
	}

	// Wrong passphrase, altered ciphertext (these run scrypt; few cases).
	for name, in := range map[string][]byte{
		"wrong passphrase": enc,
		"altered ciphertext": editContainer(t, enc, func(m map[string]any) {
			ct, _ := base64.StdEncoding.DecodeString(m["ciphertext"].(string))
			ct[0] ^= 1
			m["ciphertext"] = ct
		}),
	} {
		_, err := ParsePrivateKeyPEM(in, passphraseOf(testWrongPassphrase))
		if !errors.Is(err, ErrIncorrectPassphrase) {
			t.Fatalf("%s: error = %v, want ErrIncorrectPassphrase", name, err)
		}
		assertNoSecret(t, name, err.Error(), secrets...)
	}
	// A private key handed to the public-key parser, as PEM and as base64.
	for _, in := range [][]byte{good, enc, []byte(base64.StdEncoding.EncodeToString(der))} {
		_, err := ParsePublicKeyPEM(in)
		if err == nil {
			t.Fatal("ParsePublicKeyPEM accepted a private key")
		}
		assertNoSecret(t, "private key as public key", err.Error(), secrets...)
	}
}

func TestPublicKeyPEM(t *testing.T) {
	pub := ed25519.PublicKey(mustHex(testKeyOnePubHex))
	got, err := MarshalPublicKeyPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	want := "-----BEGIN PUBLIC KEY-----\n" + testKeyOneSPKIB64 + "\n-----END PUBLIC KEY-----\n"
	if string(got) != want {
		t.Fatalf("MarshalPublicKeyPEM =\n%s\nwant\n%s", got, want)
	}
	for name, in := range map[string]string{
		"PEM":                     want,
		"PEM with whitespace":     "\n\n  " + want + "\n\n",
		"base64 SPKI":             testKeyOneSPKIB64,
		"base64 SPKI and newline": testKeyOneSPKIB64 + "\n",
		"base64 SPKI with CRLF":   "  " + testKeyOneSPKIB64 + "\r\n",
	} {
		parsed, err := ParsePublicKeyPEM([]byte(in))
		if err != nil || !bytes.Equal(parsed, pub) {
			t.Errorf("ParsePublicKeyPEM(%s) = %x, %v", name, parsed, err)
		}
	}
	if _, err := MarshalPublicKeyPEM(pub[:31]); !errors.Is(err, ed25519strict.ErrPublicKeySize) {
		t.Fatalf("MarshalPublicKeyPEM(31 bytes) error = %v, want ed25519strict.ErrPublicKeySize", err)
	}
}

// Signed-note verifier keys of fixed public seeds (0x51 and 0x52 repeated):
// what log keygen and witness keygen write, given to the PEM readers by
// mistake.
var (
	testOnlyLogVKey     = signednote.FormatVerifierKey("example.org/log", signednote.TypeEd25519, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x51}, 32)).Public().(ed25519.PublicKey))
	testOnlyWitnessVKey = signednote.FormatVerifierKey("example.org/w", signednote.TypeCosignatureV1, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x52}, 32)).Public().(ed25519.PublicKey))
)

func TestParsePublicKeyPEMErrors(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	rsaSPKI, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecSPKI, err := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	good := pemOf("PUBLIC KEY", ed25519strict.MarshalSPKI(mustHex(testKeyOnePubHex)))
	tests := []struct {
		name    string
		data    []byte
		want    error
		wantMsg string
	}{
		{"empty", nil, ErrInvalidPEM, "no public key found"},
		{"whitespace only", []byte(" \n\t\r\n"), ErrInvalidPEM, "no public key found"},
		{"unpadded base64", []byte(strings.TrimRight(testKeyOneSPKIB64, "=")), ErrInvalidBase64, "not a multiple of 4"},
		{"base64 with superfluous padding", []byte(testKeyOneSPKIB64 + "===="), ErrInvalidBase64, "misplaced padding at offset 59"},
		{"url-safe base64", []byte(strings.NewReplacer("+", "-", "/", "_").Replace(testKeyOneSPKIB64)), ErrInvalidBase64, "not in the standard base64 alphabet"},
		{"raw 32-byte key in base64", []byte(base64.StdEncoding.EncodeToString(mustHex(testKeyOnePubHex))), ErrInvalidSPKI, "got 32 bytes, want 44"},
		{"two blocks", append(bytes.Clone(good), good...), ErrInvalidPEM, "2 PEM blocks"},
		{"text after the block", append(bytes.Clone(good), "# comment\n"...), ErrInvalidPEM, "data after the PEM block"},
		{"RSA SPKI", pemOf("PUBLIC KEY", rsaSPKI), ErrInvalidSPKI, "public key is RSA, only Ed25519 is supported"},
		{"ECDSA SPKI", pemOf("PUBLIC KEY", ecSPKI), ErrInvalidSPKI, "public key is ECDSA P-384, only Ed25519 is supported"},
		{"RSA PKCS#1 public key", pemOf("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)), ErrUnsupportedKeyType, "public key is RSA"},
		{"private key", pemOf("PRIVATE KEY", pkcs8Of(t, testOnlyKeyOne())), ErrUnsupportedKeyFormat, "this is a PEM private key; not a PEM public key"},
		{"encrypted private key", sharedEncrypted(), ErrUnsupportedKeyFormat, "this is a PEM private key"},
		{"OpenSSH private key", pemOf("OPENSSH PRIVATE KEY", []byte("openssh-key-v1\x00")), ErrUnsupportedKeyFormat, "PEM block is a private key, want a public key"},
		{"certificate", pemOf("CERTIFICATE", []byte{0x30, 0}), ErrUnsupportedKeyFormat, `PEM block type "CERTIFICATE" is not "PUBLIC KEY"`},
		{"PEM header", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Headers: map[string]string{"Comment": "x"}, Bytes: ed25519strict.MarshalSPKI(mustHex(testKeyOnePubHex))}),
			ErrUnsupportedKeyFormat, "PEM headers are not supported"},
		{"small-order key", pemOf("PUBLIC KEY", ed25519strict.MarshalSPKI(mustHex(identityHex))), ed25519strict.ErrSmallOrderKey, "small-order"},
		{"non-canonical key", []byte(base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")))),
			ed25519strict.ErrNonCanonicalKey, "y ≥ p"},
		{"off-curve key", pemOf("PUBLIC KEY", ed25519strict.MarshalSPKI(mustHex("0200000000000000000000000000000000000000000000000000000000000000"))), ed25519strict.ErrKeyNotOnCurve, "not a point on the curve"},
		// A signed-note key (a witness of a log, not of attested bundles) says
		// what it is instead of "invalid strict base64: length 69".
		{"cosignature/v1 vkey", []byte(testOnlyWitnessVKey + "\n"), ErrUnsupportedKeyFormat, "this is a cosignature/v1 witness verifier key; not a PEM public key"},
		{"signed-note log vkey", []byte(testOnlyLogVKey), ErrUnsupportedKeyFormat, "this is a signed-note log verifier key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub, err := ParsePublicKeyPEM(tt.data)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("ParsePublicKeyPEM error = %v, want %v containing %q", err, tt.want, tt.wantMsg)
			}
			if pub != nil {
				t.Fatal("ParsePublicKeyPEM returned a key with an error")
			}
		})
	}
}

func FuzzParsePrivateKeyPEM(f *testing.F) {
	good, err := MarshalPrivateKeyPEM(testOnlyKeyOne())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(sharedEncrypted())
	f.Add(pemOf("PRIVATE KEY", []byte{0x30, 0x00}))
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// No passphrase function: an encrypted key stops before scrypt, so
		// the fuzzer stays fast.
		priv, err := ParsePrivateKeyPEM(data, nil)
		if err != nil {
			if priv != nil {
				t.Fatal("key returned with an error")
			}
			return
		}
		if len(priv) != ed25519.PrivateKeySize || !bytes.Equal(ed25519.NewKeyFromSeed(priv.Seed()), priv) {
			t.Fatal("parsed key is inconsistent")
		}
		// What parses re-marshals to a key that parses to the same key.
		again, err := MarshalPrivateKeyPEM(priv)
		if err != nil {
			t.Fatal(err)
		}
		if priv2, err := ParsePrivateKeyPEM(again, nil); err != nil || !bytes.Equal(priv2, priv) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

func FuzzParsePublicKeyPEM(f *testing.F) {
	good, err := MarshalPublicKeyPEM(mustHex(testKeyOnePubHex))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(testKeyTwoSPKIB64 + "\n"))
	f.Add([]byte(base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(mustHex(identityHex)))))
	f.Add([]byte("QR=="))
	f.Fuzz(func(t *testing.T, data []byte) {
		pub, err := ParsePublicKeyPEM(data)
		if err != nil {
			if pub != nil {
				t.Fatal("key returned with an error")
			}
			return
		}
		if err := ed25519strict.CheckPublicKey(pub); err != nil {
			t.Fatalf("accepted a key that fails CheckEd25519PublicKey: %v", err)
		}
		again, err := MarshalPublicKeyPEM(pub)
		if err != nil {
			t.Fatal(err)
		}
		if pub2, err := ParsePublicKeyPEM(again); err != nil || !bytes.Equal(pub2, pub) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

func spkiOf(t *testing.T, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
