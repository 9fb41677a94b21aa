package trustpolicy

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

var update = flag.Bool("update", false, "rewrite testdata/transparency from its builder")

// The transparency fixtures: the example bundle logged at leaf 2 of a
// four-leaf log whose checkpoint one log witness cosigned, the reference
// `mcpres log add -o` would write for it, the tlog policy that trusts the
// log and the witness, a v1 trust policy with that tlog policy and the
// two RFC 8032 test signers (signer-one signs, signer-two witnesses), and the bundle
// signed by signer-one with the reference and co-signed by signer-two,
// claiming TRANSPARENCY_RECORDED. Every key is test-only (offlinetest's
// derived keys, RFC 8032's published ones) and every time fixed, so the
// bytes are the same on every run.
const (
	fixtureOrigin      = "log.example.org/mcpres-example"
	fixtureWitnessName = "witness.example.org"
)

func transparencyFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	_, b, err := canonjson.ReadFile(filepath.Join("..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	l := offlinetest.NewLog(fixtureOrigin, "example log")
	w := offlinetest.NewWitness("W", fixtureWitnessName, "example log witness", 1767225600) // 2026-01-01T00:00:00Z
	l.Append([]byte("leaf 0"), []byte("leaf 1"), mustEntry(t, offline.EntryFor(b)), []byte("leaf 3"))
	ref := attest.NewTransparencyReference(fixtureOrigin, "2", l.Proof(2, w).Marshal())
	refJSON, err := ref.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tlogPolicy := "log " + l.VKey + "\nwitness W " + w.VKey + "\nquorum W\n"

	d := New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	d.AddSigner(Signer{Name: "signer-one", Identity: attesttest.IdentityOne, PublicKey: spki(attesttest.TestOnlyKeyOne()), Roles: []string{RoleSigner}})
	d.AddWitness(Signer{Name: "signer-two", Identity: attesttest.IdentityTwo, PublicKey: spki(attesttest.TestOnlyKeyTwo())})
	d.Transparency = &Transparency{TLogPolicy: tlogPolicy}
	o := attesttest.Options(attesttest.IdentityOne)
	o.Transparency = ref
	signed, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: o, Claim: ptr(attest.TransparencyRecorded)})
	if err != nil {
		t.Fatal(err)
	}
	cosigned, err := attest.Cosign(signed.Attested, attesttest.TestOnlyKeyTwo(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityTwo)})
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"example.ref.json":    refJSON,
		"tlog-policy.txt":     []byte(tlogPolicy),
		"policy.json":         mustPretty(t, d.Value()),
		"example.signed.json": mustPretty(t, cosigned.Attested),
	}
}

func ptr[T any](v T) *T { return &v }

func mustPretty(t *testing.T, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCommittedTransparencyFixtures: testdata/transparency is what its
// builder makes (run with -update to rewrite it), and it verifies offline
// at TRANSPARENCY_RECORDED: the reference's proof against the tlog policy,
// the signed bundle against the trust policy.
func TestCommittedTransparencyFixtures(t *testing.T) {
	files := transparencyFixtures(t)
	dir := filepath.Join("..", "testdata", "transparency")
	if *update {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for name, want := range files {
		if !slices.Contains(names, name) {
			t.Errorf("testdata/transparency/%s is missing (run go test ./trustpolicy -run CommittedTransparency -update)", name)
		} else if got, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(got, want) {
			t.Errorf("testdata/transparency/%s differs from the builder (run go test ./trustpolicy -run CommittedTransparency -update)", name)
		}
	}
	if len(names) != len(files) {
		t.Errorf("testdata/transparency has %v, the builder makes %d files", names, len(files))
	}

	// The committed bytes verify, read as a user reads them.
	read := func(name string) *canonjson.Value {
		_, v, err := canonjson.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	signed := read("example.signed.json")
	r, err := attest.Verify(signed, attest.Options{Policy: Open(read("policy.json"), OpenOptions{Validator: testVal}), EvaluatedAt: attesttest.EvaluatedAt, Validator: testVal})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid || r.Level != attest.TransparencyRecorded || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyVerifiedOffline {
		t.Fatalf("example.signed.json: valid %t level %s %v %s", r.Valid, r.Level, r.Diagnostics, r.Detail)
	}
	ref, proof, err := attest.ParseTransparencyReference(files["example.ref.json"])
	if err != nil {
		t.Fatal(err)
	}
	tp, errs := ParseTLogPolicy(string(files["tlog-policy.txt"]))
	if errs != nil {
		t.Fatal(errs)
	}
	v, err := offline.Verify(proof, offline.EntryFor(signed.Get("bundle")), tp.Trust())
	if err != nil {
		t.Fatal(err)
	}
	if err := v.MatchesReference(ref.LogID, ref.EntryUUID); err != nil || len(v.Checkpoint.Witnesses) != 1 {
		t.Errorf("reference %+v: %v, witnesses %v", ref, err, v.Checkpoint.Witnesses)
	}
}
