package trustpolicy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/validator"
)

// adHocSigner is attesttest's key of name ("one", "two") as an ad-hoc
// signer with its identity.
func adHocSigner(t *testing.T, name string) AdHocSigner {
	t.Helper()
	key, id := attesttest.TestOnlyKeyOne(), attesttest.IdentityOne
	if name == "two" {
		key, id = attesttest.TestOnlyKeyTwo(), attesttest.IdentityTwo
	}
	p, err := keyfile.MarshalPublicKeyPEM(pub(key))
	if err != nil {
		t.Fatal(err)
	}
	return AdHocSigner{PublicKeyPEM: p, Identity: id, Name: name + ".pub"}
}

// NewAdHoc refuses what a policy file with the same signers would fail
// with, by the signer's path: a key that is not Ed25519, an empty
// identity, the same key twice. One key trusts its signer
// (SIGNED_WITH_IDENTITY) for the id the bundle names; two keys that both
// signed give WITNESSED (controls). The note names the keys.
func TestNewAdHocRefuses(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	p256 := AdHocSigner{PublicKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), Identity: "x", Name: "p256.pub"}
	noID := adHocSigner(t, "one")
	noID.Identity = ""
	for _, tt := range []struct {
		name    string
		signers []AdHocSigner
		path    string
	}{
		{"P-256 key", []AdHocSigner{p256}, "/signers/0"},
		{"empty identity", []AdHocSigner{noID}, "/signers/0"},
		{"the same key twice", []AdHocSigner{adHocSigner(t, "one"), adHocSigner(t, "one")}, "/signers/1"},
	} {
		a, problems := NewAdHoc(tt.signers, attesttest.EvaluatedAt, nil)
		if a != nil || len(problems) == 0 || !strings.HasPrefix(problems[0].Path, tt.path) {
			t.Errorf("%s: %v, want a problem at %s", tt.name, problems, tt.path)
		}
	}

	b := bundletest.Example(t)
	claim := attest.SignedWithIdentity
	o := attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne), Claim: &claim}
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), o)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(a *AdHoc) attest.Result {
		t.Helper()
		r, err := attest.Verify(s.Attested, attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Policy: a.ForBundle(s.Attested)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, problems := NewAdHoc([]AdHocSigner{adHocSigner(t, "one")}, attesttest.EvaluatedAt, nil)
	if problems != nil {
		t.Fatalf("control: %v", problems)
	}
	if r := verify(one); !r.Valid || r.Level != attest.SignedWithIdentity {
		t.Errorf("one key: %v %s %s", r.Diagnostics, r.Detail, r.Level)
	}
	if d := one.DocumentFor(s.Attested); d.ID != attesttest.TrustPolicyID {
		t.Errorf("bound to %q, want the bundle's %q", d.ID, attesttest.TrustPolicyID)
	}
	if want := `ad-hoc trust policy (mcpres.ad-hoc): trusts only one.pub as "` + attesttest.IdentityOne + `", for the trustPolicyId the first envelope names, until the evaluation time`; one.Note() != want {
		t.Errorf("note %q", one.Note())
	}
	// The other key alone does not trust the bundle.
	other, _ := NewAdHoc([]AdHocSigner{adHocSigner(t, "two")}, attesttest.EvaluatedAt, validator.New())
	if r := verify(other); r.Valid || r.Diagnostics[0] != attest.CodeUntrustedSigner {
		t.Errorf("the other key: %v %s", r.Diagnostics, r.Detail)
	}
	// Two keys, both signed: WITNESSED.
	w := attest.Witnessed
	co := attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityTwo), Claim: &w}
	c, err := attest.Cosign(s.Attested, attesttest.TestOnlyKeyTwo(), co)
	if err != nil {
		t.Fatal(err)
	}
	both, problems := NewAdHoc([]AdHocSigner{adHocSigner(t, "one"), adHocSigner(t, "two")}, attesttest.EvaluatedAt, nil)
	if problems != nil {
		t.Fatal(problems)
	}
	r, err := attest.Verify(c.Attested, attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Policy: both.ForBundle(c.Attested)})
	if err != nil || !r.Valid || r.Level != attest.Witnessed {
		t.Errorf("two keys: %v %v %s %s", err, r.Diagnostics, r.Detail, r.Level)
	}
}

// Unreadable stands for a policy file that could not be read: a
// verification that reaches the policy returns the read error itself (no
// result), never "no policy".
func TestUnreadable(t *testing.T) {
	s, err := attest.SignBundle(bundletest.Example(t), attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("cannot read policy.json: permission denied")
	r, err := attest.Verify(s.Attested, attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Policy: Unreadable(cause)})
	if err != cause || r.Valid {
		t.Errorf("unreadable policy: %v, valid %t", err, r.Valid)
	}
	// Control: the same bundle with no policy verifies (SIGNED).
	if r, err := attest.Verify(s.Attested, attest.Options{EvaluatedAt: attesttest.EvaluatedAt}); err != nil || !r.Valid {
		t.Errorf("control: %v %v", err, r.Diagnostics)
	}
}
