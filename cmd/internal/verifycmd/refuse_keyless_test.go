package verifycmd

import (
	"crypto/ed25519"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
)

// fakeCertifier certifies nothing: it loads the base policy as it is
// (what a Sigstore bundle that certifies no envelope leaves) and records
// the Sigstore bundles it was handed.
type fakeCertifier struct{ got [][]byte }

func (f *fakeCertifier) PolicyFor(base *trustpolicy.Document, _ *canonjson.Value, sbs [][]byte, o trustpolicy.OpenOptions) (*attest.LoadedPolicy, []string) {
	f.got = append(f.got, sbs...)
	return trustpolicy.Open(base.Value(), o), []string{"keyless: fake certification"}
}

// v1Policy is an mcpres.trust-policy/v1 policy trusting attesttest's
// first key as IdentityOne, for attesttest's trustPolicyId.
func v1Policy(t *testing.T) []byte {
	t.Helper()
	pub, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	d := trustpolicy.New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	d.AddSigner(trustpolicy.Signer{Name: "one", Identity: attesttest.IdentityOne, PublicKey: string(pub), Roles: []string{trustpolicy.RoleSigner}})
	return mustPretty(t, d.Value())
}

// With --trusted-root, a trusted root that cannot be read, a certifier
// that refuses the root, and an mcp-res 0.2.0 policy (no identity
// signers) are refused before any input is verified; a --sigstore-bundle
// that cannot be read is an input error of that input; without a Sigstore
// bundle beside the file a note says so. The certifier is handed the
// Sigstore bundle given, and the file verifies (controls).
func TestCommandRefusesKeylessInputs(t *testing.T) {
	path, _ := signedExample(t)
	dir := t.TempDir()
	root := writeFile(t, dir, "trusted_root.json", []byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`))
	v1 := writeFile(t, dir, "policy.json", v1Policy(t))
	upstream := writeFile(t, dir, "upstream.json", mustPretty(t, attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}})))
	cert := &fakeCertifier{}
	var roots []string
	c := Config{Keyless: func(p *trustpolicy.Document, trustedRoot []byte) (Certifier, error) {
		roots = append(roots, string(trustedRoot))
		if p.ID != attesttest.TrustPolicyID {
			return nil, errors.New("another policy")
		}
		return cert, nil
	}}

	missing := filepath.Join(dir, "missing.json")
	if msg := runVerify(t, c, "--trusted-root", missing, "--policy", v1, path).command(t); !strings.HasPrefix(msg, "--trusted-root: ") || !strings.Contains(msg, "missing.json") {
		t.Errorf("missing root: %q", msg)
	}
	refusing := c
	refusing.Keyless = func(*trustpolicy.Document, []byte) (Certifier, error) {
		return nil, errors.New("MCPRES_KEYLESS_TRUSTED_ROOT_MISMATCH: the trusted root is not the one the policy names")
	}
	if msg := runVerify(t, refusing, "--trusted-root", root, "--policy", v1, path).command(t); msg != "--trusted-root "+root+": MCPRES_KEYLESS_TRUSTED_ROOT_MISMATCH: the trusted root is not the one the policy names" {
		t.Errorf("refused root: %q", msg)
	}
	if msg := runVerify(t, c, "--trusted-root", root, "--policy", upstream, path).usage(t); msg != "--trusted-root: "+upstream+" is an mcp-res.trust-policy/0.2.0 policy, which has no identity signers (docs/keyless.md)" {
		t.Errorf("0.2.0 policy: %q", msg)
	}
	r := runVerify(t, c, "--format", "text", "--trusted-root", root, "--policy", v1, "--sigstore-bundle", missing, path)
	if r.exit(t) != ExitInput || !strings.HasPrefix(r.stdout, path+": INPUT INVALID MCP_RES_INPUT_INVALID: Sigstore bundle "+missing+": ") {
		t.Errorf("missing Sigstore bundle: %v %q", r.err, r.stdout)
	}

	// Controls: no Sigstore bundle beside the file is a note, not a
	// failure; one beside it is handed to the certifier.
	r = runVerify(t, c, "--format", "text", "--trusted-root", root, "--policy", v1, path)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, "note: keyless: no Sigstore bundle at "+path+".sigstore.json: no envelope is certified for an identity signer") {
		t.Fatalf("no material: %v %q %q", r.err, r.stdout, r.stderr)
	}
	beside := MaterialBeside(path)
	if len(beside) != 0 {
		t.Fatalf("material beside a fresh file: %q", beside)
	}
	sb := writeFile(t, filepath.Dir(path), filepath.Base(path)+".sigstore.json", []byte(`{"sigstore":1}`))
	if got := MaterialBeside(path); len(got) != 1 || got[0] != sb {
		t.Fatalf("MaterialBeside: %q, want %q", got, sb)
	}
	r = runVerify(t, c, "--format", "text", "--trusted-root", root, "--policy", v1, path)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, "note: keyless: fake certification") || len(cert.got) != 1 || string(cert.got[0]) != `{"sigstore":1}` {
		t.Fatalf("material beside: %v %q, certifier got %q", r.err, r.stdout, cert.got)
	}
	if len(roots) == 0 || roots[len(roots)-1] != `{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}` {
		t.Errorf("the certifier was given %q", roots)
	}
}

// An ad-hoc identity (--certificate-identity with
// --certificate-oidc-issuer) refuses a trusted root that is not one
// (naming it) and an identity the policy loader refuses (a usage error
// naming the flags); a well-formed pair builds the certifier of its
// one-identity policy (control).
func TestCommandRefusesAdHocIdentity(t *testing.T) {
	path, _ := signedExample(t)
	dir := t.TempDir()
	notRoot := writeFile(t, dir, "not-root.json", []byte(`{"mediaType":"application/json"}`))
	root := writeFile(t, dir, "trusted_root.json", []byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","certificateAuthorities":[{}],"timestampAuthorities":[{}]}`))
	var policies []*trustpolicy.Document
	c := Config{Keyless: func(p *trustpolicy.Document, _ []byte) (Certifier, error) {
		policies = append(policies, p)
		return &fakeCertifier{}, nil
	}}
	adHoc := []string{"--certificate-identity", "release@example.org", "--certificate-oidc-issuer", "https://issuer.example.org"}

	msg := runVerify(t, c, append(append([]string{"--trusted-root", notRoot}, adHoc...), path)...).command(t)
	if !strings.HasPrefix(msg, "--trusted-root "+notRoot+": not a Sigstore trusted root") {
		t.Errorf("not a root: %q", msg)
	}
	msg = runVerify(t, c, "--trusted-root", root, "--certificate-identity-regexp", ".*", "--certificate-oidc-issuer", "https://issuer.example.org", path).usage(t)
	if !strings.HasPrefix(msg, "--certificate-identity/--certificate-oidc-issuer: ") {
		t.Errorf("identity matching anything: %q", msg)
	}
	if len(policies) != 0 {
		t.Fatalf("a certifier was built for a refused command line")
	}
	r := runVerify(t, c, append(append([]string{"--format", "text", "--trusted-root", root}, adHoc...), path)...)
	if len(policies) != 1 || policies[0].ID != trustpolicy.AdHocPolicyID || len(policies[0].Signers) != 1 || policies[0].Signers[0].CertificateIdentity == nil {
		t.Fatalf("control: %v %q, policies %+v", r.err, r.stdout, policies)
	}
	if !strings.Contains(r.stdout, "note: ad-hoc trust policy (mcpres.ad-hoc): trusts only keyless signatures of ") {
		t.Errorf("control: no ad-hoc note in %q", r.stdout)
	}
}
