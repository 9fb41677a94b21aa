package signednote_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
)

// keyFiles are one key file of each kind, from fixed public seeds.
func keyFiles(t testing.TB) map[signednote.KeyKind]string {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x53}, 32))
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	spki, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	lskey, lvkey := gen(t, signednote.TypeEd25519, "example.org/log", testOnlyLogSeed)
	wskey, wvkey := gen(t, signednote.TypeCosignatureV1, "example.org/w", testOnlyWitnessSeed)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return map[signednote.KeyKind]string{
		signednote.PEMPrivateKey:      string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		signednote.PEMPublicKey:       string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})),
		signednote.LogSignerKey:       lskey + "\n",
		signednote.WitnessSignerKey:   wskey + "\n",
		signednote.LogVerifierKey:     lvkey + "\n",
		signednote.RekorVerifierKey:   signednote.FormatECDSAVerifierKey("rekor.example", ecDER) + "\n",
		signednote.WitnessVerifierKey: wvkey + "\n",
	}
}

// Each kind of key file is recognised as itself; damaged keys, other PEM
// types and other text are not recognised (the reader's own error then
// stands).
func TestRecogniseKey(t *testing.T) {
	files := keyFiles(t)
	for want, data := range files {
		if got := signednote.RecogniseKey([]byte(data)); got != want {
			t.Errorf("RecogniseKey(%s) = %s", want, got)
		}
	}
	spki, _ := pem.Decode([]byte(files[signednote.PEMPublicKey]))
	if got := signednote.RecogniseKey([]byte(base64.StdEncoding.EncodeToString(spki.Bytes))); got != signednote.PEMPublicKey {
		t.Errorf("base64 SPKI: %s", got)
	}
	lvkey := strings.TrimSpace(files[signednote.LogVerifierKey])
	for name, data := range map[string]string{
		"vkey with a wrong hash": strings.Replace(lvkey, "+", "+0", 1)[:len(lvkey)],
		"skey with a wrong hash": "PRIVATE+KEY+example.org/log+00000000+" + strings.SplitN(strings.TrimSpace(files[signednote.LogSignerKey]), "+", 5)[4],
		"RSA PEM":                "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
		"text":                   "hello world\n",
		"empty":                  "",
		"two vkeys":              lvkey + "\n" + lvkey + "\n",
	} {
		if got := signednote.RecogniseKey([]byte(data)); got != signednote.UnknownKey {
			t.Errorf("RecogniseKey(%s) = %s, want UnknownKey", name, got)
		}
	}
}

// Every note-key parser given another kind of key file says what it is
// and what takes it; a damaged key of the right kind keeps the parser's
// own error (the control), and no message quotes a private key.
func TestParsersNameTheKind(t *testing.T) {
	files := keyFiles(t)
	parsers := map[signednote.KeyKind]func(string) error{
		signednote.LogVerifierKey:     func(s string) error { _, err := signednote.ParseLogVerifier(s); return err },
		signednote.WitnessVerifierKey: func(s string) error { _, err := signednote.ParseWitnessVerifier(s); return err },
		signednote.LogSignerKey:       func(s string) error { _, err := signednote.ParseLogSigner(s); return err },
		signednote.WitnessSignerKey:   func(s string) error { _, err := signednote.ParseWitnessSigner(s); return err },
	}
	secrets := []string{
		strings.SplitN(strings.TrimSpace(files[signednote.LogSignerKey]), "+", 5)[4],
		strings.SplitN(strings.TrimSpace(files[signednote.WitnessSignerKey]), "+", 5)[4],
		strings.Split(files[signednote.PEMPrivateKey], "\n")[1],
	}
	for want, parse := range parsers {
		for got, data := range files {
			text := strings.TrimSuffix(data, "\n")
			err := parse(text)
			if got == want {
				if err != nil {
					t.Errorf("%s parser: its own kind fails: %v", want, err)
				}
				continue
			}
			var ke *signednote.KeyKindError
			if !errors.As(err, &ke) || ke.Got != got || ke.Want != want {
				t.Errorf("%s parser given %s: %v, want a KeyKindError naming both", want, got, err)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, "this is "+got.String()) || !strings.Contains(msg, "not "+want.String()) {
				t.Errorf("%s parser given %s: message %q", want, got, msg)
			}
			for _, s := range secrets {
				if strings.Contains(msg, s) {
					t.Errorf("%s parser given %s: the message quotes a private key", want, got)
				}
			}
			if signednote.WithFlag(err, "--log-key"); !strings.Contains(err.Error(), "; --log-key takes "+want.String()) {
				t.Errorf("WithFlag: %q", err)
			}
		}
	}
	// The witness key given as a log key keeps the key-type message first.
	err := parsers[signednote.LogVerifierKey](strings.TrimSpace(files[signednote.WitnessVerifierKey]))
	if !strings.Contains(err.Error(), "key type 0x04 (cosignature/v1 key), want 0x01 (Ed25519 signed-note key): this is a cosignature/v1 witness verifier key (NAME.vkey of `mcpres witness keygen`)") {
		t.Errorf("witness vkey as log vkey: %v", err)
	}
	// Control: a damaged key of the right kind is not "another kind".
	lvkey := strings.TrimSpace(files[signednote.LogVerifierKey])
	bad := lvkey[:len(lvkey)-2] + "A="
	var ke *signednote.KeyKindError
	if err := parsers[signednote.LogVerifierKey](bad); err == nil || errors.As(err, &ke) {
		t.Errorf("damaged log vkey: %v, want the parser's own error", err)
	}
}

// FuzzRecogniseKey: recognising never panics, and a note kind it names is
// one its strict parser accepts (so a "this is …" message never names a
// kind the file is not); a KeyKindError never quotes its input.
func FuzzRecogniseKey(f *testing.F) {
	for _, data := range keyFiles(f) {
		f.Add([]byte(data))
	}
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\n"))
	f.Add([]byte("PRIVATE+KEY+a+00000000+AQ=="))
	f.Fuzz(func(t *testing.T, data []byte) {
		k := signednote.RecogniseKey(data)
		text := string(bytes.TrimSpace(data))
		var err error
		switch k {
		case signednote.LogSignerKey:
			_, err = signednote.ParseLogSigner(text)
		case signednote.WitnessSignerKey:
			_, err = signednote.ParseWitnessSigner(text)
		case signednote.LogVerifierKey:
			_, err = signednote.ParseLogVerifier(text)
		case signednote.WitnessVerifierKey:
			_, err = signednote.ParseWitnessVerifier(text)
		case signednote.RekorVerifierKey:
			_, err = signednote.ParseVerifier(text)
		}
		if err != nil {
			t.Fatalf("recognised as %s, which its parser refuses: %v", k, err)
		}
		if ke := signednote.CheckKeyKind(data, signednote.NoteKey, signednote.PEMPrivateKey); ke != nil && len(text) >= 8 && strings.Contains(ke.Error(), text) {
			t.Fatalf("the message quotes the input: %v", ke)
		}
	})
}
