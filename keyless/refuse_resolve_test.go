package keyless

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// ResolveIn adds each certified key as a key signer with its identity
// signer's roles and window (once per key, among the witnesses where the
// identity signer is), and refuses a certification that names no identity
// signer of the policy; the policy it was given is left as it is.
func TestResolveIn(t *testing.T) {
	m := testMaterial(t)
	base := m.policy.Clone()
	base.Witnesses = &trustpolicy.Witnesses{Quorum: 1, Members: []string{"s"}}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	cert := &Certification{Signer: "s", Identity: "a@b.example", Issuer: "https://i.example", Key: pub}

	d, err := m.ResolveIn(base, []*Certification{cert, cert})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	if len(d.Signers) != 2 || len(base.Signers) != 1 {
		t.Fatalf("signers %d (base %d), want the identity signer and one key", len(d.Signers), len(base.Signers))
	}
	added := d.Signers[1]
	spki, _ := x509.MarshalPKIXPublicKey(pub)
	if added.Name != "s.0" || added.Identity != "a@b.example" || added.PublicKey != base64.StdEncoding.EncodeToString(spki) ||
		strings.Join(added.Roles, ",") != "signer" || added.CertificateIdentity != nil {
		t.Errorf("added %+v", added)
	}
	if strings.Join(d.Witnesses.Members, ",") != "s,s.0" || strings.Join(base.Witnesses.Members, ",") != "s" {
		t.Errorf("witnesses %v (base %v)", d.Witnesses.Members, base.Witnesses.Members)
	}
	if r, err := m.Resolve([]*Certification{cert}); err != nil || len(r.Signers) != 2 {
		t.Errorf("Resolve: %v", err)
	}

	other, _, _ := ed25519.GenerateKey(rand.Reader)
	stray := *cert
	stray.Signer, stray.Key = "nobody", other
	if _, err := m.ResolveIn(base, []*Certification{cert, &stray}); err == nil || err.Error() != "certification 1 names no identity signer of the policy" {
		t.Errorf("stray certification: %v", err)
	}
	// A key signer of that name is not an identity signer.
	keyOnly := base.Clone()
	keyOnly.Signers[0].CertificateIdentity = nil
	if _, err := m.ResolveIn(keyOnly, []*Certification{cert}); err == nil {
		t.Error("a certification resolved into a key signer")
	}
}

// Resolved refuses more Sigstore bundles than one attested bundle may
// carry and a Sigstore bundle that does not read, each as a Failure with
// its code (numbered when there are several); PolicyFor then gives the
// base policy refusing the bundle with that code and no notes. No
// Sigstore bundle leaves the base policy as it is (control).
func TestResolvedRefuses(t *testing.T) {
	m := testMaterial(t)
	w := envelopeWrapper([]byte("p"), []byte("s"), make(ed25519.PublicKey, ed25519.PublicKeySize), "a@b.example")

	d, notes, f := m.Resolved(m.policy, w, nil)
	if f != nil || notes != nil || len(d.Signers) != 1 {
		t.Fatalf("control: %v %v", f, notes)
	}
	lp, notes := m.PolicyFor(m.policy, w, nil, trustpolicy.OpenOptions{})
	if p, errs, err := lp.Policy(); err != nil || len(errs) > 0 || p == nil || notes != nil {
		t.Fatalf("control PolicyFor: %v %v %v", errs, err, notes)
	}

	tooMany := make([][]byte, maxSigstoreBundlesPerRun+1)
	if _, _, f := m.Resolved(m.policy, w, tooMany); f == nil || f.Code != CodeMaterialInvalid || !strings.HasSuffix(f.Detail, "Sigstore bundles for one attested bundle: at most "+strconv.Itoa(maxSigstoreBundlesPerRun)) {
		t.Errorf("too many: %v", f)
	}
	if _, _, f := m.Resolved(m.policy, w, [][]byte{[]byte("{")}); f == nil || f.Code != CodeMaterialInvalid || !strings.HasPrefix(f.Detail, "not a Sigstore bundle: ") {
		t.Errorf("one unreadable: %v", f)
	}
	_, _, f = m.Resolved(m.policy, w, [][]byte{[]byte("{"), []byte("{")})
	if f == nil || !strings.HasPrefix(f.Detail, "Sigstore bundle 1: not a Sigstore bundle: ") {
		t.Errorf("two, the first unreadable: %v", f)
	}
	var asErr error = f
	if asErr.Error() != f.Code+": "+f.Detail {
		t.Errorf("Failure.Error: %q", asErr.Error())
	}

	// PolicyFor: the base policy refusing the bundle with the code, which
	// a verification that reaches the policy reports.
	signed, err := attest.SignBundle(bundletest.Example(t), attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	lp, notes = m.PolicyFor(m.policy, signed.Attested, [][]byte{[]byte("{")}, trustpolicy.OpenOptions{})
	r, err := attest.Verify(signed.Attested, attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Policy: lp})
	if err != nil || r.Valid || len(r.Diagnostics) != 1 || r.Diagnostics[0] != CodeMaterialInvalid || notes != nil {
		t.Errorf("refused policy: %v valid %t %v %s, notes %v", err, r.Valid, r.Diagnostics, r.Detail, notes)
	}
}
