package keyless

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyless/keylesstest"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
)

// match names the identity signer a certificate is for, or refuses it
// with the most specific mismatch: no signer has its issuer
// (CodeIssuerMismatch), its identity matches no signer of that issuer
// (CodeIdentityMismatch), or a pinned extension differs
// (CodeExtensionMismatch). A certificate that matches a signer, by exact
// identity or by expression, is named (controls).
func TestMatchRefuses(t *testing.T) {
	data, err := keylesstest.OtherTrustedRoot(t).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	d := trustpolicy.New("p", "2026-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "mail", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{Issuer: "https://mail.example", Identity: "a@b.example"}})
	d.AddSigner(trustpolicy.Signer{Name: "ci", Roles: []string{"signer"}, CertificateIdentity: &trustpolicy.CertificateIdentity{
		Issuer: "https://token.actions.example", IdentityRegexp: `^https://github\.com/acme/server/\.github/workflows/release\.yml@refs/tags/v.*$`,
		Extensions: &trustpolicy.Extensions{SourceRepositoryURI: "https://github.com/acme/server"},
	}})
	d.TrustedRoot = &trustpolicy.TrustedRoot{SHA256: canonjson.BytesDigest(data)}
	m, err := NewMaterial(d, data)
	if err != nil {
		t.Fatal(err)
	}
	ciSum := func(san, repo string) certificate.Summary {
		s := certificate.Summary{SubjectAlternativeName: san}
		s.Extensions.Issuer, s.Extensions.SourceRepositoryURI = "https://token.actions.example", repo
		return s
	}
	mail := certificate.Summary{SubjectAlternativeName: "a@b.example"}
	mail.Extensions.Issuer = "https://mail.example"

	for _, tt := range []struct {
		name string
		sum  certificate.Summary
		want string // signer, or the failure's code
	}{
		{"mail", mail, "mail"},
		{"release tag", ciSum("https://github.com/acme/server/.github/workflows/release.yml@refs/tags/v1.2.0", "https://github.com/acme/server"), "ci"},
		{"another issuer", func() certificate.Summary { s := mail; s.Extensions.Issuer = "https://other.example"; return s }(), CodeIssuerMismatch},
		{"another mailbox", func() certificate.Summary { s := mail; s.SubjectAlternativeName = "c@b.example"; return s }(), CodeIdentityMismatch},
		{"a branch, not a tag", ciSum("https://github.com/acme/server/.github/workflows/release.yml@refs/heads/main", "https://github.com/acme/server"), CodeIdentityMismatch},
		{"a fork's repository", ciSum("https://github.com/acme/server/.github/workflows/release.yml@refs/tags/v1.2.0", "https://github.com/evil/server"), CodeExtensionMismatch},
	} {
		got, err := m.match(tt.sum)
		var f *Failure
		switch {
		case err == nil && got != tt.want:
			t.Errorf("%s: matched %q, want %s", tt.name, got, tt.want)
		case err != nil && (!errors.As(err, &f) || f.Code != tt.want):
			t.Errorf("%s: %v, want %s", tt.name, err, tt.want)
		case err != nil && !strings.Contains(f.Detail, tt.sum.SubjectAlternativeName) && f.Code != CodeIssuerMismatch:
			t.Errorf("%s: %q does not name the certificate's identity", tt.name, f.Detail)
		}
	}
}
