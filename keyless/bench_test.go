package keyless_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// BenchmarkCertify is the keyless part of verifying one bundle offline:
// the Sigstore bundle parsed, timestamp, chain, signature and identity
// verified with sigstore-go, the envelope bound (the trusted root parsed
// once, as a batch does).
func BenchmarkCertify(b *testing.B) {
	s := keylesstest.NewStack(b)
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		b.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	tok, err := keyless.ParseToken(s.EmailToken(b, "release@example.org", nil), nowTime())
	if err != nil {
		b.Fatal(err)
	}
	o := keyless.Options{Token: tok, FulcioURL: s.FulcioURL, TSAURL: s.TSAURL, TrustedRoot: tr}
	o.SigningTime, o.TrustPolicyID = "2026-12-01T00:00:00.000Z", "p"
	res, err := keyless.Sign(context.Background(), bundletest.Example(b), o)
	if err != nil {
		b.Fatal(err)
	}
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "s", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(trJSON)}
	m, err := keyless.NewMaterial(d, trJSON)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Certify(res.SigstoreBundle, res.Attested); err != nil {
			b.Fatal(err)
		}
	}
}

func nowTime() time.Time { return time.Now() }
