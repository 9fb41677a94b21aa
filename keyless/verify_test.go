package keyless

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
)

func testMaterial(t testing.TB) *Material {
	t.Helper()
	data, err := keylesstest.OtherTrustedRoot(t).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "s", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: "https://i.example", Identity: "a@b.example"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(data)}
	m, err := NewMaterial(d, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewMaterialRefusals(t *testing.T) {
	m := testMaterial(t)
	other, _ := keylesstest.OtherTrustedRoot(t).MarshalJSON()
	var f *Failure
	if _, err := NewMaterial(m.policy, other); !errors.As(err, &f) || f.Code != CodeTrustedRootMismatch {
		t.Fatalf("another trusted root: %v", err)
	}
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	if _, err := NewMaterial(d, other); !errors.As(err, &f) || f.Code != CodeNoIdentitySigners {
		t.Fatalf("no identity signer: %v", err)
	}
}

const testPayloadType = "application/vnd.in-toto+json"

// envelopeWrapper is an attested-bundle-shaped document with one envelope.
func envelopeWrapper(payload, sig []byte, pub ed25519.PublicKey, identity string) *canonjson.Value {
	spki, _ := x509.MarshalPKIXPublicKey(pub)
	enc := base64.StdEncoding.EncodeToString
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	s := canonjson.NewString
	return canonjson.NewObject(m("authenticity", canonjson.NewObject(m("envelopes", canonjson.NewArray(canonjson.NewObject(
		m("payload", s(enc(payload))),
		m("payloadType", s(testPayloadType)),
		m("signatures", canonjson.NewArray(canonjson.NewObject(m("sig", s(enc(sig))), m("publicKeySpkiBase64", s(enc(spki))), m("signerIdentity", s(identity))))),
	))))))
}

func TestBindEnvelope(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	w := envelopeWrapper([]byte("p"), []byte("s"), pub, "a@b.example")
	if i, err := bindEnvelope(w, testPayloadType, []byte("p"), []byte("s"), pub, "a@b.example"); err != nil || i != 0 {
		t.Fatalf("control: %d %v", i, err)
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	for name, tc := range map[string]struct {
		payloadType  string
		payload, sig []byte
		key          ed25519.PublicKey
		identity     string
		code         string
	}{
		"other payload type": {"text/plain", []byte("p"), []byte("s"), pub, "a@b.example", CodeEnvelopeMissing},
		"other payload":      {testPayloadType, []byte("q"), []byte("s"), pub, "a@b.example", CodeEnvelopeMissing},
		"other sig":          {testPayloadType, []byte("p"), []byte("t"), pub, "a@b.example", CodeEnvelopeMissing},
		"other key":          {testPayloadType, []byte("p"), []byte("s"), other, "a@b.example", CodeOtherKey},
		"other identity":     {testPayloadType, []byte("p"), []byte("s"), pub, "c@d.example", CodeStatementIdentity},
	} {
		_, err := bindEnvelope(w, tc.payloadType, tc.payload, tc.sig, tc.key, tc.identity)
		var f *Failure
		if !errors.As(err, &f) || f.Code != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	// The document itself: not an attested bundle, or the matching
	// envelope's key not strict base64.
	for name, tc := range map[string]struct {
		edit func(w *canonjson.Value)
		code string
		says string
	}{
		"no envelopes":        {func(w *canonjson.Value) { w.Get("authenticity").Delete("envelopes") }, CodeEnvelopeMissing, "the document is not an attested bundle with envelopes"},
		"envelopes an object": {func(w *canonjson.Value) { w.Get("authenticity").Set("envelopes", canonjson.NewObject()) }, CodeEnvelopeMissing, "the document is not an attested bundle with envelopes"},
		"key not strict base64": {func(w *canonjson.Value) {
			s := w.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
			s.Set("publicKeySpkiBase64", canonjson.NewString(s.Get("publicKeySpkiBase64").Str+"\n"))
		}, CodeOtherKey, "envelope 0: publicKeySpkiBase64 is not strict base64"},
		"key not an Ed25519 SPKI": {func(w *canonjson.Value) {
			s := w.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
			s.Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString([]byte("not an SPKI"))))
		}, CodeOtherKey, "envelope 0: "},
	} {
		w := envelopeWrapper([]byte("p"), []byte("s"), pub, "a@b.example")
		tc.edit(w)
		_, err := bindEnvelope(w, testPayloadType, []byte("p"), []byte("s"), pub, "a@b.example")
		var f *Failure
		if !errors.As(err, &f) || f.Code != tc.code || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %s saying %q", name, err, tc.code, tc.says)
		}
	}
}

// FuzzCertify: whatever bytes are given as a Sigstore bundle, Certify
// returns a *Failure (never panics, never certifies against a trusted root
// that certifies nothing).
func FuzzCertify(f *testing.F) {
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"AA=="},"tlogEntries":[]},"dsseEnvelope":{"payload":"AA==","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA=="}]}}`))
	f.Add([]byte("null"))
	m := testMaterial(f)
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	w := envelopeWrapper([]byte{0}, []byte{0}, pub, "a@b.example")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := m.Certify(data, w)
		var fl *Failure
		if c != nil || !errors.As(err, &fl) {
			t.Fatalf("certified %+v, %v", c, err)
		}
	})
}

// FuzzBindEnvelope: any attested-bundle-shaped document; a bound envelope
// carries exactly the payload type, payload, signature, key and identity
// asked for, and carried agrees with the binding.
func FuzzBindEnvelope(f *testing.F) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	good, _ := canonjson.Compact(envelopeWrapper([]byte("p"), []byte("s"), pub, "a@b.example"))
	f.Add(good)
	f.Add([]byte(`{"authenticity":{"envelopes":[{"payload":"cA==","signatures":[]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		i, err := bindEnvelope(w, testPayloadType, []byte("p"), []byte("s"), pub, "a@b.example")
		// carried (the gated path's test) says yes exactly when binding
		// finds the envelope under the key, whatever its identity.
		env := &protodsse.Envelope{PayloadType: testPayloadType, Payload: []byte("p"), Signatures: []*protodsse.Signature{{Sig: []byte("s")}}}
		var fl *Failure
		bound := err == nil || (errors.As(err, &fl) && fl.Code == CodeStatementIdentity)
		if c := carried(w, env, pub); c != bound {
			t.Fatalf("carried %v, bindEnvelope %v", c, err)
		}
		if err != nil {
			if !errors.As(err, &fl) {
				t.Fatalf("not a Failure: %v", err)
			}
			return
		}
		e := w.Path("authenticity", "envelopes").Items[i]
		s := e.Get("signatures").Items[0]
		if s.Get("signerIdentity").Str != "a@b.example" || e.Get("payloadType").Str != testPayloadType {
			t.Fatalf("bound envelope %d of another identity or payload type", i)
		}
	})
}

// TestCarried: an envelope carries the Sigstore bundle's signature only
// with the same payload type, payload, signature and key; each
// difference alone is enough to say no (and so to have sigstore-go
// verify the signature in the gated path).
func TestCarried(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	w := envelopeWrapper([]byte("p"), []byte("s"), pub, "a@b.example")
	env := func(pt, p, s string) *protodsse.Envelope {
		return &protodsse.Envelope{PayloadType: pt, Payload: []byte(p), Signatures: []*protodsse.Signature{{Sig: []byte(s)}}}
	}
	if !carried(w, env(testPayloadType, "p", "s"), pub) {
		t.Fatal("control: the same envelope is not carried")
	}
	two := env(testPayloadType, "p", "s")
	two.Signatures = append(two.Signatures, &protodsse.Signature{Sig: []byte("s")})
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, tc := range map[string]struct {
		env *protodsse.Envelope
		key crypto.PublicKey
	}{
		"other payload type": {env("text/plain", "p", "s"), pub},
		"other payload":      {env(testPayloadType, "q", "s"), pub},
		"other signature":    {env(testPayloadType, "p", "t"), pub},
		"other key":          {env(testPayloadType, "p", "s"), other},
		"not an Ed25519 key": {env(testPayloadType, "p", "s"), &ecKey.PublicKey},
		"two signatures":     {two, pub},
	} {
		if carried(w, tc.env, tc.key) {
			t.Errorf("%s: carried", name)
		}
	}
	if carried(canonjson.NewObject(), env(testPayloadType, "p", "s"), pub) {
		t.Error("a document without envelopes carries it")
	}
}

// An oversized Sigstore bundle is refused before it is parsed.
func TestCertifyBounded(t *testing.T) {
	m := testMaterial(t)
	big := append([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","x":"`), make([]byte, maxSigstoreBundle)...)
	_, err := m.Certify(big, canonjson.NewObject())
	var f *Failure
	if !errors.As(err, &f) || f.Code != CodeMaterialInvalid || !strings.Contains(f.Detail, "larger than") {
		t.Fatalf("got %v", err)
	}
}
