package inspect_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
)

func withProblem(t *testing.T, data []byte, want string) {
	t.Helper()
	d := describe(t, data)
	for _, p := range d.Problems {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("problems %q, want one containing %q", d.Problems, want)
}

// What cannot be read in an attested bundle's envelope is reported as a
// problem naming the envelope, never described as if it were there: a
// public key that is not strict base64, a payload that is not, and a
// payload that is no JSON statement. The control (TestDescribeAttested)
// has none.
func TestEnvelopeProblems(t *testing.T) {
	edit := func(f func(env *canonjson.Value)) []byte {
		doc, err := canonjson.Parse(read(t, "transparency/example.signed.json"))
		if err != nil {
			t.Fatal(err)
		}
		f(doc.Path("authenticity", "envelopes").Items[0])
		data, err := canonjson.Pretty(doc)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	withProblem(t, edit(func(e *canonjson.Value) {
		e.Get("signatures").Items[0].Set("publicKeySpkiBase64", canonjson.NewString("not base64!"))
	}), "envelope 0: publicKeySpkiBase64")
	withProblem(t, edit(func(e *canonjson.Value) { e.Set("payload", canonjson.NewString("%%%")) }), "envelope 0: payload")
	withProblem(t, edit(func(e *canonjson.Value) {
		e.Set("payload", canonjson.NewString(base64.StdEncoding.EncodeToString([]byte("not json"))))
	}), "envelope 0: the payload is not a JSON statement")
}

// A trust policy's signer whose public key does not read, and a
// transparency section whose tlog policy does not parse, are problems;
// the rest of the policy is still described.
func TestPolicyProblems(t *testing.T) {
	doc, err := canonjson.Parse(read(t, "transparency/policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc.Get("signers").Items[0].Set("publicKey", canonjson.NewString("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"))
	data, _ := canonjson.Pretty(doc)
	withProblem(t, data, "signer 0 (\"signer-one\"): publicKey")
	if d := describe(t, data); len(d.Policy.Signers) != 2 {
		t.Errorf("the other signer is not described: %+v", d.Policy.Signers)
	}
	doc, _ = canonjson.Parse(read(t, "transparency/policy.json"))
	doc.Get("transparency").Set("tlogPolicy", canonjson.NewString("log nonsense\n"))
	data, _ = canonjson.Pretty(doc)
	withProblem(t, data, "transparency.tlogPolicy")
}

// A Sigstore bundle whose certificate is not base64 is a problem; one with
// a public key names its hint; a certificate's e-mail identity and its
// issuer in the older extension are read.
func TestSigstoreProblems(t *testing.T) {
	withProblem(t, []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"%%%"}}}`),
		"rawBytes is not base64")
	d := describe(t, []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":"my-key"},"tlogEntries":[{}]}}`))
	if d.Sigstore == nil || d.Sigstore.PublicKeyHint != "my-key" || d.Sigstore.TLogEntries != 1 || len(d.Problems) != 0 {
		t.Errorf("a public key bundle: %+v %q", d.Sigstore, d.Problems)
	}
	mustContain(t, text(d), "public key hint my-key")

	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	ca, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), NotBefore: time.Unix(1_800_000_000, 0), NotAfter: time.Unix(1_800_000_600, 0),
		EmailAddresses: []string{"release@acme.example"}}
	tmpl.ExtraExtensions = append(tmpl.ExtraExtensions, pkixExt("https://accounts.example"))
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, ca)
	if err != nil {
		t.Fatal(err)
	}
	d = describe(t, []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"`+base64.StdEncoding.EncodeToString(der)+`"}}}`))
	if c := d.Sigstore.Certificate; c == nil || c.Identity != "release@acme.example" || c.Issuer != "https://accounts.example" {
		t.Errorf("an e-mail certificate with the v1 issuer: %+v", c)
	}
}

// pkixExt is Fulcio's first issuer extension (1.3.6.1.4.1.57264.1.1), its
// value the issuer's bytes.
func pkixExt(issuer string) pkix.Extension {
	return pkix.Extension{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}, Value: []byte(issuer)}
}
