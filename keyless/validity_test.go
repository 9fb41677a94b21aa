package keyless

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/sigstore/sigstore-go/pkg/root"
)

// A real timestamp (from the stack's authority) over a signature whose
// certificate was valid only before it, or only after it: refused with
// MCPRES_KEYLESS_TIMESTAMP_OUTSIDE_CERT; the same certificate valid now is
// the control (it then fails later, on the identity: not a Fulcio
// certificate of the policy's issuer).
func TestCertifyTimestampOutsideValidity(t *testing.T) {
	s := keylesstest.NewStack(t)
	stackRoot, err := FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"}, NotBefore: time.Now().Add(-24 * time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	ca, _ := x509.ParseCertificate(caDER)
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{&root.FulcioCertificateAuthority{Root: ca}}, nil, stackRoot.TimestampingAuthorities(), nil)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "s", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: "https://i.example", Identity: "a@b.example"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(trJSON)}
	m, err := NewMaterial(d, trJSON)
	if err != nil {
		t.Fatal(err)
	}
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	payload := []byte(`{"_type":"https://in-toto.io/Statement/v1"}`)
	sig := ed25519.Sign(priv, attest.PAE(attest.PayloadType, payload))
	ts, err := requestTimestamp(context.Background(), http.DefaultClient, s.TSAURL, sig)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(from, until time.Time) *x509.Certificate {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), NotBefore: from, NotAfter: until, EmailAddresses: []string{"a@b.example"},
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c
	}
	wrapper := envelopeWrapper(payload, sig, pub, "a@b.example")
	now := time.Now()
	for _, tc := range []struct {
		name        string
		from, until time.Time
		want        string
	}{
		{"expired before the timestamp", now.Add(-2 * time.Hour), now.Add(-time.Hour), CodeOutsideValidity},
		{"not yet valid at the timestamp", now.Add(time.Hour), now.Add(2 * time.Hour), CodeOutsideValidity},
		{"control: valid at the timestamp", now.Add(-5 * time.Minute), now.Add(5 * time.Minute), CodeIssuerMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := sigstoreBundle(leaf(tc.from, tc.until), ts, payload, sig)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := b.MarshalJSON()
			_, err = m.Certify(data, wrapper)
			var f *Failure
			if !errors.As(err, &f) || f.Code != tc.want {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}
