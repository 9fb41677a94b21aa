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
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/inspect"
)

// An identity (keyless) signer is described by its certificate identity,
// with no key problem; the trusted root's digest is shown.
func TestDescribeIdentityPolicy(t *testing.T) {
	doc, _ := canonjson.Parse(read(t, "transparency/policy.json"))
	ci, _ := canonjson.Parse([]byte(`{"issuer":"https://token.actions.githubusercontent.com","identityRegexp":"^https://github\\.com/acme/weather-mcp/\\.github/workflows/release\\.yml@refs/tags/v.*$","extensions":{"sourceRepositoryRef":"refs/tags/v1.4.0"}}`))
	s := doc.Get("signers").Items[0]
	s.Delete("identity")
	s.Delete("publicKey")
	s.Set("certificateIdentity", ci)
	root, _ := canonjson.Parse([]byte(`{"sha256":"` + strings.Repeat("ab", 32) + `"}`))
	doc.Set("trustedRoot", root)
	data, _ := canonjson.Pretty(doc)
	d := describe(t, data)
	if len(d.Problems) != 0 {
		t.Fatalf("problems %q", d.Problems)
	}
	if p := d.Policy; p.Signers[0].CertificateIdentity == nil || p.Signers[0].KeyFingerprint != "" || p.TrustedRootSHA256 != strings.Repeat("ab", 32) || d.Kind != inspect.KindTrustPolicy {
		t.Fatalf("%+v", p)
	}
	mustContain(t, text(d), `"signer-one" keyless: certificate issuer "https://token.actions.githubusercontent.com", identity matching "^https://github`,
		"extensions sourceRepositoryRef=refs/tags/v1.4.0", "trusted root (identity signers): trusted_root.json with SHA-256 abab")
}

// A keyless Sigstore bundle is described (certificate identity, issuer,
// validity, key; timestamps; DSSE) without verifying anything.
func TestDescribeSigstoreBundle(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	issuer, _ := asn1.MarshalWithParams("https://token.actions.githubusercontent.com", "utf8")
	u, _ := url.Parse("https://github.com/acme/weather-mcp/.github/workflows/release.yml@refs/tags/v1.4.0")
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Unix(1_800_000_000, 0), NotAfter: time.Unix(1_800_000_600, 0), URIs: []*url.URL{u},
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 8}, Value: issuer}}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, caKey)
	if err != nil {
		t.Fatal(err)
	}
	sb := `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"` + base64.StdEncoding.EncodeToString(der) +
		`"},"tlogEntries":[],"timestampVerificationData":{"rfc3161Timestamps":[{"signedTimestamp":"AA=="}]}},"dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA==","keyid":""}]}}`
	d := describe(t, []byte(sb))
	c := d.Sigstore.Certificate
	if d.Kind != inspect.KindSigstoreBundle || len(d.Problems) != 0 || c == nil || c.Identity != u.String() || c.Issuer != "https://token.actions.githubusercontent.com" || d.Sigstore.Timestamps != 1 || c.KeyFingerprint == "" {
		t.Fatalf("%+v %+v %q", d.Sigstore, c, d.Problems)
	}
	mustContain(t, text(d), `certificate: identity "https://github.com/acme/weather-mcp/.github/workflows/release.yml@refs/tags/v1.4.0", issuer "https://token.actions.githubusercontent.com"`,
		"RFC 3161 timestamps: 1, transparency-log entries: 0", "DSSE application/vnd.in-toto+json, 1 signature(s)")
	// A certificate that does not parse is a problem, not an error.
	d = describe(t, []byte(strings.Replace(sb, base64.StdEncoding.EncodeToString(der), "AAAA", 1)))
	if len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "certificate") {
		t.Fatalf("problems %q", d.Problems)
	}
}
