package signednote_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// A Rekor-style ECDSA P-256 log key (generated at test time) is read without crypto/x509 and agrees
// with it and with formats' verifier: the canonical DER only, signatures
// of SHA-256 in ASN.1, checked both ways.
func TestECDSAKeys(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	vkey := signednote.FormatECDSAVerifierKey("rekor.example.org - 1", der)
	if _, err := signednote.ParseVerifier(vkey); err == nil {
		t.Fatal("a name with spaces accepted")
	}
	vkey = signednote.FormatECDSAVerifierKey("rekor.example.org", der)
	v, err := signednote.ParseVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	if v.Type() != signednote.TypeECDSA || v.String() != vkey || !bytes.Equal(v.DER(), der) || v.PublicKey() != nil {
		t.Errorf("parsed %v type 0x%02x", v, v.Type())
	}
	sum := sha256.Sum256(der)
	if v.Fingerprint() != fmt.Sprintf("%x", sum) {
		t.Errorf("fingerprint %s, want the SHA-256 of the DER", v.Fingerprint())
	}
	fv, err := fnote.NewECDSAVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	if fv.KeyHash() != v.KeyHash() || fv.Name() != v.Name() {
		t.Fatalf("formats %s+%08x, ours %s+%08x", fv.Name(), fv.KeyHash(), v.Name(), v.KeyHash())
	}
	msg := []byte(checkpointText)
	digest := sha256.Sum256(msg)
	sig, err := ecdsa.SignASN1(rand.Reader, key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	if !v.Verify(msg, sig) || !fv.Verify(msg, sig) {
		t.Fatal("a good ECDSA signature does not verify")
	}
	if v.Verify([]byte("other"+checkpointText), sig) || v.Verify(msg, sig[1:]) {
		t.Fatal("a bad ECDSA signature verifies")
	}
	if _, err := note.Open(append(append([]byte(checkpointText+"\n— rekor.example.org "), base64.StdEncoding.EncodeToString(append(binary.BigEndian.AppendUint32(nil, v.KeyHash()), sig...))...), '\n'), note.VerifierList(v)); err != nil {
		t.Fatalf("note.Open with the ECDSA verifier: %v", err)
	}

	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der384, _ := x509.MarshalPKIXPublicKey(&p384.PublicKey)
	offCurve := bytes.Clone(der)
	offCurve[len(offCurve)-1] ^= 1
	for name, bad := range map[string]string{
		"P-384 key":           signednote.FormatECDSAVerifierKey("r", der384),
		"point off the curve": signednote.FormatECDSAVerifierKey("r", offCurve),
		"not DER":             signednote.FormatECDSAVerifierKey("r", []byte("not DER")),
		"trailing byte":       signednote.FormatECDSAVerifierKey("r", append(bytes.Clone(der), 0)),
		"wrong hash":          "rekor.example.org+00000000+" + strings.SplitN(vkey, "+", 3)[2],
	} {
		if _, err := signednote.ParseVerifier(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
		// The same key material that x509 reads must still be refused
		// here only when x509 refuses it too (or re-encodes it).
		if raw, err := base64.StdEncoding.DecodeString(strings.SplitN(bad, "+", 3)[2]); err == nil && name != "wrong hash" {
			if pub, err := x509.ParsePKIXPublicKey(raw[1:]); err == nil {
				if ec, ok := pub.(*ecdsa.PublicKey); ok && ec.Curve == elliptic.P256() {
					if again, _ := x509.MarshalPKIXPublicKey(ec); bytes.Equal(again, raw[1:]) {
						t.Errorf("%s: crypto/x509 reads it as a canonical P-256 key", name)
					}
				}
			}
		}
	}
}

// The name rules, at their edges.
func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
		msg  string
	}{
		{"example.org/log", true, ""},
		{strings.Repeat("a", signednote.MaxNameBytes), true, ""},
		{strings.Repeat("a", signednote.MaxNameBytes+1), false, "more than 256"},
		{"", false, "is empty"},
		{"a b", false, "contains spaces"},
		{"a\u00a0b", false, "contains spaces"},
		{"a+b", false, `contains a "+"`},
		{"a\x01b", false, "control character"},
		{"a\xffb", false, "not valid UTF-8"},
		{"héllo", true, ""},
	} {
		err := signednote.CheckName(tc.name)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("CheckName(%q) = %v, want ok %t / %q", tc.name, err, tc.ok, tc.msg)
		}
	}
}
