package inspect_test

import (
	"strings"
	"testing"

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
