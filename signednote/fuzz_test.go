package signednote_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

// FuzzParseVerifier: one key, one encoding. A vkey that parses is exactly
// the text its verifier formats back.
func FuzzParseVerifier(f *testing.F) {
	for _, typ := range []byte{signednote.TypeEd25519, signednote.TypeCosignatureV1} {
		_, vkey, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x53}, 32)), typ, "example.org/fuzz")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(vkey)
	}
	f.Add("a+00000000+AQ==")
	if key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err == nil {
		if der, err := x509.MarshalPKIXPublicKey(&key.PublicKey); err == nil {
			f.Add(signednote.FormatECDSAVerifierKey("rekor.example.org", der))
		}
	}
	f.Fuzz(func(t *testing.T, vkey string) {
		v, err := signednote.ParseVerifier(vkey)
		if err != nil {
			if v != nil {
				t.Fatal("a verifier returned with an error")
			}
			return
		}
		if v.String() != vkey {
			t.Fatalf("ParseVerifier(%q).String() = %q", vkey, v.String())
		}
	})
}

// FuzzParseSigner: a private key that parses gives a verifier whose vkey
// parses, with the same name.
func FuzzParseSigner(f *testing.F) {
	for _, typ := range []byte{signednote.TypeEd25519, signednote.TypeCosignatureV1} {
		skey, _, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x54}, 32)), typ, "example.org/fuzz")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(skey)
	}
	f.Fuzz(func(t *testing.T, skey string) {
		if s, err := signednote.ParseLogSigner(skey); err == nil {
			if _, err := signednote.ParseLogVerifier(s.Verifier().String()); err != nil {
				t.Fatal(err)
			}
		}
		if c, err := signednote.ParseWitnessSigner(skey); err == nil {
			if _, err := signednote.ParseWitnessVerifier(c.Verifier().String()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzParseBody: one body, one encoding. A body that parses is exactly its
// re-encoding followed by the extension lines, with a 32-byte root hash.
func FuzzParseBody(f *testing.F) {
	f.Add([]byte(checkpointText))
	f.Add([]byte(checkpointText + "extension line\n"))
	f.Add([]byte("example.org/log\n02\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"))
	f.Add([]byte("example.org/log\n2\nAAAA\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		b, err := signednote.ParseBody(text)
		if err != nil {
			if b != nil {
				t.Fatal("a body returned with an error")
			}
			return
		}
		again := fmt.Sprintf("%s\n%d\n%s\n%s", b.Origin, b.Size, b.Hash, b.Rest)
		if again != string(text) {
			t.Fatalf("ParseBody(%q) re-encodes as %q", text, again)
		}
	})
}

// FuzzSplit: a note that splits has a text ending in LF, 1 to 100
// signature lines, and is exactly its text, an empty line and its lines.
func FuzzSplit(f *testing.F) {
	skey, _, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x55}, 32)), signednote.TypeEd25519, "example.org/log")
	if err != nil {
		f.Fatal(err)
	}
	s, err := signednote.ParseLogSigner(skey)
	if err != nil {
		f.Fatal(err)
	}
	signed, err := note.Sign(&note.Note{Text: checkpointText}, s)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(signed)
	f.Add(append(bytes.Clone(signed), signed[len(checkpointText)+1:]...))
	f.Add([]byte(checkpointText + "\n— a AAAAAAA=\n"))
	f.Fuzz(func(t *testing.T, n []byte) {
		text, sigs, err := signednote.Split(n)
		if err != nil {
			if text != nil || sigs != nil {
				t.Fatal("results returned with an error")
			}
			return
		}
		if len(sigs) < 1 || len(sigs) > signednote.MaxSignatures || !bytes.HasSuffix(text, []byte("\n")) {
			t.Fatalf("Split(%q): %d lines, text %q", n, len(sigs), text)
		}
		again := append(bytes.Clone(text), '\n')
		for _, l := range sigs {
			again = fmt.Appendf(again, "— %s %s\n", l.Name, base64.StdEncoding.EncodeToString(append(binary.BigEndian.AppendUint32(nil, l.Hash), l.Sig...)))
		}
		if !bytes.Equal(again, n) {
			t.Fatalf("Split(%q) re-encodes as %q", n, again)
		}
	})
}

// FuzzParseHash: a hash that parses is exactly the text String gives
// back; one that does not is the zero Hash.
func FuzzParseHash(f *testing.F) {
	f.Add("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
	f.Add("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV=")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := signednote.ParseHash(s)
		if err != nil {
			if h != (signednote.Hash{}) {
				t.Fatal("a hash returned with an error")
			}
			return
		}
		if h.String() != s {
			t.Fatalf("ParseHash(%q).String() = %q", s, h.String())
		}
	})
}
