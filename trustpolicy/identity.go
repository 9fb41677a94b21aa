package trustpolicy

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/truncate"
)

// A CertificateIdentity is who may sign keylessly as an identity signer:
// a certificate from a Fulcio CA of the policy's trusted root whose OIDC
// issuer is Issuer exactly, whose identity (the certificate's SAN: an
// email, or a workflow URI for GitHub Actions) is Identity exactly or
// matches IdentityRegexp (RE2, anchored with ^ and $), and whose
// certificate extensions have the values of Extensions, each compared
// exactly. The signer identity of an identity signer's envelopes must be
// the certificate's identity.
//
// A loaded Policy trusts no envelope for an identity signer: package
// keyless (attest verify --trusted-root, run by mcpres-sigstore) verifies
// the certificate and timestamp with sigstore-go and adds the certified
// key as a key signer of the policy that bundle is verified against.
type CertificateIdentity struct {
	Issuer         string      `json:"issuer"`
	Identity       string      `json:"identity,omitempty"`
	IdentityRegexp string      `json:"identityRegexp,omitempty"`
	Extensions     *Extensions `json:"extensions,omitempty"`
}

// Extensions are the Fulcio certificate extensions (OIDs
// 1.3.6.1.4.1.57264.1.9 to .22) an identity signer may pin, named as
// sigstore-go's certificate.Extensions names them; empty members are not
// compared. Fulcio v1.8.8 issues no deployment-environment extension, so
// there is none here.
type Extensions struct {
	SourceRepositoryURI                 string `json:"sourceRepositoryURI,omitempty"`
	SourceRepositoryRef                 string `json:"sourceRepositoryRef,omitempty"`
	SourceRepositoryDigest              string `json:"sourceRepositoryDigest,omitempty"`
	SourceRepositoryIdentifier          string `json:"sourceRepositoryIdentifier,omitempty"`
	SourceRepositoryOwnerURI            string `json:"sourceRepositoryOwnerURI,omitempty"`
	SourceRepositoryOwnerIdentifier     string `json:"sourceRepositoryOwnerIdentifier,omitempty"`
	SourceRepositoryVisibilityAtSigning string `json:"sourceRepositoryVisibilityAtSigning,omitempty"`
	BuildSignerURI                      string `json:"buildSignerURI,omitempty"`
	BuildSignerDigest                   string `json:"buildSignerDigest,omitempty"`
	BuildConfigURI                      string `json:"buildConfigURI,omitempty"`
	BuildConfigDigest                   string `json:"buildConfigDigest,omitempty"`
	BuildTrigger                        string `json:"buildTrigger,omitempty"`
	RunnerEnvironment                   string `json:"runnerEnvironment,omitempty"`
}

// TrustedRoot names the Sigstore trusted root (trusted_root.json) identity
// signers are verified against, by the lowercase hex SHA-256 of the file.
type TrustedRoot struct {
	SHA256 string `json:"sha256"`
}

// String lists the pinned extensions as name=value, in order.
func (e *Extensions) String() string {
	var parts []string
	for _, kv := range []struct{ k, v string }{
		{"sourceRepositoryURI", e.SourceRepositoryURI}, {"sourceRepositoryRef", e.SourceRepositoryRef},
		{"sourceRepositoryDigest", e.SourceRepositoryDigest}, {"sourceRepositoryIdentifier", e.SourceRepositoryIdentifier},
		{"sourceRepositoryOwnerURI", e.SourceRepositoryOwnerURI}, {"sourceRepositoryOwnerIdentifier", e.SourceRepositoryOwnerIdentifier},
		{"sourceRepositoryVisibilityAtSigning", e.SourceRepositoryVisibilityAtSigning},
		{"buildSignerURI", e.BuildSignerURI}, {"buildSignerDigest", e.BuildSignerDigest},
		{"buildConfigURI", e.BuildConfigURI}, {"buildConfigDigest", e.BuildConfigDigest},
		{"buildTrigger", e.BuildTrigger}, {"runnerEnvironment", e.RunnerEnvironment},
	} {
		if kv.v != "" {
			parts = append(parts, kv.k+"="+kv.v)
		}
	}
	return strings.Join(parts, ", ")
}

func (c *CertificateIdentity) clone() *CertificateIdentity {
	if c == nil {
		return nil
	}
	d := *c
	if c.Extensions != nil {
		e := *c.Extensions
		d.Extensions = &e
	}
	return &d
}

// IsIdentity reports whether s is an identity signer (keyless) rather
// than a key.
func (s *Signer) IsIdentity() bool { return s.CertificateIdentity != nil }

// String describes c in one line: issuer, identity or expression.
func (c *CertificateIdentity) String() string {
	id := fmt.Sprintf("identity %q", c.Identity)
	if c.IdentityRegexp != "" {
		id = fmt.Sprintf("identity matching %q", c.IdentityRegexp)
	}
	return fmt.Sprintf("issuer %q, %s", c.Issuer, id)
}

// canaries are identities no policy means to trust: an expression that
// matches one of them matches more than was meant.
var canaries = []string{"", "x", "attacker@attacker.invalid", "https://attacker.invalid/attacker/repo/.github/workflows/release.yml@refs/heads/main"}

// CheckIdentityRegexp checks an identity expression of a policy: RE2
// syntax, anchored (the whole expression is ^…$: no top-level alternation,
// no multi-line mode), and not matching identities of any owner: an empty
// or arbitrary identity, an email or URI at an attacker's domain, or, when
// its literal prefix is only a scheme and host ("https://github.com/"),
// any owner on that host.
func CheckIdentityRegexp(expr string) error {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return fmt.Errorf("not an RE2 expression: %v", err)
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return errors.New("not anchored: write the whole expression as ^…$ (no top-level |, no (?m)), so that it cannot match inside a longer identity")
	}
	compiled, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("not an RE2 expression: %v", err)
	}
	for _, c := range canaries {
		if compiled.MatchString(c) {
			return fmt.Errorf("matches more than meant (it matches %q): pin the owner and repository or the email, e.g. ^https://github\\.com/OWNER/REPO/\\.github/workflows/release\\.yml@refs/tags/v.*$", c)
		}
	}
	prefix, _ := compiled.LiteralPrefix()
	if scheme, rest, ok := strings.Cut(prefix, "://"); ok && scheme != "" && strings.Count(rest, "/") <= 1 {
		host, _, _ := strings.Cut(rest, "/")
		probe := scheme + "://" + host + "/attacker-owned-canary/repo/.github/workflows/release.yml@refs/heads/main"
		if compiled.MatchString(probe) {
			return fmt.Errorf("matches any owner on %s (it matches %q): pin the owner and repository", host, probe)
		}
	}
	return nil
}

// checkIssuer checks an OIDC issuer URL: https, or http on a loopback
// address (test issuers).
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("not an absolute URL without user, query or fragment")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			return nil
		}
		return errors.New("plain http: an issuer is https (http only on a loopback address, for tests)")
	}
	return fmt.Errorf("scheme %q: an issuer is https", u.Scheme)
}

// certificateIdentity checks the certificateIdentity of signer s (index i,
// path at); it returns a key that equal identities share, "" when absent
// or invalid.
func (c *checker) certificateIdentity(s *canonjson.Value, at string) string {
	ci := s.Get("certificateIdentity")
	if !ci.Is(canonjson.Object) {
		return ""
	}
	at += "/certificateIdentity"
	ok := true
	if s.Has("identity") {
		c.add(strings.TrimSuffix(at, "/certificateIdentity")+"/identity", "certificateIdentity", "an identity signer's signer identity is its certificate's: leave identity out")
		ok = false
	}
	if s.Has("publicKey") {
		c.add(strings.TrimSuffix(at, "/certificateIdentity")+"/publicKey", "certificateIdentity", "an identity signer has no fixed key (each keyless signature has its own): leave publicKey out")
		ok = false
	}
	issuer, hasIssuer := str(ci, "issuer")
	if hasIssuer {
		if err := checkIssuer(issuer); err != nil {
			c.add(at+"/issuer", "certificateIdentity", "issuer %q: %v", truncate.String(issuer, 80), err)
			ok = false
		}
	}
	if expr, has := str(ci, "identityRegexp"); has {
		if err := CheckIdentityRegexp(expr); err != nil {
			c.add(at+"/identityRegexp", "identityRegexp", "%q: %v", truncate.String(expr, 120), err)
			ok = false
		}
	}
	if !ok || !hasIssuer {
		return ""
	}
	data, err := canonjson.Compact(ci)
	if err != nil {
		return ""
	}
	return string(data)
}

// trustedRoot checks that a policy with identity signers names its
// trusted root (the schema checks the digest's form).
func (c *checker) trustedRoot(doc *canonjson.Value, identitySigners []int) {
	if len(identitySigners) == 0 || doc.Get("trustedRoot").Is(canonjson.Object) {
		return
	}
	c.add("", "trustedRoot", "/signers/%s is an identity signer but the policy names no trustedRoot {\"sha256\": …}: identity signers are verified against a Sigstore trusted_root.json the policy names by digest", strconv.Itoa(identitySigners[0]))
}

// trustedRootMediaType starts the mediaType of a Sigstore trusted root
// (application/vnd.dev.sigstore.trustedroot+json;version=0.1 and later).
const trustedRootMediaType = "application/vnd.dev.sigstore.trustedroot"

// MaxTrustedRootSize bounds a trusted_root.json (the public one is about
// 10 KB).
const MaxTrustedRootSize = 1 << 20

// NameTrustedRoot names a Sigstore trusted_root.json for a policy: its
// SHA-256. data must read strictly (canonjson) as an object whose
// mediaType is a Sigstore trusted root's and that lists at least one
// certificate authority and one timestamp authority (what identity
// signers need); its certificates are checked when it is used, with
// sigstore-go.
func NameTrustedRoot(data []byte) (*TrustedRoot, error) {
	if len(data) > MaxTrustedRootSize {
		return nil, fmt.Errorf("larger than %d bytes", MaxTrustedRootSize)
	}
	v, err := canonjson.Parse(data)
	if err != nil {
		return nil, err
	}
	mt := v.Get("mediaType")
	if !mt.Is(canonjson.String) || !strings.HasPrefix(mt.Str, trustedRootMediaType) {
		return nil, fmt.Errorf("not a Sigstore trusted root (its mediaType is not %s…)", trustedRootMediaType)
	}
	for _, k := range []string{"certificateAuthorities", "timestampAuthorities"} {
		if l := v.Get(k); !l.Is(canonjson.Array) || len(l.Items) == 0 {
			return nil, fmt.Errorf("it lists no %s: identity signers need a Fulcio CA and a timestamp authority", k)
		}
	}
	return &TrustedRoot{SHA256: canonjson.BytesDigest(data)}, nil
}

// GitHubRepositoryURI is the sourceRepositoryURI Fulcio writes for a
// GitHub repository OWNER/REPO.
func GitHubRepositoryURI(repo string) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	valid := func(s string) bool {
		return s != "" && s != "." && s != ".." && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
	}
	if !ok || !valid(owner) || !valid(name) {
		return "", fmt.Errorf("%q is not OWNER/REPO", repo)
	}
	return "https://github.com/" + repo, nil
}
