package trustpolicy

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
)

func TestLoadValid(t *testing.T) {
	d := testPolicy()
	d.AddWitness(Signer{Name: "signer-three", Identity: identityThree, PublicKey: spki(testOnlyKeyThree())})
	d.Witnesses.Members = append(d.Witnesses.Members, "signer-two")
	d.Signers[0].ValidFrom = "2026-02-01T00:00:00.000Z"
	d.Signers[0].ValidUntil = "2026-02-01T00:00:00.000Z" // a one-instant window is valid
	d.Revocations = append(d.Revocations, Revocation{Fingerprint: strings.Repeat("ab", 32), Reason: "lost", RevokedAt: "2026-03-01T00:00:00Z"})
	d.Transparency = &Transparency{TLogPolicy: testTLogText}
	pemKey, err := keyfile.MarshalPublicKeyPEM(pub(attesttest.TestOnlyKeyTwo()))
	if err != nil {
		t.Fatal(err)
	}
	d.Signers[1].PublicKey = string(pemKey) // PEM and base64 SPKI are both accepted
	p := mustLoad(t, d)
	if p.ID() != attesttest.TrustPolicyID || p.Version() != "1" {
		t.Errorf("ID, Version = %q, %q", p.ID(), p.Version())
	}
	if tl := p.TLogPolicy(); tl == nil || tl.Quorum != "g" {
		t.Errorf("TLogPolicy = %+v", tl)
	}
	// Decode, Value and Load round-trip.
	back, problems := Decode(d.Value(), testVal)
	if problems != nil {
		t.Fatal(problems)
	}
	if !canonjson.Equal(back.Value(), d.Value()) {
		t.Errorf("Decode(Value(d)) differs from d")
	}
	// A fresh policy without signers is valid (it trusts nobody).
	mustLoad(t, New("x", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"))
}

// smallOrderSPKI is the SPKI of the identity point (order 1).
var smallOrderSPKI = base64.StdEncoding.EncodeToString(append([]byte(ed25519strict.SPKIPrefix), append([]byte{1}, make([]byte, 31)...)...))

func TestLoadRejections(t *testing.T) {
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	withWitnesses := func(d *Document, quorum int64, members ...string) {
		d.Witnesses = &Witnesses{Quorum: quorum, Members: members, DistinctIdentities: true}
	}
	tests := []struct {
		name string
		edit func(d *Document)
		raw  func(v *canonjson.Value) // applied to the JSON value after edit
		want []Problem
	}{
		{
			name: "unknown member at the root",
			raw:  func(v *canonjson.Value) { v.Set("trustedSigners", canonjson.NewArray()) },
			want: []Problem{{"", "additionalProperties", `must not have additional property "trustedSigners"`}},
		},
		{
			name: "unknown member in a signer",
			raw: func(v *canonjson.Value) {
				v.Get("signers").Items[1].Set("keyFingerprint", canonjson.NewString(fp(two)))
			},
			want: []Problem{{"/signers/1", "additionalProperties", `must not have additional property "keyFingerprint"`}},
		},
		{
			name: "upstream schemaVersion",
			raw:  func(v *canonjson.Value) { v.Set("schemaVersion", canonjson.NewString(bundle.SchemaVersionTrustPolicy)) },
			want: []Problem{{"/schemaVersion", "const", `must be equal to the constant "mcpres.trust-policy/v1"`}},
		},
		{
			name: "version 0",
			edit: func(d *Document) { d.Version = 0 },
			want: []Problem{{"/version", "minimum", "must be >= 1"}},
		},
		{
			name: "unknown role",
			edit: func(d *Document) { d.Signers[0].Roles = []string{"admin"} },
			want: []Problem{{"/signers/0/roles/0", "enum", `must be one of the allowed values: "signer", "witness"`}},
		},
		{
			name: "no roles",
			edit: func(d *Document) { d.Signers[0].Roles = []string{} },
			want: []Problem{{"/signers/0/roles", "minItems", "must have at least 1 items, has 0"}},
		},
		{
			name: "role twice",
			edit: func(d *Document) { d.Signers[0].Roles = []string{RoleSigner, RoleSigner} },
			want: []Problem{{"/signers/0/roles", "uniqueItems", "must not have duplicate items (items 0 and 1 are equal)"}},
		},
		{
			name: "policy window inverted",
			edit: func(d *Document) { d.ValidFrom, d.ValidUntil = "2027-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z" },
			want: []Problem{{"/validUntil", "window", "validFrom 2027-01-01T00:00:00.000Z is after validUntil 2026-01-01T00:00:00.000Z"}},
		},
		{
			name: "key window inverted",
			edit: func(d *Document) {
				d.Signers[1].ValidFrom, d.Signers[1].ValidUntil = "2026-06-01T00:00:00.001Z", "2026-06-01T00:00:00Z"
			},
			want: []Problem{{"/signers/1/validUntil", "window", "validFrom 2026-06-01T00:00:00.001Z is after validUntil 2026-06-01T00:00:00Z"}},
		},
		{
			name: "duplicate name",
			edit: func(d *Document) { d.Signers[1].Name = "signer-one" },
			want: []Problem{{"/signers/1/name", "uniqueName", `name "signer-one" is already used by /signers/0`}},
		},
		{
			name: "same key under another name and identity",
			edit: func(d *Document) {
				d.AddSigner(Signer{Name: "other", Identity: "https://example.org/other", PublicKey: spki(one), Roles: []string{RoleWitness}})
			},
			want: []Problem{{"/signers/2/publicKey", "uniqueKey", "key " + fp(one) + ` is already listed as /signers/0 ("signer-one"); one key is one signer and counts once`}},
		},
		{
			name: "same key as PEM and as base64",
			edit: func(d *Document) {
				pemKey, _ := keyfile.MarshalPublicKeyPEM(pub(two))
				d.AddSigner(Signer{Name: "two-again", Identity: attesttest.IdentityTwo, PublicKey: string(pemKey), Roles: []string{RoleSigner}})
			},
			want: []Problem{{"/signers/2/publicKey", "uniqueKey", "key " + fp(two) + ` is already listed as /signers/1 ("signer-two"); one key is one signer and counts once`}},
		},
		{
			name: "small-order key",
			edit: func(d *Document) { d.Signers[0].PublicKey = smallOrderSPKI },
			want: []Problem{{"/signers/0/publicKey", "publicKey", "not a valid Ed25519 public key: ed25519: public key is a small-order point"}},
		},
		{
			name: "raw 32-byte key",
			edit: func(d *Document) { d.Signers[0].PublicKey = base64.StdEncoding.EncodeToString(pub(one)) },
			want: []Problem{{"/signers/0/publicKey", "publicKey", "not a valid Ed25519 public key: public key is not a 44-byte Ed25519 SubjectPublicKeyInfo: got 32 bytes, want 44"}},
		},
		{
			name: "private key instead of a public key",
			edit: func(d *Document) {
				pemKey, _ := keyfile.MarshalPrivateKeyPEM(one)
				d.Signers[0].PublicKey = string(pemKey)
			},
			want: []Problem{{"/signers/0/publicKey", "publicKey", "not a valid Ed25519 public key: unsupported key format: this is a PEM private key; not a PEM public key"}},
		},
		{
			name: "member unknown",
			edit: func(d *Document) { withWitnesses(d, 1, "signer-x") },
			want: []Problem{{"/witnesses/members/0", "member", `"signer-x" is not the name of a signer of this policy`}},
		},
		{
			name: "member without the witness role",
			edit: func(d *Document) { withWitnesses(d, 1, "signer-one") },
			want: []Problem{{"/witnesses/members/0", "member", `signer "signer-one" (/signers/0) does not have the witness role`}},
		},
		{
			name: "member twice",
			edit: func(d *Document) { withWitnesses(d, 2, "signer-two", "signer-two") },
			want: []Problem{
				{"/witnesses/members/1", "member", `"signer-two" is already listed as /witnesses/members/0; a witness counts once`},
				{"/witnesses/quorum", "quorum", "quorum 2 is outside 1..1 (the number of distinct members)"},
			},
		},
		{
			name: "quorum 0",
			edit: func(d *Document) { withWitnesses(d, 0, "signer-two") },
			want: []Problem{{"/witnesses/quorum", "quorum", "quorum 0 is outside 1..1 (the number of distinct members)"}},
		},
		{
			name: "quorum above the members",
			edit: func(d *Document) { withWitnesses(d, 2, "signer-two") },
			want: []Problem{{"/witnesses/quorum", "quorum", "quorum 2 is outside 1..1 (the number of distinct members)"}},
		},
		{
			name: "no members",
			edit: func(d *Document) { withWitnesses(d, 1) },
			want: []Problem{{"/witnesses/quorum", "quorum", "quorum 1 is outside 1..0 (the number of distinct members)"}},
		},
		{
			name: "malformed revocation fingerprint",
			edit: func(d *Document) {
				d.Revoke(Revocation{Fingerprint: strings.ToUpper(fp(one)), Reason: "key compromise"})
			},
			want: []Problem{{"/revocations/0/fingerprint", "fingerprint", `"` + strings.ToUpper(fp(one)) + `" is not a key fingerprint (64 lowercase hex digits: the SHA-256 of the SPKI DER)`}},
		},
		{
			name: "duplicate revocation",
			edit: func(d *Document) {
				d.Revoke(Revocation{Fingerprint: fp(one), Reason: "key compromise"})
				d.Revoke(Revocation{Fingerprint: fp(one), Reason: "again", RevokedAt: "2026-02-01T00:00:00Z"})
			},
			want: []Problem{{"/revocations/1/fingerprint", "uniqueFingerprint", "fingerprint " + fp(one) + " is already revoked by /revocations/0"}},
		},
		{
			name: "leap second",
			edit: func(d *Document) { d.ValidUntil = "2026-12-31T23:59:60Z" },
			want: []Problem{{"/validUntil", "format", "must be a valid date-time: second 60 (a leap second) is not accepted"}},
		},
		{
			name: "tlog policy without quorum",
			edit: func(d *Document) { d.Transparency = &Transparency{TLogPolicy: "log " + testLogVKey + "\n"} },
			want: []Problem{{"/transparency/tlogPolicy", "tlogPolicy", "no quorum line"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testPolicy()
			if tt.edit != nil {
				tt.edit(d)
			}
			v := d.Value()
			if tt.raw != nil {
				tt.raw(v)
			}
			p, got := Load(v, testVal)
			if p != nil {
				t.Error("Load returned a policy with problems")
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", problemLines(got), problemLines(tt.want))
			}
			// Open turns each problem of a v1 document into a schema
			// error (another schemaVersion is read as the upstream kind).
			tp, errs, err := Open(v, OpenOptions{Validator: testVal}).Policy()
			if sv := v.Get("schemaVersion"); sv.Is(canonjson.String) && sv.Str == SchemaVersionPolicy && (tp != nil || err != nil || len(errs) != len(tt.want)) {
				t.Errorf("Open = %v, %v, %v", tp, errs, err)
			}
		})
	}
}

func problemLines(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

// TestLoadReportsEverything: one document with many problems gets them all
// in one run, schema problems first, then the rest in document order.
func TestLoadReportsEverything(t *testing.T) {
	one := attesttest.TestOnlyKeyOne()
	d := testPolicy()
	d.ValidFrom = "2028-01-01T00:00:00Z"
	d.AddSigner(Signer{Name: "signer-one", Identity: "x", PublicKey: spki(one), Roles: []string{RoleWitness}})
	d.Witnesses = &Witnesses{Quorum: 3, Members: []string{"nobody", "signer-one"}}
	d.Revoke(Revocation{Fingerprint: "zz", Reason: "r"})
	d.Transparency = &Transparency{TLogPolicy: "group g 2 W1 W1\n"}
	v := d.Value()
	v.Set("comment", canonjson.NewString("unknown"))
	_, got := Load(v, testVal)
	want := []string{
		`(root): must not have additional property "comment" (additionalProperties)`,
		`/validUntil: validFrom 2028-01-01T00:00:00Z is after validUntil 2027-01-01T00:00:00.000Z (window)`,
		`/signers/2/name: name "signer-one" is already used by /signers/0 (uniqueName)`,
		`/signers/2/publicKey: key ` + fp(one) + ` is already listed as /signers/0 ("signer-one"); one key is one signer and counts once (uniqueKey)`,
		`/revocations/0/fingerprint: "zz" is not a key fingerprint (64 lowercase hex digits: the SHA-256 of the SPKI DER) (fingerprint)`,
		`/witnesses/members/0: "nobody" is not the name of a signer of this policy (member)`,
		`/witnesses/members/1: signer "signer-one" (/signers/0) does not have the witness role (member)`,
		`/witnesses/quorum: quorum 3 is outside 1..2 (the number of distinct members) (quorum)`,
		`/transparency/tlogPolicy: line 1: group "g": unknown member "W1" (members are witnesses or groups defined on earlier lines) (tlogPolicy)`,
		`/transparency/tlogPolicy: line 1: group "g" lists "W1" twice: a member counts once (tlogPolicy)`,
		`/transparency/tlogPolicy: no log line: a tlog policy names at least one log key (tlogPolicy)`,
		`/transparency/tlogPolicy: no quorum line (tlogPolicy)`,
	}
	var lines []string
	for _, p := range got {
		lines = append(lines, p.String())
	}
	if !slices.Equal(lines, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadNotAnObject(t *testing.T) {
	for _, text := range []string{`null`, `[]`, `"x"`, `{}`} {
		p, problems := Load(parseJSON(t, text), testVal)
		if p != nil || len(problems) == 0 {
			t.Errorf("%s: Load = %v, %v", text, p, problems)
		}
	}
}

func TestDocumentEdits(t *testing.T) {
	d := testPolicy()
	if err := d.SetQuorum(1); err == nil {
		t.Error("SetQuorum without a witnesses rule succeeded")
	}
	d.AddWitness(Signer{Name: "w", Identity: identityThree, PublicKey: spki(testOnlyKeyThree()), Roles: []string{RoleSigner}})
	if w := d.Witnesses; w == nil || w.Quorum != 1 || !w.DistinctIdentities || !slices.Equal(w.Members, []string{"w"}) {
		t.Errorf("witnesses rule = %+v", d.Witnesses)
	}
	if got := d.Signers[2].Roles; !slices.Equal(got, []string{RoleWitness}) {
		t.Errorf("AddWitness roles = %v, want [witness]", got)
	}
	c := d.Clone()
	c.Witnesses.Members[0] = "changed"
	c.Signers[0].Roles[0] = "changed"
	if d.Witnesses.Members[0] != "w" || d.Signers[0].Roles[0] != RoleSigner {
		t.Error("Clone shares slices with the original")
	}
	mustLoad(t, d)
}
