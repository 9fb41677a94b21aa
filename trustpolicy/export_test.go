package trustpolicy

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// TestUpstreamProjectionExact: the v1 counterpart of the corpus test policy
// (both keys signers and witnesses, quorum 1, identities not required to
// differ) projects to exactly the upstream corpus test policy.
func TestUpstreamProjectionExact(t *testing.T) {
	d := testPolicy()
	d.Signers[0].Roles = []string{RoleSigner, RoleWitness}
	d.Witnesses = witnessRule(1, false, "signer-one", "signer-two")
	up, losses := mustLoad(t, d).Upstream()
	if losses != nil {
		t.Errorf("losses: %v", losses)
	}
	if want := attesttest.Policy(attesttest.PolicyOptions{}); !canonjson.Equal(up, want) {
		a, _ := canonjson.Compact(up)
		b, _ := canonjson.Compact(want)
		t.Errorf("projection\n%s\nwant\n%s", a, b)
	}
	if errs := testVal.SchemaErrors(schema.TrustPolicy, up); errs != nil {
		t.Errorf("projection fails the upstream schema: %v", errs)
	}
	// Both policies give the same results on the corpus fixtures.
	for _, name := range []string{"signed-with-identity.json", "witnessed.json", "overclaim-witnessed-one-signer.json", "signer-identity-mismatch.json"} {
		a := verify(t, fixture(t, name), d, attesttest.EvaluatedAt)
		b, err := attest.Verify(fixture(t, name), attest.Options{Policy: Open(up, OpenOptions{Validator: testVal}), EvaluatedAt: attesttest.EvaluatedAt, Validator: testVal})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Diagnostics, b.Diagnostics) || a.Level != b.Level {
			t.Errorf("%s: v1 %v %s, upstream %v %s", name, a.Diagnostics, a.Level, b.Diagnostics, b.Level)
		}
	}
}

func TestUpstreamProjectionLosses(t *testing.T) {
	one, three := attesttest.TestOnlyKeyOne(), testOnlyKeyThree()
	tests := []struct {
		name string
		edit func(d *Document)
		want []string
	}{
		{"one signer, no rule", func(d *Document) { d.Signers = d.Signers[:1] }, nil},
		{"revoked signers do not count", func(d *Document) {
			d.Revoke(Revocation{Fingerprint: fp(one), Reason: "key compromise"})
			d.Signers[0].Roles = []string{RoleWitness}
			d.Signers[0].ValidUntil = "2026-02-01T00:00:00Z"
		}, nil},
		{"version", func(d *Document) { d.Signers = d.Signers[:1]; d.Version = 12 }, nil},
		{"two signers, no rule", func(d *Document) {}, []string{
			"/witnesses: there is no witnesses rule, so v1 never derives WITNESSED; upstream derives it from any 2 distinct trusted keys"}},
		{"per-key window", func(d *Document) {
			d.Signers = d.Signers[:1]
			d.Signers[0].ValidFrom = "2026-03-01T00:00:00.000Z"
		}, []string{`/signers/0 ("signer-one"): per-key window 2026-03-01T00:00:00.000Z … (policy validUntil) is lost: upstream trusts the key for the whole policy window 2026-01-01T00:00:00.000Z … 2027-01-01T00:00:00.000Z`}},
		{"per-key window wider than the policy's is not a loss", func(d *Document) {
			d.Signers = d.Signers[:1]
			d.Signers[0].ValidFrom, d.Signers[0].ValidUntil = "2025-01-01T00:00:00Z", "2027-01-01T00:00:00.000Z"
		}, nil},
		{"witness-only signer", func(d *Document) {
			d.Signers = d.Signers[1:]
			d.Signers[0].Roles = []string{RoleWitness}
		}, []string{`/signers/0 ("signer-two"): roles [witness] are lost: upstream trusts every listed key as a primary signer`}},
		{"quorum 2, member missing, identities, transparency", func(d *Document) {
			d.AddWitness(Signer{Name: "w3", Identity: attesttest.IdentityTwo, PublicKey: spki(three)})
			d.Witnesses.Members = []string{"signer-two", "w3"}
			d.Witnesses.Quorum = 2
			d.Transparency = &Transparency{TLogPolicy: testTLogText}
		}, []string{
			`/signers/2 ("w3"): roles [witness] are lost: upstream trusts every listed key as a primary signer`,
			"/witnesses/quorum: quorum 2 (3 distinct keys with the primary) is lost: upstream derives WITNESSED from any 2 distinct trusted keys",
			`/signers/0 ("signer-one"): not a witness member, but upstream counts every trusted key as a witness`,
			`/witnesses/distinctIdentities: lost: signers "signer-two" and "w3" share identity "test://mcp-res/disposable/signer-two" and upstream counts them as two witnesses`,
			"/transparency: the tlog policy (1 logs, 3 witnesses, quorum g) has no upstream equivalent and is dropped",
		}},
		{"distinct identities with distinct identities is not a loss", func(d *Document) {
			d.Signers[0].Roles = []string{RoleSigner, RoleWitness}
			d.Witnesses = witnessRule(1, true, "signer-one", "signer-two")
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testPolicy()
			tt.edit(d)
			up, losses := mustLoad(t, d).Upstream()
			if !slices.Equal(losses, tt.want) {
				t.Errorf("losses:\n%s\nwant:\n%s", strings.Join(losses, "\n"), strings.Join(tt.want, "\n"))
			}
			if errs := testVal.SchemaErrors(schema.TrustPolicy, up); errs != nil {
				t.Errorf("projection fails the upstream schema: %v", errs)
			}
			if v := up.Get("version").Str; v != strings.TrimSpace(mustLoad(t, d).Version())+".0.0" {
				t.Errorf("version %q", v)
			}
		})
	}
}
