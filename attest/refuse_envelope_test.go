package attest_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
)

// signedStatement wraps b with one envelope over the statement for b as
// attest.Sign makes it, after edit has changed it, signed by attesttest's
// first key (a producer that signs what it should not).
func signedStatement(t *testing.T, b *canonjson.Value, edit func(st *canonjson.Value)) *canonjson.Value {
	t.Helper()
	key := attesttest.TestOnlyKeyOne()
	st := attest.Statement(b, attesttest.KeyID(key), attesttest.Options(attesttest.IdentityOne))
	edit(st)
	payload, err := canonjson.Canonical(st)
	if err != nil {
		t.Fatal(err)
	}
	env, err := attest.SignPayload(payload, key, attesttest.IdentityOne)
	if err != nil {
		t.Fatal(err)
	}
	return attest.Wrap(b, attest.Signed, env)
}

// wantInvalid verifies w with no policy and requires exactly code with a
// detail containing detail.
func wantInvalid(t *testing.T, name string, w *canonjson.Value, code, detail string) {
	t.Helper()
	r, err := attest.Verify(w, attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if r.Valid || len(r.Diagnostics) != 1 || r.Diagnostics[0] != code || !strings.Contains(r.Detail, detail) {
		t.Errorf("%s: valid %t %v %q, want %s with %q", name, r.Valid, r.Diagnostics, r.Detail, code, detail)
	}
}

// E10: a statement signed by the producer that does not attest exactly
// this bundle (another subject, scenario, execution instance, profile or
// validator, or two subjects) is refused with
// MCP_RES_ATTESTATION_BINDING_MISMATCH naming what differs; the statement
// as attest.Sign makes it verifies (control).
func TestVerifyRefusesStatementBinding(t *testing.T) {
	b := bundletest.Example(t)
	if r := verifyNoPolicy(t, signedStatement(t, b, func(*canonjson.Value) {})); !r.Valid {
		t.Fatalf("control: %v %s", r.Diagnostics, r.Detail)
	}
	pred := func(st *canonjson.Value) *canonjson.Value { return st.Get("predicate") }
	for _, tt := range []struct {
		name, why string
		edit      func(st *canonjson.Value)
	}{
		{"two subjects", "statement has 2 subjects, want exactly 1", func(st *canonjson.Value) {
			subs := st.Get("subject")
			subs.Items = append(subs.Items, subs.Items[0].Clone())
		}},
		{"subject name", "subject name differs from the bundle's subject", func(st *canonjson.Value) {
			st.Get("subject").Items[0].Set("name", canonjson.NewString("another-server"))
		}},
		{"scenario", "scenarioFingerprint differs from the bundle's", func(st *canonjson.Value) {
			pred(st).Set("scenarioFingerprint", canonjson.NewString(strings.Repeat("ab", 32)))
		}},
		{"execution instance", "executionInstanceDigest differs from the bundle's", func(st *canonjson.Value) {
			pred(st).Set("executionInstanceDigest", canonjson.NewString(strings.Repeat("cd", 32)))
		}},
		{"profile", "profile differs from the bundle's", func(st *canonjson.Value) {
			p := pred(st).Get("profile")
			p.Set("version", canonjson.NewString("9.9.9"))
		}},
		{"validator", "validator differs from the bundle's", func(st *canonjson.Value) {
			p := pred(st).Get("validator")
			p.Set("version", canonjson.NewString("9.9.9"))
		}},
	} {
		wantInvalid(t, tt.name, signedStatement(t, b, tt.edit), attest.CodeBindingMismatch, "envelope 0: "+tt.why)
	}
}

// The envelope's own fields: a keyid that is not the SHA-256 of the
// public key (E4), a public key that is not strict base64 or not an
// Ed25519 SPKI, and a predicate naming another algorithm (E12, which the
// statement schema holds first) are each refused with their code, before
// anything is trusted.
func TestVerifyRefusesEnvelopeFields(t *testing.T) {
	b := bundletest.Example(t)
	good := signedStatement(t, b, func(*canonjson.Value) {})
	sig := func(w *canonjson.Value) *canonjson.Value {
		return w.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
	}
	two := attesttest.TestOnlyKeyTwo()

	w := good.Clone()
	sig(w).Set("keyid", canonjson.NewString(attesttest.KeyID(two)))
	wantInvalid(t, "keyid of another key", w, attest.CodeIdentityMismatch, "keyid is not the SHA-256 of the public key")

	w = good.Clone()
	spki := sig(w).Get("publicKeySpkiBase64").Str
	sig(w).Set("publicKeySpkiBase64", canonjson.NewString(strings.TrimRight(spki, "=")))
	wantInvalid(t, "public key without padding", w, attest.CodeSignatureInvalid, "publicKeySpkiBase64: ")

	// A DER that is not an Ed25519 SPKI, with the keyid of those bytes
	// (so that E4 holds): refused as a signature that cannot be checked.
	w = good.Clone()
	der, _ := base64.StdEncoding.DecodeString(spki)
	der[0] ^= 0x01
	sig(w).Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString(der)))
	sig(w).Set("keyid", canonjson.NewString(ed25519strict.SPKIFingerprint(der)))
	wantInvalid(t, "not an Ed25519 SPKI", w, attest.CodeSignatureInvalid, "envelope 0: ")

	alg := signedStatement(t, b, func(st *canonjson.Value) {
		st.Get("predicate").Set("signatureAlgorithm", canonjson.NewString("ECDSA-P256"))
	})
	// E12 is held first by the statement schema (a const), which names it.
	wantInvalid(t, "another algorithm", alg, attest.CodeSchemaInvalid, "/predicate/signatureAlgorithm: must be equal to the constant \"Ed25519\"")
}

// E14 with no policy: a transparency reference whose proof is not strict
// base64, or whose inclusionProofSha256 is not the proof's, is refused
// with MCP_RES_ATTESTATION_TRANSPARENCY_INVALID and the envelope marked
// FAILED; the reference as made is only digest-checked (control).
func TestVerifyRefusesTransparencyDigest(t *testing.T) {
	b := bundletest.Example(t)
	withRef := func(edit func(ref *canonjson.Value)) *canonjson.Value {
		return signedStatement(t, b, func(st *canonjson.Value) {
			ref, err := canonjson.FromGo(attesttest.TestTransparency())
			if err != nil {
				t.Fatal(err)
			}
			edit(ref)
			st.Get("predicate").Set("transparencyReference", ref)
		})
	}
	r := verifyNoPolicy(t, withRef(func(*canonjson.Value) {}))
	if !r.Valid || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyDigestOnly {
		t.Fatalf("control: %v %s %s", r.Diagnostics, r.Detail, r.Evaluation.Envelopes[0].Transparency)
	}
	for _, tt := range []struct {
		name, why string
		edit      func(ref *canonjson.Value)
	}{
		{"proof without padding", "inclusionProofBase64: ", func(ref *canonjson.Value) {
			ref.Set("inclusionProofBase64", canonjson.NewString(strings.TrimRight(ref.Get("inclusionProofBase64").Str, "=")))
		}},
		{"another proof's digest", "inclusionProofSha256 is not the SHA-256 of the proof bytes", func(ref *canonjson.Value) {
			ref.Set("inclusionProofSha256", canonjson.NewString(strings.Repeat("0", 64)))
		}},
	} {
		w := withRef(tt.edit)
		wantInvalid(t, tt.name, w, attest.CodeTransparencyInvalid, "envelope 0: "+tt.why)
		r, _ := attest.Verify(w, attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
		if len(r.Evaluation.Envelopes) != 1 || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyFailed {
			t.Errorf("%s: envelope transparency %+v, want FAILED", tt.name, r.Evaluation.Envelopes)
		}
	}
}
