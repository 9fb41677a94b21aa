package signednote_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

// otherKeySigner claims pub but signs with another key.
type otherKeySigner struct {
	pub   ed25519.PublicKey
	other ed25519.PrivateKey
}

func (s otherKeySigner) Public() crypto.PublicKey { return s.pub }
func (s otherKeySigner) Sign(r io.Reader, msg []byte, o crypto.SignerOpts) ([]byte, error) {
	return s.other.Sign(r, msg, o)
}

// NewLogSigner and NewWitnessSigner refuse a name that breaks the name
// rules and a signer that is not Ed25519; a signer whose signatures are
// another key's is refused at the first signature (ed25519strict.ErrSigner,
// naming the key). The controls sign through a crypto.Signer under each
// role and verify with the signer's own verifier, which holds the same key
// as a parsed one.
func TestNewSignerRefuses(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, c := range []struct {
		name string
		s    crypto.Signer
	}{
		{"", priv}, {"has space", priv}, {"plus+sign", priv}, {"example.org/log", ec},
	} {
		if _, err := signednote.NewLogSigner(c.name, c.s); err == nil {
			t.Errorf("NewLogSigner(%q, %T) passed", c.name, c.s)
		}
		if _, err := signednote.NewWitnessSigner(c.name, c.s); err == nil {
			t.Errorf("NewWitnessSigner(%q, %T) passed", c.name, c.s)
		}
	}

	_, other, _ := ed25519.GenerateKey(rand.Reader)
	liar := otherKeySigner{pub: priv.Public().(ed25519.PublicKey), other: other}
	ls, err := signednote.NewLogSigner("example.org/log", liar)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Sign([]byte("text\n")); !errors.Is(err, ed25519strict.ErrSigner) || !strings.Contains(err.Error(), `signing as "example.org/log"`) {
		t.Errorf("a signer with another key: %v", err)
	}
	if _, err := note.Sign(&note.Note{Text: "example.org/log\n1\n" + strings.Repeat("A", 43) + "=\n"}, ls); err == nil {
		t.Error("note.Sign through a signer with another key")
	}

	ls, err = signednote.NewLogSigner("example.org/log", priv)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("example.org/log\n1\n")
	sig, err := ls.Sign(msg)
	if err != nil || !ls.Verifier().Verify(msg, sig) || ls.Signer() == nil || ls.Name() != "example.org/log" {
		t.Fatalf("control, a log signer: %v", err)
	}
	ws, err := signednote.NewWitnessSigner("example.org/witness", priv)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Name() != "example.org/witness" || ws.Signer() == nil {
		t.Error("control, the witness signer's name and signer")
	}
	if !ws.Verifier().SameKey(ls.Verifier()) {
		t.Error("one key under two roles is not the same key")
	}
	_, otherPub, _ := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "example.org/log")
	ov, err := signednote.ParseLogVerifier(otherPub)
	if err != nil {
		t.Fatal(err)
	}
	if ov.SameKey(ls.Verifier()) {
		t.Error("two keys are the same key")
	}
}

// A cosignature/v1 signer refuses a time before the Unix epoch and a text
// of fewer than two lines; the control cosigns at a time and the
// timestamp reads back.
func TestWitnessSignerAtRefuses(t *testing.T) {
	skey, vkey, err := signednote.GenerateKey(rand.Reader, signednote.TypeCosignatureV1, "example.org/witness")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := signednote.ParseWitnessSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseWitnessVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.At(time.Unix(-1, 0)).Sign([]byte("a\nb\n")); err == nil || !strings.Contains(err.Error(), "precedes the Unix epoch") {
		t.Errorf("a time before the epoch: %v", err)
	}
	if _, err := ws.At(time.Unix(1, 0)).Sign([]byte("one line\n")); err == nil || !strings.Contains(err.Error(), "at least two lines") {
		t.Errorf("a one-line text: %v", err)
	}
	if v.Verify([]byte("one line\n"), make([]byte, signednote.CosignatureSize)) {
		t.Error("Verify of a one-line text")
	}
	if v.Verify([]byte("a\nb\n"), make([]byte, 10)) {
		t.Error("Verify of a short cosignature")
	}
	at := time.Unix(1_800_000_000, 0)
	n, err := note.Sign(&note.Note{Text: "a\nb\n"}, ws.At(at))
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	_, sigs, err := signednote.Split(n)
	if err != nil || len(sigs) != 1 || !v.Verify([]byte("a\nb\n"), sigs[0].Sig) {
		t.Fatalf("control, the cosignature verifies: %v", err)
	}
	parsed, err := note.Open(n, note.VerifierList(v))
	if err != nil {
		t.Fatal(err)
	}
	if ts, err := signednote.CosignatureTimestamp(parsed.Sigs[0]); err != nil || ts != 1_800_000_000 {
		t.Errorf("CosignatureTimestamp: %d, %v", ts, err)
	}
	if _, err := signednote.CosignatureTimestamp(note.Signature{Name: "w", Base64: "AAAA"}); err == nil {
		t.Error("CosignatureTimestamp of a short signature")
	}
}

// SignerKeyType reads a key's type without keeping it, and refuses what
// is not a strict private key; TypeName names each type.
func TestSignerKeyType(t *testing.T) {
	for _, typ := range []byte{signednote.TypeEd25519, signednote.TypeCosignatureV1} {
		skey, _, err := signednote.GenerateKey(rand.Reader, typ, "example.org/k")
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := signednote.SignerKeyType(skey); !ok || got != typ {
			t.Errorf("type 0x%02x: %d %t", typ, got, ok)
		}
		if _, ok := signednote.SignerKeyType(skey + "A"); ok {
			t.Errorf("type 0x%02x with a byte more: parsed", typ)
		}
	}
	if _, ok := signednote.SignerKeyType("PRIVATE+KEY+x"); ok {
		t.Error("a malformed key parsed")
	}
	if _, _, err := signednote.GenerateKey(rand.Reader, signednote.TypeECDSA, "example.org/k"); err == nil {
		t.Error("GenerateKey of an ECDSA key")
	}
	for typ, want := range map[byte]string{signednote.TypeEd25519: "Ed25519 signed-note key", signednote.TypeCosignatureV1: "cosignature/v1 key", signednote.TypeECDSA: "ECDSA Rekor log key", 0x7f: "unsupported"} {
		if got := signednote.TypeName(typ); got != want {
			t.Errorf("TypeName(0x%02x) = %q", typ, got)
		}
	}
}

// Split refuses a note without the empty line, without signature lines
// or a final LF, with a malformed or non-canonical signature line, and
// with more signature lines than sumdb/note takes; ParseBody's errors
// unwrap to formats' error.
func TestSplitRefuses(t *testing.T) {
	sigLine := "— example.org/log AAAAAAE=\n"
	for name, n := range map[string]string{
		"no empty line":        "text\n" + sigLine,
		"no signatures":        "text\n\n",
		"no final LF":          "text\n\n" + strings.TrimSuffix(sigLine, "\n"),
		"no dash":              "text\n\nexample.org/log AAAAAAE=\n",
		"short signature":      "text\n\n— example.org/log AAAAAA==\n",
		"non-canonical base64": "text\n\n— example.org/log AAAAAAF=\n",
		"too many":             "text\n\n" + strings.Repeat(sigLine, 101),
	} {
		if _, _, err := signednote.Split([]byte(n)); err == nil {
			t.Errorf("%s: split", name)
		}
	}
	text, sigs, err := signednote.Split([]byte("text\n\n" + sigLine))
	if err != nil || string(text) != "text\n" || len(sigs) != 1 || sigs[0].Hash != 0 || !bytes.Equal(sigs[0].Sig, []byte{1}) {
		t.Errorf("control: %q %+v %v", text, sigs, err)
	}
	_, err = signednote.ParseBody([]byte("origin\nnot a size\nAAAA\n"))
	var be *signednote.BodyError
	if !errors.As(err, &be) || be.Err == nil || errors.Unwrap(err) != be.Err {
		t.Errorf("a malformed body: %v", err)
	}
}
