package attest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
)

// TestParseTransparencyReference: Marshal's output reads back; each
// departure from a strict four-member reference whose digest matches is
// refused naming what is wrong.
func TestParseTransparencyReference(t *testing.T) {
	proof := []byte("offline-test-inclusion-proof-v1")
	ref := attest.NewTransparencyReference("example.org/log", "7", proof)
	data, err := ref.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"logId\": \"example.org/log\",\n  \"entryUuid\": \"7\",\n  \"inclusionProofBase64\": \"" + ref.InclusionProofBase64 + "\",\n  \"inclusionProofSha256\": \"" + ref.InclusionProofSha256 + "\"\n}\n"
	if string(data) != want {
		t.Fatalf("Marshal:\n%s\nwant\n%s", data, want)
	}
	got, gotProof, err := attest.ParseTransparencyReference(data)
	if err != nil || *got != *ref || !bytes.Equal(gotProof, proof) {
		t.Fatalf("round trip: %+v %q %v", got, gotProof, err)
	}
	// Compact JSON with the same members reads the same.
	compact := `{"logId":"example.org/log","entryUuid":"7","inclusionProofBase64":"` + ref.InclusionProofBase64 + `","inclusionProofSha256":"` + ref.InclusionProofSha256 + `"}`
	if _, _, err := attest.ParseTransparencyReference([]byte(compact)); err != nil {
		t.Fatalf("compact: %v", err)
	}
	sum := ref.InclusionProofSha256
	for _, tt := range []struct{ name, doc, want string }{
		{"not JSON", `{`, "transparency reference: "},
		{"an array", `[]`, "not a JSON object"},
		{"an extra member", strings.Replace(compact, `{`, `{"note":"x",`, 1), `unknown member "note"`},
		{"no digest", strings.Replace(compact, `,"inclusionProofSha256":"`+sum+`"`, ``, 1), "no inclusionProofSha256"},
		{"a wrong digest", strings.Replace(compact, sum, strings.Repeat("0", 64), 1), "inclusionProofSha256 is not the SHA-256"},
		{"an upper-case digest", strings.Replace(compact, sum, strings.ToUpper(sum), 1), "inclusionProofSha256 is not the SHA-256"},
		{"a number", strings.Replace(compact, `"7"`, `7`, 1), "entryUuid is not a non-empty string"},
		{"an empty logId", strings.Replace(compact, `"example.org/log"`, `""`, 1), "logId is not a non-empty string"},
		{"bad base64", strings.Replace(compact, ref.InclusionProofBase64, "!!!!", 1), "inclusionProofBase64"},
		{"a duplicate member", strings.Replace(compact, `{`, `{"entryUuid":"8",`, 1), "duplicate"},
	} {
		if _, _, err := attest.ParseTransparencyReference([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestVerifySigned: every signature is verified but the claim is not
// judged, so a WITNESSED claim verifies as SIGNED (Verify without a
// policy refuses it); a garbage signature and a schema-invalid wrapper
// are refused as Verify refuses them.
func TestVerifySigned(t *testing.T) {
	b := bundletest.Example(t)
	claim := attest.Witnessed
	o := signOpts(attesttest.IdentityOne)
	o.Claim = &claim
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), o)
	if err != nil {
		t.Fatal(err)
	}
	opts := attest.Options{EvaluatedAt: attesttest.EvaluatedAt}
	r, err := attest.VerifySigned(s.Attested, opts)
	if err != nil || !r.Valid || r.Level != attest.Signed || !strings.Contains(strings.Join(r.Evaluation.Notes, "; "), "the claim WITNESSED was not judged") {
		t.Fatalf("WITNESSED claim: %v %v %s %v", err, r.Diagnostics, r.Level, r.Evaluation.Notes)
	}
	// Control: Verify without a policy refuses that claim.
	if r := verifyNoPolicy(t, s.Attested); r.Valid {
		t.Fatal("Verify accepted a WITNESSED claim without a policy")
	}

	garbage := s.Attested.Clone()
	sig := garbage.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
	raw := []byte(sig.Get("sig").Str)
	raw[0] ^= 'A' ^ 'B'
	if raw[0] == sig.Get("sig").Str[0] {
		raw[0] = 'C'
	}
	sig.Set("sig", canonjson.NewString(string(raw)))
	if r, err := attest.VerifySigned(garbage, opts); err != nil || r.Valid || r.Diagnostics[0] != attest.CodeSignatureInvalid {
		t.Errorf("a garbage signature: %v %v %s", err, r.Diagnostics, r.Detail)
	}

	schemaBad := s.Attested.Clone()
	schemaBad.Set("extra", canonjson.NewBool(true))
	if r, err := attest.VerifySigned(schemaBad, opts); err != nil || r.Valid || r.Diagnostics[0] != attest.CodeSchemaInvalid {
		t.Errorf("a schema-invalid wrapper: %v %v %s", err, r.Diagnostics, r.Detail)
	}

	unsigned := attest.Wrap(b, attest.UnsignedIntegrityOnly)
	if r, err := attest.VerifySigned(unsigned, opts); err != nil || !r.Valid || r.Level != attest.UnsignedIntegrityOnly {
		t.Errorf("no envelope: %v %v %s", err, r.Diagnostics, r.Detail)
	}

	if _, err := attest.VerifySigned(s.Attested, attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Policy: trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{}), trustpolicy.OpenOptions{})}); err == nil {
		t.Error("VerifySigned took a policy")
	}
}

// FuzzParseTransparencyReference: no input makes the parser panic; what it
// accepts has a proof whose digest is the one it carries, and reads back
// the same from its Marshal.
func FuzzParseTransparencyReference(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzParseTransparencyReference.
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, proof, err := attest.ParseTransparencyReference(data)
		if err != nil {
			return
		}
		if canonjson.BytesDigest(proof) != ref.InclusionProofSha256 {
			t.Fatal("accepted a reference whose digest does not match")
		}
		out, err := ref.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, proof2, err := attest.ParseTransparencyReference(out)
		if err != nil || *again != *ref || !bytes.Equal(proof, proof2) {
			t.Fatalf("Marshal does not read back: %v", err)
		}
	})
}
