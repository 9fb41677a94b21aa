package trustpolicy

import (
	"crypto/ed25519"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
)

// open is Open with the test validator, or nil (no policy) for nil.
func open(doc *canonjson.Value) *attest.LoadedPolicy {
	if doc == nil {
		return nil
	}
	return Open(doc, OpenOptions{Validator: testVal})
}

// verify runs attest.Verify with the v1 loader registered.
func verify(t *testing.T, wrapper *canonjson.Value, d *Document, at string) attest.Result {
	t.Helper()
	var pol *canonjson.Value
	if d != nil {
		pol = d.Value()
	}
	r, err := attest.Verify(wrapper, attest.Options{Policy: open(pol), EvaluatedAt: at, Validator: testVal})
	if err != nil {
		t.Fatalf("Verify aborted: %v", err)
	}
	return r
}

// signEnv signs the bundle of the committed fixtures with priv as identity.
func signEnv(t *testing.T, priv ed25519.PrivateKey, identity string) *canonjson.Value {
	t.Helper()
	env, err := attest.Sign(fixture(t, "witnessed.json").Get("bundle"), priv, attesttest.Options(identity))
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func wrap(t *testing.T, claim attest.Level, envs ...*canonjson.Value) *canonjson.Value {
	return attest.Wrap(fixture(t, "witnessed.json").Get("bundle"), claim, envs...)
}

// withClaim returns a fixture with another claim.
func withClaim(t *testing.T, name string, claim attest.Level) *canonjson.Value {
	w := fixture(t, name)
	w.Get("authenticity").Set("claimedClassification", canonjson.NewString(claim.String()))
	return w
}

func witnessRule(quorum int64, distinct bool, members ...string) *Witnesses {
	return &Witnesses{Quorum: quorum, Members: members, DistinctIdentities: distinct}
}

type evalCase struct {
	name    string
	wrapper func(t *testing.T) *canonjson.Value
	policy  func() *Document
	at      string // default attesttest.EvaluatedAt
	diags   []string
	level   attest.Level // when valid
	notes   []string     // substrings expected in the notes (or the detail)
}

func file(name string) func(t *testing.T) *canonjson.Value {
	return func(t *testing.T) *canonjson.Value { return fixture(t, name) }
}

func TestEvaluation(t *testing.T) {
	one, two, three := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo(), testOnlyKeyThree()
	cases := []evalCase{
		{
			name: "signed with identity", wrapper: file("signed-with-identity.json"), policy: testPolicy,
			level: attest.SignedWithIdentity,
			notes: []string{
				"trusted signers: 1 of 1 envelopes, by key fingerprint and identity (policy mcp-res/test-policy version 1)",
				`primary signer "signer-one" (envelope 0) has the signer role`,
				"witnesses: the policy has no witnesses rule, so WITNESSED is not derivable",
				"transparency: the policy has no transparency section, so a reference is only digest-checked (0 DIGEST_ONLY) and TRANSPARENCY_RECORDED is not derivable",
			},
		},
		{
			name: "witnessed, quorum 1 of [signer-two]", wrapper: file("witnessed.json"),
			policy: func() *Document { d := testPolicy(); d.Witnesses = witnessRule(1, true, "signer-two"); return d },
			level:  attest.Witnessed,
			notes:  []string{"witnesses: 1 of 1 required, counted by key fingerprint with distinct identities; counted: signer-two"},
		},
		{
			name: "WITNESSED without a witnesses rule", wrapper: file("witnessed.json"), policy: testPolicy,
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{"claim WITNESSED exceeds the derived level SIGNED_WITH_IDENTITY", "witnesses: the policy has no witnesses rule, so WITNESSED is not derivable"},
		},
		{
			name: "primary is the only witness", wrapper: file("overclaim-witnessed-one-signer.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Signers[0].Roles = []string{RoleSigner, RoleWitness}
				d.Witnesses = witnessRule(1, false, "signer-one")
				return d
			},
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{"witnesses: 0 of 1 required, counted by key fingerprint (signer-one: primary signer, never its own witness)"},
		},
		{
			name: "primary is the only witness member, the co-signer is not", wrapper: file("witnessed.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Signers[0].Roles = []string{RoleSigner, RoleWitness}
				d.Witnesses = witnessRule(1, false, "signer-one")
				return d
			},
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{"witnesses: 0 of 1 required, counted by key fingerprint (signer-one: primary signer, never its own witness; signer-two: not a witness member)"},
		},
		{
			name: "quorum 2 not met", wrapper: file("witnessed.json"),
			policy: func() *Document {
				d := testPolicy()
				d.AddWitness(Signer{Name: "witness-b", Identity: identityThree, PublicKey: spki(three)})
				d.Witnesses.Members = []string{"signer-two", "witness-b"}
				d.Witnesses.Quorum = 2
				return d
			},
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{"witnesses: 1 of 2 required, counted by key fingerprint with distinct identities; counted: signer-two"},
		},
		{
			name: "quorum 2, second witness's identity differs from the policy",
			wrapper: func(t *testing.T) *canonjson.Value {
				return wrap(t, attest.Witnessed, signEnv(t, one, attesttest.IdentityOne), signEnv(t, two, attesttest.IdentityTwo), signEnv(t, three, "test://elsewhere"))
			},
			policy: func() *Document {
				d := testPolicy()
				d.AddWitness(Signer{Name: "witness-b", Identity: identityThree, PublicKey: spki(three)})
				d.Witnesses.Members = []string{"signer-two", "witness-b"}
				d.Witnesses.Quorum = 2
				return d
			},
			diags: []string{attest.CodeUntrustedSigner},
			notes: []string{
				`trusted signers: 2 of 3 envelopes, by key fingerprint and identity (policy mcp-res/test-policy version 1): envelope 2: identity "test://elsewhere" differs from signer "witness-b"'s "test://mcp-res/disposable/signer-three"`,
				"witnesses: 1 of 2 required, counted by key fingerprint with distinct identities (witness-b: identity differs); counted: signer-two",
			},
		},
		{
			name: "quorum 2 met by two witnesses",
			wrapper: func(t *testing.T) *canonjson.Value {
				return wrap(t, attest.Witnessed, signEnv(t, one, attesttest.IdentityOne), signEnv(t, two, attesttest.IdentityTwo), signEnv(t, three, identityThree))
			},
			policy: func() *Document {
				d := testPolicy()
				d.AddWitness(Signer{Name: "witness-b", Identity: identityThree, PublicKey: spki(three)})
				d.Witnesses.Members = []string{"signer-two", "witness-b"}
				d.Witnesses.Quorum = 2
				return d
			},
			level: attest.Witnessed,
			notes: []string{"witnesses: 2 of 2 required, counted by key fingerprint with distinct identities; counted: signer-two, witness-b"},
		},
		{
			name: "same key twice is refused before counting (E2)", wrapper: file("duplicate-signer.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Signers[0].Roles = []string{RoleSigner, RoleWitness}
				d.Witnesses = witnessRule(1, false, "signer-one")
				return d
			},
			diags: []string{attest.CodeDuplicateSigner},
		},
		{
			name: "same key under two identities is refused (E2)", wrapper: file("one-key-two-identities.json"),
			policy: func() *Document { d := testPolicy(); d.Witnesses = witnessRule(1, false, "signer-two"); return d },
			diags:  []string{attest.CodeDuplicateSigner},
		},
		{
			name: "witness with the primary's identity, distinct identities required",
			wrapper: func(t *testing.T) *canonjson.Value {
				return wrap(t, attest.Witnessed, signEnv(t, one, attesttest.IdentityOne), signEnv(t, two, attesttest.IdentityOne))
			},
			policy: func() *Document {
				d := testPolicy()
				d.Signers[1].Identity = attesttest.IdentityOne
				d.Witnesses = witnessRule(1, true, "signer-two")
				return d
			},
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{`witnesses: 0 of 1 required, counted by key fingerprint with distinct identities (signer-two: identity "test://mcp-res/disposable/signer-one" is the primary signer's)`},
		},
		{
			name: "witness with the primary's identity, distinct identities not required",
			wrapper: func(t *testing.T) *canonjson.Value {
				return wrap(t, attest.Witnessed, signEnv(t, one, attesttest.IdentityOne), signEnv(t, two, attesttest.IdentityOne))
			},
			policy: func() *Document {
				d := testPolicy()
				d.Signers[1].Identity = attesttest.IdentityOne
				d.Witnesses = witnessRule(1, false, "signer-two")
				return d
			},
			level: attest.Witnessed,
		},
		{
			name: "two witness keys with one identity count once",
			wrapper: func(t *testing.T) *canonjson.Value {
				return wrap(t, attest.Witnessed, signEnv(t, one, attesttest.IdentityOne), signEnv(t, two, "https://witness.example"), signEnv(t, three, "https://witness.example"))
			},
			policy: func() *Document {
				d := testPolicy()
				d.Signers[1].Identity = "https://witness.example"
				d.AddWitness(Signer{Name: "witness-b", Identity: "https://witness.example", PublicKey: spki(three)})
				d.Witnesses.Members = []string{"signer-two", "witness-b"}
				d.Witnesses.Quorum = 2
				return d
			},
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{`witnesses: 1 of 2 required, counted by key fingerprint with distinct identities (witness-b: identity "https://witness.example" is signer-two's); counted: signer-two`},
		},
		{
			name: "per-key window excludes the signing time", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.Signers[0].ValidUntil = "2026-08-01T00:00:00.000Z"; return d },
			diags:  []string{attest.CodeUntrustedSigner},
			notes:  []string{`envelope 0: signingTime 2026-08-27T18:00:00.000Z is outside signer "signer-one"'s key window (policy validFrom) … 2026-08-01T00:00:00.000Z`},
		},
		{
			name: "per-key window excludes the evaluation time", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.Signers[0].ValidUntil = "2026-08-27T18:00:00.000Z"; return d },
			diags:  []string{attest.CodeUntrustedSigner},
			notes:  []string{`envelope 0: the evaluation time is outside signer "signer-one"'s key window (policy validFrom) … 2026-08-27T18:00:00.000Z`},
		},
		{
			name: "per-key window covering both", wrapper: file("signed-with-identity.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Signers[0].ValidFrom, d.Signers[0].ValidUntil = "2026-08-27T18:00:00.000Z", "2026-08-27T18:05:00.000Z"
				return d
			},
			level: attest.SignedWithIdentity,
		},
		{
			name: "revoked key at claim SIGNED", wrapper: file("revoked-key-claim-SIGNED.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Revoke(Revocation{Fingerprint: fp(one), Reason: "key compromise", RevokedAt: "2026-09-01T00:00:00.000Z"})
				return d
			},
			diags: []string{attest.CodeKeyRevoked},
			notes: []string{`envelope 0: key ` + fp(one) + ` is revoked by the policy (reason "key compromise", revokedAt 2026-09-01T00:00:00.000Z); a revoked key fails at every level whatever the signing time, which the signer asserts itself`},
		},
		{
			name: "revoked key at claim WITNESSED", wrapper: file("revoked-key-claim-WITNESSED.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Revoke(Revocation{Fingerprint: fp(one), Reason: "key compromise"})
				return d
			},
			diags: []string{attest.CodeKeyRevoked},
		},
		{
			name: "revoked witness key", wrapper: file("witnessed.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Witnesses = witnessRule(1, true, "signer-two")
				d.Revoke(Revocation{Fingerprint: fp(two), Reason: "retired"})
				return d
			},
			diags: []string{attest.CodeKeyRevoked},
			notes: []string{"envelope 1: key " + fp(two) + ` is revoked`},
		},
		{
			name: "revoked key that is not a signer", wrapper: file("signed-untrusted-allowed-at-signed-level.json"),
			policy: func() *Document {
				d := testPolicy()
				d.Signers = d.Signers[1:]
				d.Revoke(Revocation{Fingerprint: fp(one), Reason: "key compromise"})
				return d
			},
			diags: []string{attest.CodeKeyRevoked},
		},
		{
			name: "expired policy", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.ValidUntil = "2026-01-02T00:00:00.000Z"; return d },
			diags:  []string{attest.CodeTrustPolicyExpired},
			notes:  []string{"evaluation time 2026-08-27T18:05:00.000Z is outside the policy window 2026-01-01T00:00:00.000Z … 2026-01-02T00:00:00.000Z"},
		},
		{
			name: "policy not yet in force", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.ValidFrom = "2026-08-27T18:05:00.001Z"; return d },
			diags:  []string{attest.CodeTrustPolicyExpired},
		},
		{
			name: "signing time after the evaluation time", wrapper: file("signing-time-after-evaluation.json"), policy: testPolicy,
			diags: []string{attest.CodeTrustPolicyExpired},
		},
		{
			name: "signed for another policy id", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.ID = "example/other"; return d },
			diags:  []string{attest.CodeIdentityMismatch},
			notes:  []string{`signed for trust policy "mcp-res/test-policy", evaluated with "example/other"`},
		},
		{
			name: "key unknown", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.Signers = d.Signers[1:]; return d },
			diags:  []string{attest.CodeUntrustedSigner},
			notes:  []string{"envelope 0: key " + fp(one) + " is not a signer of the policy"},
		},
		{
			name: "untrusted key still allowed at SIGNED", wrapper: file("signed-untrusted-allowed-at-signed-level.json"),
			policy: func() *Document { d := testPolicy(); d.Signers = d.Signers[1:]; return d },
			level:  attest.Signed,
		},
		{
			name: "primary without the signer role", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.Signers[0].Roles = []string{RoleWitness}; return d },
			diags:  []string{attest.CodeClassificationOverclaim},
			notes:  []string{`primary signer "signer-one" (envelope 0) lacks the signer role: SIGNED_WITH_IDENTITY is not derivable`},
		},
		{
			name: "digest-only transparency is not enough", wrapper: file("transparency-recorded.json"), policy: testPolicy,
			diags: []string{attest.CodeClassificationOverclaim},
			notes: []string{"transparency: the policy has no transparency section, so a reference is only digest-checked (1 DIGEST_ONLY) and TRANSPARENCY_RECORDED is not derivable"},
		},
		{
			name: "one signer with transparency does not satisfy WITNESSED (unlike upstream)",
			wrapper: func(t *testing.T) *canonjson.Value {
				return withClaim(t, "transparency-recorded.json", attest.Witnessed)
			},
			policy: func() *Document { d := testPolicy(); d.Witnesses = witnessRule(1, false, "signer-two"); return d },
			diags:  []string{attest.CodeClassificationOverclaim},
		},
		{
			name: "transparency reference is still digest-checked and allowed below its level",
			wrapper: func(t *testing.T) *canonjson.Value {
				return withClaim(t, "transparency-recorded.json", attest.SignedWithIdentity)
			},
			policy: testPolicy,
			level:  attest.SignedWithIdentity,
		},
		{
			name: "invalid policy fails at G6 with its problems", wrapper: file("signed-with-identity.json"),
			policy: func() *Document { d := testPolicy(); d.Signers[1].PublicKey = d.Signers[0].PublicKey; return d },
			diags:  []string{attest.CodeSchemaInvalid},
			notes:  []string{"trust policy: /signers/1/publicKey: key " + fp(one) + ` is already listed as /signers/0 ("signer-one"); one key is one signer and counts once (uniqueKey)`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := c.at
			if at == "" {
				at = attesttest.EvaluatedAt
			}
			r := verify(t, c.wrapper(t), c.policy(), at)
			if c.diags == nil {
				c.diags = []string{}
			}
			if !slices.Equal(r.Diagnostics, c.diags) {
				t.Fatalf("diagnostics %v (%s), want %v\nnotes: %s", r.Diagnostics, r.Detail, c.diags, strings.Join(r.Evaluation.Notes, "\n  "))
			}
			if len(c.diags) == 0 && r.Level != c.level {
				t.Errorf("level %s, want %s\nnotes: %s", r.Level, c.level, strings.Join(r.Evaluation.Notes, "\n  "))
			}
			all := r.Detail + "\n" + strings.Join(r.Evaluation.Notes, "\n")
			for _, n := range c.notes {
				if !strings.Contains(all, n) {
					t.Errorf("missing %q in\n%s", n, all)
				}
			}
		})
	}
}

// TestEvaluationRecordsPolicy: the result says which policy and version was
// evaluated and which envelopes are trusted.
func TestEvaluationRecordsPolicy(t *testing.T) {
	d := testPolicy()
	d.Version = 7
	d.Witnesses = witnessRule(1, true, "signer-two")
	r := verify(t, fixture(t, "witnessed.json"), d, attesttest.EvaluatedAt)
	ev := r.Evaluation
	if !r.Valid || ev.PolicyID == nil || *ev.PolicyID != attesttest.TrustPolicyID || *ev.PolicyVersion != "7" {
		t.Fatalf("valid %t, policy %v %v", r.Valid, ev.PolicyID, ev.PolicyVersion)
	}
	if len(ev.Envelopes) != 2 || !ev.Envelopes[0].Trusted || !ev.Envelopes[1].Trusted || ev.DistinctKeys != 2 {
		t.Errorf("envelopes %+v, distinct keys %d", ev.Envelopes, ev.DistinctKeys)
	}
}

// TestUpstreamPoliciesUnchanged: opened by Open, every case
// of the committed attestation corpus (upstream 0.2.0 policies) gives the
// identical result object as the upstream loader itself.
func TestUpstreamPoliciesUnchanged(t *testing.T) {
	cat := fixture(t, "catalog.json")
	defaultAt := cat.Get("evaluatedAt").Str
	n := 0
	for _, c := range cat.Get("cases").Items {
		n++
		id := c.Get("id").Str
		t.Run(id, func(t *testing.T) {
			w := fixture(t, c.Get("wrapper").Str)
			var pol *canonjson.Value
			if p := c.Get("trustPolicy"); p.Is(canonjson.String) {
				pol = fixture(t, filepath.Base(p.Str))
			}
			at := defaultAt
			if e := c.Get("evaluatedAt"); e.Is(canonjson.String) {
				at = e.Str
			}
			var upstream *attest.LoadedPolicy
			if pol != nil {
				upstream = attest.NewLoadedPolicy(loadUpstream(pol, testVal))
			}
			plain, err1 := attest.Verify(w, attest.Options{Policy: upstream, EvaluatedAt: at, Validator: testVal})
			with, err2 := attest.Verify(w, attest.Options{Policy: open(pol), EvaluatedAt: at, Validator: testVal})
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("errors differ: %v / %v", err1, err2)
			}
			if err1 != nil {
				return
			}
			a, _ := canonjson.Compact(plain.Value())
			b, _ := canonjson.Compact(with.Value())
			if string(a) != string(b) || plain.Detail != with.Detail {
				t.Errorf("results differ:\n%s\n%s", a, b)
			}
			var want []string
			for _, d := range c.Get("expectedDiagnostics").Items {
				want = append(want, d.Str)
			}
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(with.Diagnostics, want) {
				t.Errorf("diagnostics %v, want %v", with.Diagnostics, want)
			}
		})
	}
	if n < 17 {
		t.Errorf("catalog has %d cases, want at least the 17 of REFERENCE §9.4", n)
	}
}
