package attest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

func signOpts(identity string) attest.BundleSignOptions {
	return attest.BundleSignOptions{SignOptions: attesttest.Options(identity)}
}

func canon(t *testing.T, v *canonjson.Value) string {
	t.Helper()
	b, err := canonjson.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// verifyNoPolicy verifies w with no policy at the corpus evaluation time.
func verifyNoPolicy(t *testing.T, w *canonjson.Value) attest.Result {
	t.Helper()
	r, err := attest.Verify(w, attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func refusal(t *testing.T, err error, want attest.Refusal) *attest.SignError {
	t.Helper()
	var se *attest.SignError
	if !errors.As(err, &se) || se.Refusal != want {
		t.Fatalf("error %v, want refusal %d", err, want)
	}
	return se
}

func TestSignBundle(t *testing.T) {
	b := bundletest.Example(t)
	one := attesttest.TestOnlyKeyOne()
	s, err := attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	env, err := attest.Sign(b, one, attesttest.Options(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canon(t, s.Attested), canon(t, attest.Wrap(b, attest.Signed, env)); got != want {
		t.Errorf("attested bundle\n%s\nwant\n%s", got, want)
	}
	if s.KeyID != attesttest.KeyID(one) || s.Claim != attest.Signed || s.Envelopes != 1 || s.Cosigned || canon(t, s.Envelope) != canon(t, env) {
		t.Errorf("signing = key %s claim %s envelopes %d cosigned %t", s.KeyID, s.Claim, s.Envelopes, s.Cosigned)
	}
	if r := verifyNoPolicy(t, s.Attested); !r.Valid || r.Level != attest.Signed {
		t.Errorf("the signed bundle does not verify: %v %s", r.Diagnostics, r.Detail)
	}
	claim := attest.Witnessed
	o := signOpts(attesttest.IdentityOne)
	o.Claim = &claim
	if s, err := attest.SignBundle(b, one, o); err != nil || s.Claim != attest.Witnessed || s.Attested.Path("authenticity", "claimedClassification").Str != "WITNESSED" {
		t.Errorf("--claim WITNESSED: %v", err)
	}
}

func TestSignBundleRefusals(t *testing.T) {
	one := attesttest.TestOnlyKeyOne()
	t.Run("invalid evidence", func(t *testing.T) {
		b := bundletest.Example(t)
		b.Get("integrity").Set("bundleDigest", canonjson.NewString(strings.Repeat("0", 64)))
		want, err := validator.New().Bundle(b)
		if err != nil || want.Valid {
			t.Fatalf("setup: %v %v", err, want.Valid)
		}
		_, err = attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
		se := refusal(t, err, attest.RefusedInvalidEvidence)
		if strings.Join(se.Evidence.Diagnostics, ",") != strings.Join(want.Diagnostics, ",") || se.Evidence.Detail != want.Detail {
			t.Errorf("evidence result %v %s, want %v %s", se.Evidence.Diagnostics, se.Evidence.Detail, want.Diagnostics, want.Detail)
		}
	})
	t.Run("not an input", func(t *testing.T) {
		b := bundletest.Example(t)
		b.Get("evidence").Set("operations", canonjson.NewArray(canonjson.NewNull()))
		if _, verr := validator.New().Bundle(b); verr == nil {
			t.Fatal("setup: a null operation is not an input error")
		}
		_, err := attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
		se := refusal(t, err, attest.RefusedInput)
		var ie *validator.InputError
		if !errors.As(se, &ie) {
			t.Errorf("RefusedInput does not unwrap to the InputError: %v", se.Err)
		}
	})
	// An identity beyond the schema's 256 code points: the new envelope is
	// refused with exactly the verdict a full verification of the written
	// bundle would give.
	t.Run("beyond the schema's bounds", func(t *testing.T) {
		b := bundletest.Example(t)
		long := strings.Repeat("x", 257)
		_, err := attest.SignBundle(b, one, signOpts(long))
		se := refusal(t, err, attest.RefusedWouldNotVerify)
		env, err := attest.Sign(b, one, attesttest.Options(long))
		if err != nil {
			t.Fatal(err)
		}
		full := verifyNoPolicy(t, attest.Wrap(b, attest.Signed, env))
		if full.Valid || strings.Join(se.Verification.Diagnostics, ",") != strings.Join(full.Diagnostics, ",") || se.Verification.Detail != full.Detail {
			t.Errorf("refusal %v %q, full verification %v %q", se.Verification.Diagnostics, se.Verification.Detail, full.Diagnostics, full.Detail)
		}
	})
}

func TestCosign(t *testing.T) {
	b := bundletest.Example(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	signed, err := attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	before := canon(t, signed.Attested)
	claim := attest.Witnessed
	o := signOpts(attesttest.IdentityTwo)
	o.Claim = &claim
	s, err := attest.Cosign(signed.Attested, two, o)
	if err != nil {
		t.Fatal(err)
	}
	if canon(t, signed.Attested) != before {
		t.Error("Cosign changed its input")
	}
	if !s.Cosigned || s.Envelopes != 2 || s.Claim != attest.Witnessed || s.KeyID != attesttest.KeyID(two) {
		t.Errorf("signing = cosigned %t envelopes %d claim %s key %s", s.Cosigned, s.Envelopes, s.Claim, s.KeyID)
	}
	if r := verifyNoPolicy(t, withClaim(s.Attested, attest.Signed)); !r.Valid || r.Evaluation.DistinctKeys != 2 {
		t.Errorf("the co-signed bundle does not verify: %v %s", r.Diagnostics, r.Detail)
	}
	// Without --claim the claim is kept; on a bundle without envelopes it
	// becomes SIGNED.
	if s, err := attest.Cosign(signed.Attested, two, signOpts(attesttest.IdentityTwo)); err != nil || s.Claim != attest.Signed {
		t.Errorf("kept claim: %v", err)
	}
	empty := attest.Wrap(b, attest.UnsignedIntegrityOnly)
	if s, err := attest.Cosign(empty, two, signOpts(attesttest.IdentityTwo)); err != nil || s.Claim != attest.Signed || s.Envelopes != 1 {
		t.Errorf("first envelope: %v", err)
	}

	t.Run("key already signed", func(t *testing.T) {
		_, err := attest.Cosign(s.Attested, one, signOpts("test://mcp-res/disposable/someone-else"))
		se := refusal(t, err, attest.RefusedKeyAlreadySigned)
		if se.KeyID != attesttest.KeyID(one) || se.SignerIdentity != attesttest.IdentityOne {
			t.Errorf("refusal names key %s identity %q", se.KeyID, se.SignerIdentity)
		}
	})
	t.Run("does not verify", func(t *testing.T) {
		bad := signed.Attested.Clone()
		sig := bad.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
		sig.Set("signerIdentity", canonjson.NewString(attesttest.IdentityTwo))
		_, err := attest.Cosign(bad, two, signOpts(attesttest.IdentityTwo))
		se := refusal(t, err, attest.RefusedUnverified)
		if want := verifyNoPolicy(t, bad); strings.Join(se.Verification.Diagnostics, ",") != strings.Join(want.Diagnostics, ",") || se.Verification.Detail != want.Detail {
			t.Errorf("refusal %v %s, verification %v %s", se.Verification.Diagnostics, se.Verification.Detail, want.Diagnostics, want.Detail)
		}
	})
	t.Run("beyond the schema's bounds", func(t *testing.T) {
		long := strings.Repeat("x", 257)
		_, err := attest.Cosign(signed.Attested, two, signOpts(long))
		se := refusal(t, err, attest.RefusedWouldNotVerify)
		env, err := attest.Sign(b, two, attesttest.Options(long))
		if err != nil {
			t.Fatal(err)
		}
		full := signed.Attested.Clone()
		envs := full.Path("authenticity", "envelopes")
		envs.Items = append(envs.Items, env)
		want := verifyNoPolicy(t, full)
		if want.Valid || strings.Join(se.Verification.Diagnostics, ",") != strings.Join(want.Diagnostics, ",") || se.Verification.Detail != want.Detail {
			t.Errorf("refusal %v %q, full verification %v %q", se.Verification.Diagnostics, se.Verification.Detail, want.Diagnostics, want.Detail)
		}
	})
}

func withClaim(w *canonjson.Value, l attest.Level) *canonjson.Value {
	c := w.Clone()
	c.Get("authenticity").Set("claimedClassification", canonjson.NewString(l.String()))
	return c
}

// MaxEnvelopes is the schema's bound: co-signing fills an attested bundle
// up to it, refuses beyond it, and one more envelope would fail the schema.
func TestCosignMaxEnvelopes(t *testing.T) {
	b := bundletest.Example(t)
	keys, ids := benchSigners(attest.MaxEnvelopes + 1)
	s, err := attest.SignBundle(b, keys[0], signOpts(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Attested
	for i := 1; i < attest.MaxEnvelopes; i++ {
		s, err := attest.Cosign(w, keys[i], signOpts(ids[i]))
		if err != nil {
			t.Fatalf("envelope %d: %v", i, err)
		}
		w = s.Attested
	}
	if r := verifyNoPolicy(t, w); !r.Valid || len(r.Evaluation.Envelopes) != attest.MaxEnvelopes {
		t.Fatalf("%d envelopes do not verify: %v %s", attest.MaxEnvelopes, r.Diagnostics, r.Detail)
	}
	_, err = attest.Cosign(w, keys[attest.MaxEnvelopes], signOpts(ids[attest.MaxEnvelopes]))
	if se := refusal(t, err, attest.RefusedFull); se.Envelopes != attest.MaxEnvelopes {
		t.Errorf("refusal counts %d envelopes", se.Envelopes)
	}
	env, err := attest.Sign(b, keys[attest.MaxEnvelopes], attesttest.Options(ids[attest.MaxEnvelopes]))
	if err != nil {
		t.Fatal(err)
	}
	over := w.Clone()
	envs := over.Path("authenticity", "envelopes")
	envs.Items = append(envs.Items, env)
	errs := validator.New().SchemaErrors(schema.AttestedConformanceBundle, over)
	if len(errs) != 1 || errs[0].Keyword != "maxItems" || errs[0].InstancePath != "/authenticity/envelopes" {
		t.Errorf("%d envelopes: schema errors %v, want one maxItems", attest.MaxEnvelopes+1, errs)
	}
}

// ClaimUnreachable names a claim no policy can derive from what was signed
// (WITNESSED with one key, TRANSPARENCY_RECORDED with no reference) and
// nothing else: the same claims hold once the key or the reference is
// there.
func TestSigningClaimUnreachable(t *testing.T) {
	b := bundletest.Example(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	sign := func(claim attest.Level, ref bool) *attest.Signing {
		t.Helper()
		o := signOpts(attesttest.IdentityOne)
		o.Claim = &claim
		if ref {
			o.Transparency = attesttest.TestTransparency()
		}
		s, err := attest.SignBundle(b, one, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		claim attest.Level
		ref   bool
		want  string
	}{
		{attest.Signed, false, ""},
		{attest.SignedWithIdentity, false, ""},
		{attest.Witnessed, false, "WITNESSED needs at least two distinct keys, and the attested bundle has 1 envelope"},
		{attest.TransparencyRecorded, false, "TRANSPARENCY_RECORDED needs a transparency reference, and no envelope of the attested bundle carries one"},
		{attest.TransparencyRecorded, true, ""},
	} {
		if got := sign(tc.claim, tc.ref).ClaimUnreachable(); got != tc.want {
			t.Errorf("claim %s, reference %t: %q, want %q", tc.claim, tc.ref, got, tc.want)
		}
	}
	// Co-signed by a second key, WITNESSED can hold (the claim is kept).
	s, err := attest.Cosign(sign(attest.Witnessed, false).Attested, two, signOpts(attesttest.IdentityTwo))
	if err != nil {
		t.Fatal(err)
	}
	if s.Claim != attest.Witnessed || s.ClaimUnreachable() != "" {
		t.Errorf("co-signed: claim %s, %q", s.Claim, s.ClaimUnreachable())
	}
}
