package trustpolicy

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

const (
	ghIssuer   = "https://token.actions.githubusercontent.com"
	ghIdentity = "https://github.com/acme/weather-mcp/.github/workflows/release.yml@refs/tags/v1.4.0"
	rootDigest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// identityPolicy is testPolicy with an identity signer (the release
// workflow of acme/weather-mcp) and a trusted root.
func identityPolicy() *Document {
	d := testPolicy()
	d.AddSigner(Signer{Name: "release-workflow", Roles: []string{RoleSigner}, CertificateIdentity: &CertificateIdentity{
		Issuer: ghIssuer, IdentityRegexp: `^https://github\.com/acme/weather-mcp/\.github/workflows/release\.yml@refs/tags/v[0-9]+\.[0-9]+\.[0-9]+$`,
		Extensions: &Extensions{SourceRepositoryURI: "https://github.com/acme/weather-mcp", BuildTrigger: "push"},
	}})
	d.TrustedRoot = &TrustedRoot{SHA256: rootDigest}
	return d
}

func TestLoadIdentitySigner(t *testing.T) {
	p := mustLoad(t, identityPolicy())
	got := p.Document()
	ci := got.Signers[2].CertificateIdentity
	if ci == nil || ci.Issuer != ghIssuer || ci.Extensions.BuildTrigger != "push" || got.TrustedRoot.SHA256 != rootDigest || !got.Signers[2].IsIdentity() {
		t.Fatalf("identity signer lost in loading: %+v", got.Signers[2])
	}
	// Round trip: the document written loads again, byte for byte.
	a, _ := canonjson.Pretty(got.Value())
	p2 := mustLoad(t, got)
	b, _ := canonjson.Pretty(p2.Document().Value())
	if string(a) != string(b) || !strings.Contains(string(a), `"certificateIdentity"`) || strings.Contains(string(a), `"publicKey": ""`) {
		t.Fatalf("round trip:\n%s\n%s", a, b)
	}
	// An exact identity, on a loopback http test issuer, as a witness.
	d := testPolicy()
	d.AddSigner(Signer{Name: "w", Roles: []string{RoleWitness}, CertificateIdentity: &CertificateIdentity{Issuer: "http://127.0.0.1:5556/github", Identity: ghIdentity}})
	d.TrustedRoot = &TrustedRoot{SHA256: rootDigest}
	mustLoad(t, d)
}

// An identity signer trusts no key: its absent key is not a key.
func TestIdentitySignerTrustsNoKey(t *testing.T) {
	p := mustLoad(t, identityPolicy())
	if len(p.byKey) != 2 {
		t.Fatalf("keys trusted: %d, want the two key signers only", len(p.byKey))
	}
	if _, ok := p.byKey[""]; ok {
		t.Fatal("the empty key id is trusted")
	}
}

func TestLoadIdentityRejections(t *testing.T) {
	edit := func(f func(d *Document)) *canonjson.Value {
		d := identityPolicy()
		f(d)
		return d.Value()
	}
	ci := func(d *Document) *CertificateIdentity { return d.Signers[2].CertificateIdentity }
	setRe := func(re string) func(d *Document) {
		return func(d *Document) { ci(d).IdentityRegexp = re }
	}
	for _, tc := range []struct {
		name, path, keyword string
		doc                 *canonjson.Value
	}{
		{"unanchored", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`https://github\.com/acme/weather-mcp/.*`))},
		{"no end anchor", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`^https://github\.com/acme/weather-mcp/`))},
		{"top-level alternation", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`^https://github\.com/acme/a$|^.*$`))},
		{"multi-line mode", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`(?m)^https://github\.com/acme/a$`))},
		{"matches everything", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`^.*$`))},
		{"any email", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`^.+@.+$`))},
		{"any owner on the host", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`^https://github\.com/.*$`))},
		{"not RE2", "/signers/2/certificateIdentity/identityRegexp", "identityRegexp", edit(setRe(`^(?<=a)b$`))},
		{"plain http issuer", "/signers/2/certificateIdentity/issuer", "certificateIdentity", edit(func(d *Document) { ci(d).Issuer = "http://issuer.example" })},
		{"issuer not a URL", "/signers/2/certificateIdentity/issuer", "certificateIdentity", edit(func(d *Document) { ci(d).Issuer = "github" })},
		{"identity beside certificateIdentity", "/signers/2/identity", "certificateIdentity", edit(func(d *Document) { d.Signers[2].Identity = ghIdentity })},
		{"no trusted root", "", "trustedRoot", edit(func(d *Document) { d.TrustedRoot = nil })},
		{"same identity twice", "/signers/3/certificateIdentity", "uniqueIdentity", edit(func(d *Document) {
			s := d.Signers[2]
			s.Name = "again"
			d.AddSigner(s)
		})},
		{"both identity and regexp (schema)", "/signers/2/certificateIdentity", "oneOf", edit(func(d *Document) { ci(d).Identity = ghIdentity })},
		{"neither (schema)", "/signers/2/certificateIdentity", "oneOf", edit(func(d *Document) { ci(d).IdentityRegexp = "" })},
		{"key beside certificateIdentity", "/signers/2/publicKey", "certificateIdentity", edit(func(d *Document) { d.Signers[2].PublicKey = spki(testOnlyKeyThree()) })},
		{"bad root digest (schema)", "/trustedRoot/sha256", "pattern", edit(func(d *Document) { d.TrustedRoot.SHA256 = strings.ToUpper(rootDigest) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, problems := Load(tc.doc, testVal)
			if p != nil {
				t.Fatal("loaded")
			}
			found := false
			for _, pr := range problems {
				found = found || (pr.Path == tc.path && pr.Keyword == tc.keyword)
			}
			if !found {
				t.Fatalf("no %s problem at %q: %s", tc.keyword, tc.path, problemLines(problems))
			}
		})
	}
	// Unknown extension (schema: closed object).
	v := identityPolicy().Value()
	v.Get("signers").Items[2].Get("certificateIdentity").Get("extensions").Set("deploymentEnvironment", canonjson.NewString("prod"))
	if _, problems := Load(v, testVal); problems == nil || !strings.Contains(problemLines(problems), "additionalProperties") {
		t.Fatalf("unknown extension: %s", problemLines(problems))
	}
}

func TestCheckIdentityRegexp(t *testing.T) {
	for _, ok := range []string{
		`^https://github\.com/acme/weather-mcp/\.github/workflows/release\.yml@refs/tags/v.*$`,
		`^release@acme\.example$`,
		`^(release|publish)@acme\.example$`,
		`^https://github\.com/acme/.*$`, // every repository of one owner: pinned to the owner
	} {
		if err := CheckIdentityRegexp(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`.*`, `^.*$`, `^.*@acme\.example`, `acme`, `^a$|^b$`, `^$`, `^x?$`, `^[a-z]+@[a-z.]+$`, `^https://.*$`, `^https://gitlab\.com/.+$`} {
		if err := CheckIdentityRegexp(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestExportRefusesIdentitySigners(t *testing.T) {
	_, _, err := mustLoad(t, identityPolicy()).ExportUpstream(testVal)
	if !errors.Is(err, ErrIdentityNotExportable) || !strings.Contains(err.Error(), "release-workflow") {
		t.Fatalf("got %v", err)
	}
	// Control: the same policy without its identity signer exports.
	d := identityPolicy()
	d.Signers = d.Signers[:2]
	if _, _, err := mustLoad(t, d).ExportUpstream(testVal); err != nil {
		t.Fatal(err)
	}
	// Upstream (unchecked) drops it and says so.
	_, losses := mustLoad(t, identityPolicy()).Upstream()
	if !strings.Contains(strings.Join(losses, "\n"), "identity signer") {
		t.Fatalf("losses: %q", losses)
	}
}

// FuzzCheckIdentityRegexp: an accepted expression is anchored RE2 and
// matches none of the canaries.
func FuzzCheckIdentityRegexp(f *testing.F) {
	for _, s := range []string{`^https://github\.com/acme/r/\.github/workflows/w\.yml@refs/tags/v.*$`, `^.*$`, `^a$|b`, `(?m)^a$`, `^(?i)A@B\.C$`, `^\Qhttps://x\E/.*$`, `^$`, `^https://[a-z]+\.com/acme/.*$`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if CheckIdentityRegexp(expr) != nil {
			return
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			t.Fatalf("accepted a non-RE2 expression %q", expr)
		}
		for _, c := range canaries {
			if re.MatchString(c) {
				t.Fatalf("%q accepted but matches %q", expr, c)
			}
		}
		// Anchored: no match inside a longer string made of a match.
		if re.MatchString("prefix-"+re.String()) && !strings.HasPrefix(expr, "^") {
			t.Fatalf("%q not anchored", expr)
		}
	})
}

// FuzzLoadCertificateIdentity: whatever the certificateIdentity member
// holds, Load returns a policy or problems, never both, and a loaded
// identity signer's expression passes CheckIdentityRegexp and survives a
// round trip.
func FuzzLoadCertificateIdentity(f *testing.F) {
	for _, s := range []string{
		`{"issuer":"https://token.actions.githubusercontent.com","identity":"https://github.com/a/b/.github/workflows/r.yml@refs/tags/v1"}`,
		`{"issuer":"https://i.example","identityRegexp":"^.*$"}`,
		`{"issuer":"http://127.0.0.1:1/x","identityRegexp":"^a@b\\.c$","extensions":{"buildTrigger":"push"}}`,
		`{"issuer":"https://i.example","identity":"x","identityRegexp":"^x$"}`,
		`{"issuer":"","identity":"x"}`, `{}`, `null`, `[]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, member string) {
		mv, err := canonjson.Parse([]byte(member))
		if err != nil {
			return
		}
		v := identityPolicy().Value()
		v.Get("signers").Items[2].Set("certificateIdentity", mv)
		p, problems := Load(v, testVal)
		if (p == nil) == (problems == nil) {
			t.Fatalf("policy %v and problems %v", p, problems)
		}
		if p == nil {
			return
		}
		ci := p.Document().Signers[2].CertificateIdentity
		if ci == nil || checkIssuer(ci.Issuer) != nil || (ci.Identity == "") == (ci.IdentityRegexp == "") {
			t.Fatalf("%s loaded as %+v", member, ci)
		}
		if ci.IdentityRegexp != "" && CheckIdentityRegexp(ci.IdentityRegexp) != nil {
			t.Fatalf("%s: expression loaded but fails the check", member)
		}
		if _, problems := Load(p.Document().Value(), testVal); problems != nil {
			t.Fatalf("%s: the round trip does not load: %v", member, problems)
		}
	})
}

const minimalRoot = `{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","certificateAuthorities":[{}],"timestampAuthorities":[{}]}`

func TestNameTrustedRoot(t *testing.T) {
	r, err := NameTrustedRoot([]byte(minimalRoot))
	if err != nil || r.SHA256 != canonjson.BytesDigest([]byte(minimalRoot)) {
		t.Fatalf("control: %v %+v", err, r)
	}
	for name, data := range map[string]string{
		"not JSON":          "{",
		"duplicate member":  `{"mediaType":"x","mediaType":"y"}`,
		"other media type":  `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","certificateAuthorities":[{}],"timestampAuthorities":[{}]}`,
		"no CA":             strings.Replace(minimalRoot, `"certificateAuthorities":[{}]`, `"certificateAuthorities":[]`, 1),
		"no TSA":            strings.Replace(minimalRoot, `,"timestampAuthorities":[{}]`, ``, 1),
		"oversized padding": minimalRoot + strings.Repeat(" ", MaxTrustedRootSize),
	} {
		if _, err := NameTrustedRoot([]byte(data)); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func TestGitHubRepositoryURI(t *testing.T) {
	if u, err := GitHubRepositoryURI("acme/weather-mcp"); err != nil || u != "https://github.com/acme/weather-mcp" {
		t.Fatalf("%q %v", u, err)
	}
	for _, bad := range []string{"acme", "acme/", "/r", "a/b/c", "a/..", "a b/c", "a/b?x"} {
		if _, err := GitHubRepositoryURI(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzNameTrustedRoot(f *testing.F) {
	f.Add([]byte(minimalRoot))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NameTrustedRoot(data)
		if err != nil {
			return
		}
		if r.SHA256 != canonjson.BytesDigest(data) || !isFingerprint(r.SHA256) {
			t.Fatalf("named %q", r.SHA256)
		}
	})
}

// The ad-hoc identity policy of attest verify --certificate-identity: an
// identity signer that loads as a policy file does, bound to the bundle's
// trustPolicyId; an expression that matches anyone is refused as in a
// file (the control: an anchored one of one owner loads).
func TestNewAdHocIdentity(t *testing.T) {
	root := TrustedRoot{SHA256: rootDigest}
	at := "2026-12-03T00:00:00.000Z"
	a, problems := NewAdHocIdentity(CertificateIdentity{Issuer: "https://token.actions.githubusercontent.com",
		IdentityRegexp: `^https://github\.com/acme/weather-mcp/\.github/workflows/release\.yml@refs/tags/v[0-9.]+$`}, root, at, nil)
	if len(problems) > 0 {
		t.Fatalf("anchored expression of one owner: %v", problems)
	}
	d := a.DocumentFor(nil)
	if d.ID != AdHocPolicyID || d.TrustedRoot == nil || d.TrustedRoot.SHA256 != rootDigest || len(d.Signers) != 1 || !d.Signers[0].IsIdentity() || d.ValidUntil != at {
		t.Fatalf("ad-hoc identity policy: %+v", d)
	}
	if !strings.Contains(a.Note(), "keyless signatures of issuer") {
		t.Errorf("note %q", a.Note())
	}
	if _, problems := NewAdHocIdentity(CertificateIdentity{Issuer: "https://token.actions.githubusercontent.com", IdentityRegexp: ".*"}, root, at, nil); len(problems) == 0 {
		t.Error(`identity expression ".*" accepted`)
	}
	if _, problems := NewAdHocIdentity(CertificateIdentity{Issuer: "", Identity: "release@example.org"}, root, at, nil); len(problems) == 0 {
		t.Error("an identity signer without an issuer accepted")
	}
}
