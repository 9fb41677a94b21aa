package keyfile_test

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

	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/signednote"
)

// keyFiles are one key file of each kind, from fixed public seeds.
func keyFiles(t testing.TB) map[keyfile.Kind]string {
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
	lskey, lvkey := genNoteKey(t, signednote.TypeEd25519, "example.org/log", 0x51)
	wskey, wvkey := genNoteKey(t, signednote.TypeCosignatureV1, "example.org/w", 0x52)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return map[keyfile.Kind]string{
		keyfile.PEMPrivateKey:      string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		keyfile.PEMPublicKey:       string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki})),
		keyfile.LogSignerKey:       lskey + "\n",
		keyfile.WitnessSignerKey:   wskey + "\n",
		keyfile.LogVerifierKey:     lvkey + "\n",
		keyfile.RekorVerifierKey:   signednote.FormatECDSAVerifierKey("rekor.example", ecDER) + "\n",
		keyfile.WitnessVerifierKey: wvkey + "\n",
	}
}

// Each kind of key file is recognised as itself; damaged keys, other PEM
// types and other text are not recognised (the reader's own error then
// stands).
func TestRecognise(t *testing.T) {
	files := keyFiles(t)
	for want, data := range files {
		if got := keyfile.Recognise([]byte(data)); got != want {
			t.Errorf("Recognise(%s) = %s", want, got)
		}
	}
	spki, _ := pem.Decode([]byte(files[keyfile.PEMPublicKey]))
	if got := keyfile.Recognise([]byte(base64.StdEncoding.EncodeToString(spki.Bytes))); got != keyfile.PEMPublicKey {
		t.Errorf("base64 SPKI: %s", got)
	}
	lvkey := strings.TrimSpace(files[keyfile.LogVerifierKey])
	for name, data := range map[string]string{
		"vkey with a wrong hash": strings.Replace(lvkey, "+", "+0", 1)[:len(lvkey)],
		"skey with a wrong hash": "PRIVATE+KEY+example.org/log+00000000+" + strings.SplitN(strings.TrimSpace(files[keyfile.LogSignerKey]), "+", 5)[4],
		"RSA PEM":                "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
		"text":                   "hello world\n",
		"empty":                  "",
		"two vkeys":              lvkey + "\n" + lvkey + "\n",
	} {
		if got := keyfile.Recognise([]byte(data)); got != keyfile.UnknownKey {
			t.Errorf("Recognise(%s) = %s, want UnknownKey", name, got)
		}
	}
}

// CheckKind given another kind of key file than the reader takes says what
// it is and what was wanted; its own kind (and NoteKey for every note kind)
// passes, and so does a damaged key of the right kind (the reader's own
// error then stands: the control). No message quotes a private key.
func TestCheckKind(t *testing.T) {
	files := keyFiles(t)
	secrets := []string{
		strings.SplitN(strings.TrimSpace(files[keyfile.LogSignerKey]), "+", 5)[4],
		strings.SplitN(strings.TrimSpace(files[keyfile.WitnessSignerKey]), "+", 5)[4],
		strings.Split(files[keyfile.PEMPrivateKey], "\n")[1],
	}
	for want := range files {
		for got, data := range files {
			err := keyfile.CheckKind([]byte(data), want)
			if got == want {
				if err != nil {
					t.Errorf("want %s: its own kind fails: %v", want, err)
				}
				continue
			}
			var ke *keyfile.KindError
			if !errors.As(err, &ke) || ke.Got != got || ke.Want != want {
				t.Errorf("want %s, given %s: %v, want a KindError naming both", want, got, err)
				continue
			}
			if msg := err.Error(); msg != "this is "+got.String()+"; not "+want.String() {
				t.Errorf("want %s, given %s: message %q", want, got, msg)
			}
			for _, s := range secrets {
				if strings.Contains(err.Error(), s) {
					t.Errorf("want %s, given %s: the message quotes a private key", want, got)
				}
			}
		}
		isNote := want >= keyfile.LogSignerKey && want <= keyfile.WitnessVerifierKey
		if err := keyfile.CheckKind([]byte(files[want]), keyfile.NoteKey); (err == nil) != isNote {
			t.Errorf("%s as NoteKey: %v", want, err)
		}
	}
	// A reader's own error comes first.
	ke := &keyfile.KindError{Got: keyfile.WitnessVerifierKey, Want: keyfile.LogVerifierKey, Err: errors.New("key type 0x04")}
	if got := ke.Error(); got != "key type 0x04: this is a cosignature/v1 witness verifier key; not a signed-note log verifier key" {
		t.Errorf("with Err: %q", got)
	}
	// Control: a damaged key of the right kind is not "another kind".
	lvkey := strings.TrimSpace(files[keyfile.LogVerifierKey])
	if err := keyfile.CheckKind([]byte(lvkey[:len(lvkey)-2]+"A="), keyfile.PEMPrivateKey); err != nil {
		t.Errorf("damaged log vkey: %v, want nil (not recognised)", err)
	}
}

// No message of the library names a command or a flag: that is the
// CLI's wording (cmd/internal/keyhints).
func TestKindWordsNoCommand(t *testing.T) {
	for k := keyfile.UnknownKey; k <= keyfile.NoteKey; k++ {
		if s := k.String(); strings.Contains(s, "mcpres") || strings.Contains(s, "--") || strings.Contains(s, "`") {
			t.Errorf("%d: %q names a command", k, s)
		}
	}
}

// FuzzRecognise: recognising never panics, and a note kind it names is
// one its strict parser accepts (so a "this is …" message never names a
// kind the file is not); a KeyKindError never quotes its input.
func FuzzRecognise(f *testing.F) {
	for _, data := range keyFiles(f) {
		f.Add([]byte(data))
	}
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\n"))
	f.Add([]byte("PRIVATE+KEY+a+00000000+AQ=="))
	f.Fuzz(func(t *testing.T, data []byte) {
		k := keyfile.Recognise(data)
		text := string(bytes.TrimSpace(data))
		var err error
		switch k {
		case keyfile.LogSignerKey:
			_, err = signednote.ParseLogSigner(text)
		case keyfile.WitnessSignerKey:
			_, err = signednote.ParseWitnessSigner(text)
		case keyfile.LogVerifierKey:
			_, err = signednote.ParseLogVerifier(text)
		case keyfile.WitnessVerifierKey:
			_, err = signednote.ParseWitnessVerifier(text)
		case keyfile.RekorVerifierKey:
			_, err = signednote.ParseVerifier(text)
		}
		if err != nil {
			t.Fatalf("recognised as %s, which its parser refuses: %v", k, err)
		}
		if ke := keyfile.CheckKind(data, keyfile.NoteKey, keyfile.PEMPrivateKey); ke != nil && len(text) >= 8 && strings.Contains(ke.Error(), text) {
			t.Fatalf("the message quotes the input: %v", ke)
		}
	})
}

// genNoteKey is a signed-note key pair from a fixed public seed (tests
// only).
func genNoteKey(t testing.TB, typ byte, name string, seed byte) (skey, vkey string) {
	t.Helper()
	skey, vkey, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{seed}, 32)), typ, name)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}
