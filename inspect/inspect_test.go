package inspect_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/inspect"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/trustpolicy"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func describe(t testing.TB, data []byte) *inspect.Description {
	t.Helper()
	d, err := inspect.Describe(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Value(); err != nil {
		t.Fatalf("Value: %v", err)
	}
	return d
}

func text(d *inspect.Description) string { return strings.Join(d.Text(), "\n") }

func mustContain(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("lacks %q:\n%s", w, s)
		}
	}
}

// The committed transparency fixtures: the attested bundle's subject,
// envelopes (key fingerprint, identity, signing time, policy id) and its
// reference's checkpoint with the witness's cosignature (name, key hash,
// timestamp).
func TestDescribeAttested(t *testing.T) {
	d := describe(t, read(t, "transparency/example.signed.json"))
	if d.Kind != inspect.KindAttested || d.Bundle.Subject.Name != "ledger-notes-server" || d.Bundle.Subject.Version != "3.4.1" ||
		d.Bundle.Subject.Digest != "sha256:6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a" || len(d.Problems) != 0 {
		t.Fatalf("%+v", d)
	}
	a := d.Attestation
	if a.ClaimedClassification != "TRANSPARENCY_RECORDED" || len(a.Envelopes) != 2 {
		t.Fatalf("%+v", a)
	}
	e := a.Envelopes[0]
	if e.KeyFingerprint != attesttest.KeyID(attesttest.TestOnlyKeyOne()) || e.KeyID != e.KeyFingerprint || e.SignerIdentity != attesttest.IdentityOne ||
		e.Statement.SigningTime != attesttest.SigningTime || e.Statement.TrustPolicyID != attesttest.TrustPolicyID || e.Statement.SubjectName != "ledger-notes-server" {
		t.Errorf("envelope 0 %+v %+v", e, e.Statement)
	}
	ref := e.Statement.TransparencyReference
	if ref == nil || ref.LogID != "log.example.org/mcpres-example" || ref.EntryUUID != "2" || ref.Proof == nil || ref.Proof.Checkpoint.Size != 4 {
		t.Fatalf("reference %+v", ref)
	}
	sigs := ref.Proof.Checkpoint.Signatures
	if len(sigs) != 2 || sigs[0].Kind != "ed25519" || sigs[1].Kind != "cosignature/v1" || sigs[1].Name != "witness.example.org" ||
		sigs[1].Timestamp != "2026-01-01T00:00:00Z" || sigs[1].TimestampUnix != 1767225600 || len(sigs[1].KeyHash) != 8 {
		t.Errorf("signatures %+v", sigs)
	}
	if a.Envelopes[1].Statement.TransparencyReference != nil {
		t.Error("envelope 1 has a reference")
	}
	mustContain(t, text(d), inspect.NotVerified, `subject: MCP_SERVER "ledger-notes-server" version "3.4.1"`,
		"cosignature by witness.example.org (key hash "+sigs[1].KeyHash+") at 2026-01-01T00:00:00Z", "claimed classification: TRANSPARENCY_RECORDED")

	// Nothing is verified: a broken signature is described all the same,
	// and a keyid that is not the key's is shown beside it.
	doc, _ := canonjson.Parse(read(t, "transparency/example.signed.json"))
	sig := doc.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
	sig.Set("sig", canonjson.NewString(strings.Repeat("A", 86)+"=="))
	sig.Set("keyid", canonjson.NewString(strings.Repeat("0", 64)))
	data, _ := canonjson.Pretty(doc)
	d2 := describe(t, data)
	if e2 := d2.Attestation.Envelopes[0]; e2.KeyFingerprint != e.KeyFingerprint || e2.KeyID == e2.KeyFingerprint || len(d2.Problems) != 0 {
		t.Errorf("tampered envelope %+v", e2)
	}
	mustContain(t, text(d2), "keyid as written: "+strings.Repeat("0", 64)+" (not the SHA-256 of the embedded key)")
	// A payload that is not base64 is a problem, described as far as it goes.
	doc.Path("authenticity", "envelopes").Items[1].Set("payload", canonjson.NewString("not base64!"))
	data, _ = canonjson.Pretty(doc)
	if d3 := describe(t, data); len(d3.Problems) != 1 || !strings.Contains(d3.Problems[0], "envelope 1: payload") || d3.Attestation.Envelopes[1].Statement != nil {
		t.Errorf("problems %q", d3.Problems)
	}
}

// A checkpoint with three cosignatures, as a file, as the checkpoint of a
// raw tlog-proof and of a reference: every line named, cosignatures with
// their timestamps.
func TestDescribeCheckpoint(t *testing.T) {
	lg := offlinetest.NewLog("example.org/inspect-log", "inspect")
	lg.Append([]byte("x"), []byte("y"))
	ws := []*offlinetest.Witness{
		offlinetest.NewWitness("w1", "w1.example.org", "inspect w1", 1767225600),
		offlinetest.NewWitness("w2", "w2.example.org", "inspect w2", 1767225601),
		offlinetest.NewWitness("w3", "w3.example.org", "inspect w3", 1767225602),
	}
	p := lg.Proof(1, ws[0], ws[1], ws[2])
	check := func(name string, cp inspect.Checkpoint) {
		t.Helper()
		if cp.Origin != "example.org/inspect-log" || cp.Size != 2 || len(cp.Signatures) != 4 {
			t.Fatalf("%s: %+v", name, cp)
		}
		for i, s := range cp.Signatures[1:] {
			if s.Kind != "cosignature/v1" || s.Name != ws[i].KeyName || s.TimestampUnix != 1767225600+uint64(i) {
				t.Errorf("%s: cosignature %d %+v", name, i, s)
			}
		}
	}
	d := describe(t, p.Checkpoint)
	if d.Kind != inspect.KindCheckpoint {
		t.Fatalf("kind %s", d.Kind)
	}
	check("checkpoint", *d.Checkpoint)
	mustContain(t, text(d), "4 signature line(s), 3 of them cosignature(s)", "cosignature by w3.example.org")
	d = describe(t, p.Marshal())
	if d.Kind != inspect.KindProof || d.Proof.Index != 1 || d.Proof.Entry != nil {
		t.Fatalf("proof %+v", d.Proof)
	}
	check("proof", d.Proof.Checkpoint)
	ref, _ := attest.NewTransparencyReference(lg.Origin, "1", p.Marshal()).Marshal()
	d = describe(t, ref)
	if d.Kind != inspect.KindReference || d.Reference.Proof == nil || d.Reference.ProofKind != offline.KindTLogProof.String() {
		t.Fatalf("reference %+v", d.Reference)
	}
	check("reference", d.Reference.Proof.Checkpoint)
	mustContain(t, text(d), "entry: not an mcpres.transparency-entry/v1")
}

// Policies: a v1 policy's signers with roles, windows and scopes, its
// witness rule and tlog policy; an upstream policy's trusted signers; a
// tlog-policy text.
func TestDescribePolicies(t *testing.T) {
	d := describe(t, read(t, "transparency/policy.json"))
	p := d.Policy
	if d.Kind != inspect.KindTrustPolicy || p.Format != trustpolicy.SchemaVersionPolicy || p.ID != attesttest.TrustPolicyID || len(p.Signers) != 2 ||
		p.Witnesses == nil || p.Witnesses.Quorum != 1 || p.Transparency == nil || p.Transparency.Quorum != "W" || len(p.Transparency.Witnesses) != 1 {
		t.Fatalf("%+v", p)
	}
	if s := p.Signers[0]; s.Name != "signer-one" || s.KeyFingerprint != attesttest.KeyID(attesttest.TestOnlyKeyOne()) || s.Subjects != nil {
		t.Errorf("signer %+v", s)
	}
	doc, _ := canonjson.Parse(read(t, "transparency/policy.json"))
	doc.Get("signers").Items[0].Set("subjects", canonjson.NewArray(canonjson.NewString("io.github.acme/*")))
	doc.Get("signers").Items[0].Set("validUntil", canonjson.NewString("2026-06-01T00:00:00.000Z"))
	data, _ := canonjson.Pretty(doc)
	d = describe(t, data)
	if s := d.Policy.Signers[0]; strings.Join(s.Subjects, ",") != "io.github.acme/*" || s.ValidUntil != "2026-06-01T00:00:00.000Z" {
		t.Errorf("scoped signer %+v", s)
	}
	mustContain(t, text(d), `"signer-one" identity "`+attesttest.IdentityOne+`"`, "subjects io.github.acme/*", "own window - … 2026-06-01T00:00:00.000Z",
		"witnesses: quorum 1 of [signer-two]", "witness W (key witness.example.org+")

	up, _ := canonjson.Pretty(attesttest.Policy(attesttest.PolicyOptions{Revoked: []string{strings.Repeat("a", 64)}}))
	d = describe(t, up)
	if d.Kind != inspect.KindTrustPolicy || len(d.Policy.Signers) != 2 || d.Policy.Signers[1].Identity != attesttest.IdentityTwo || len(d.Policy.Revocations) != 1 {
		t.Errorf("upstream %+v", d.Policy)
	}
	d = describe(t, read(t, "transparency/tlog-policy.txt"))
	if d.Kind != inspect.KindTLogPolicy || len(d.TLogPolicy.Logs) != 1 || d.TLogPolicy.Quorum != "W" {
		t.Errorf("tlog policy %+v", d.TLogPolicy)
	}
	// A v1 policy without the schema's shape is a problem, not an error.
	doc.Set("unknown", canonjson.NewInt(1))
	data, _ = canonjson.Pretty(doc)
	if d := describe(t, data); len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "does not have the shape") {
		t.Errorf("problems %q", d.Problems)
	}
}

func TestDescribeBundleAndOthers(t *testing.T) {
	b, _ := canonjson.Pretty(bundletest.ExampleAbout(t, "io.github.acme/server", "1.2.0", strings.Repeat("ab", 32)))
	d := describe(t, b)
	if d.Kind != inspect.KindBundle || d.Bundle.Subject.Name != "io.github.acme/server" || d.Bundle.Subject.Digest != "sha256:"+strings.Repeat("ab", 32) || d.Attestation != nil {
		t.Errorf("%+v", d.Bundle)
	}
	d = describe(t, read(t, "oauth/standin-2026-07-28.json"))
	if d.Kind != inspect.KindOtherMCPRES || d.DocumentSchemaVersion == "" {
		t.Errorf("an OAuth evaluation: %+v", d)
	}
	d = describe(t, []byte(`{"logId":"x","entryUuid":"0","inclusionProofBase64":"not base64","inclusionProofSha256":"00"}`))
	if d.Kind != inspect.KindReference || d.Reference.LogID != "x" || len(d.Problems) != 1 || !strings.Contains(d.Problems[0], "inclusionProofBase64") {
		t.Errorf("a reference whose proof is not base64: %+v %q", d.Reference, d.Problems)
	}
	for _, c := range []struct {
		in   string
		want error
	}{
		{"garbage", inspect.ErrUnknown},
		{`{"a":1}`, inspect.ErrUnknown},
		{`{"schemaVersion":"something/else"}`, inspect.ErrUnknown},
		{`{"a":1,"a":2}`, nil}, // the strict reader's duplicate key
		{"", inspect.ErrUnknown},
	} {
		d, err := inspect.Describe([]byte(c.in))
		if err == nil || d != nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%q: %v %v", c.in, d, err)
		}
	}
}

// FuzzDescribe: a description or an error, never both; a description
// always encodes and prints (checkDescribe). Its seeds include partial
// documents of every kind (partialSeeds).
func FuzzDescribe(f *testing.F) {
	for _, name := range []string{"transparency/example.signed.json", "transparency/example.ref.json", "transparency/policy.json", "transparency/tlog-policy.txt"} {
		f.Add(read(f, name))
	}
	lg := offlinetest.NewLog("example.org/inspect-fuzz", "fuzz")
	lg.Append([]byte("x"))
	f.Add(lg.Proof(0, offlinetest.NewWitness("w", "w.example.org", "fuzz w", 1)).Marshal())
	f.Add([]byte("example.org/x\n1\nAAAA\n\n— example.org/x AAAAAAA=\n"))
	for _, seed := range partialSeeds() {
		f.Add(seed)
	}
	f.Fuzz(checkDescribe)
}
