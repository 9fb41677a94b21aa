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
	m, _, res := signedWithMaterial(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Certify(res.SigstoreBundle, res.Attested); err != nil {
			b.Fatal(err)
		}
	}
}

// signedWithMaterial signs the example bundle keyless with a real Fulcio
// and timestamp authority (keylesstest's stack, started for tb) and
// returns it with the material of a policy whose one identity signer is
// its signer, and that policy.
func signedWithMaterial(tb testing.TB) (*keyless.Material, *trustpolicy.Document, *keyless.Result) {
	tb.Helper()
	s := keylesstest.NewStack(tb)
	tr, err := keyless.FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		tb.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	tok, err := keyless.ParseToken(s.EmailToken(tb, "release@example.org", nil), nowTime())
	if err != nil {
		tb.Fatal(err)
	}
	o := keyless.Options{Token: tok, FulcioURL: s.FulcioURL, TSAURL: s.TSAURL, TrustedRoot: tr}
	o.SigningTime, o.TrustPolicyID = "2026-12-01T00:00:00.000Z", "p"
	res, err := keyless.Sign(context.Background(), bundletest.Example(tb), o)
	if err != nil {
		tb.Fatal(err)
	}
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "s", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(trJSON)}
	m, err := keyless.NewMaterial(d, trJSON)
	if err != nil {
		tb.Fatal(err)
	}
	return m, d, res
}

func nowTime() time.Time { return time.Now() }
