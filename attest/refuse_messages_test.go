package attest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// Every refusal of SignBundle and Cosign says what was refused and why,
// in its own words (what attest sign and attest cosign print): each is
// reached for its own reason, and the signing that is not refused is the
// control.
func TestSignErrorMessages(t *testing.T) {
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	b := bundletest.Example(t)
	signed, err := attest.SignBundle(b, one, signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatalf("control: %v", err)
	}

	t.Run("input", func(t *testing.T) {
		bad := bundletest.Example(t)
		bad.Get("evidence").Set("operations", canonjson.NewArray(canonjson.NewNull()))
		_, err := attest.SignBundle(bad, one, signOpts(attesttest.IdentityOne))
		se := refusal(t, err, attest.RefusedInput)
		if want := "attest: refusing to sign: " + se.Err.Error(); err.Error() != want || se.Err == nil {
			t.Errorf("got %q, want %q", err, want)
		}
	})
	t.Run("invalid evidence", func(t *testing.T) {
		bad := bundletest.Example(t)
		bad.Get("integrity").Set("bundleDigest", canonjson.NewString(strings.Repeat("0", 64)))
		_, err := attest.SignBundle(bad, one, signOpts(attesttest.IdentityOne))
		se := refusal(t, err, attest.RefusedInvalidEvidence)
		want := "attest: refusing to sign invalid evidence: " + strings.Join(se.Evidence.Diagnostics, ", ") + ": " + se.Evidence.Detail
		if err.Error() != want || !strings.Contains(want, "MCP_RES_") {
			t.Errorf("got %q, want %q", err, want)
		}
	})
	t.Run("would not verify", func(t *testing.T) {
		_, err := attest.SignBundle(b, one, signOpts(strings.Repeat("x", 257)))
		se := refusal(t, err, attest.RefusedWouldNotVerify)
		want := "attest: refusing to write an attested bundle that would not verify: " + strings.Join(se.Verification.Diagnostics, ", ") + ": " + se.Verification.Detail
		if err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
	})
	t.Run("unverified", func(t *testing.T) {
		bad := signed.Attested.Clone()
		bad.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0].Set("signerIdentity", canonjson.NewString(attesttest.IdentityTwo))
		_, err := attest.Cosign(bad, two, signOpts(attesttest.IdentityTwo))
		se := refusal(t, err, attest.RefusedUnverified)
		want := "attest: refusing to co-sign an attested bundle that does not verify: " + strings.Join(se.Verification.Diagnostics, ", ") + ": " + se.Verification.Detail
		if err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
	})
	t.Run("key already signed", func(t *testing.T) {
		_, err := attest.Cosign(signed.Attested, one, signOpts("test://mcp-res/disposable/someone-else"))
		refusal(t, err, attest.RefusedKeyAlreadySigned)
		want := fmt.Sprintf("attest: refusing to co-sign: key %s already signed this bundle (as %q); one key is one signer, never two witnesses", attesttest.KeyID(one), attesttest.IdentityOne)
		if err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
	})
	t.Run("full", func(t *testing.T) {
		keys, ids := benchSigners(attest.MaxEnvelopes + 1)
		s, err := attest.SignBundle(b, keys[0], signOpts(ids[0]))
		if err != nil {
			t.Fatal(err)
		}
		w := s.Attested
		for i := 1; i < attest.MaxEnvelopes; i++ {
			s, err := attest.Cosign(w, keys[i], signOpts(ids[i]))
			if err != nil {
				t.Fatal(err)
			}
			w = s.Attested
		}
		_, err = attest.Cosign(w, keys[attest.MaxEnvelopes], signOpts(ids[attest.MaxEnvelopes]))
		refusal(t, err, attest.RefusedFull)
		want := fmt.Sprintf("attest: refusing to co-sign: the attested bundle already holds %d envelopes, the most an attested bundle may carry", attest.MaxEnvelopes)
		if err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
	})
	// A refusal this package does not know (a newer caller's zero value):
	// named by its number, never empty.
	if got := (&attest.SignError{Refusal: attest.Refusal(99)}).Error(); got != "attest: refusal 99" {
		t.Errorf("unknown refusal: %q", got)
	}
}

// NewVerifier refuses options that do not say one trust source, an
// evaluation time that is not RFC 3339, and a gate that cannot be
// evaluated; WithGate refuses such a gate too and keeps the verifier's
// own. The options that hold are the control.
func TestNewVerifierRefuses(t *testing.T) {
	lp := trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}), trustpolicy.OpenOptions{})
	ok := attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt, Policy: lp, Gate: attest.Gate{NoSubjectUnsafe: true}}
	badGate := attest.Gate{AcceptResults: []string{"MAYBE"}}
	for _, tt := range []struct {
		name string
		o    attest.VerifierOptions
		want string
	}{
		{"no policy said", attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt}, "attest: a Verifier needs a trust policy (Policy or PolicyFor), or NoPolicyUnsafe said by name"},
		{"policy and no policy", attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt, Policy: lp, NoPolicyUnsafe: true}, "attest: a Verifier takes one of Policy, PolicyFor and NoPolicyUnsafe"},
		{"policy and per bundle", attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt, Policy: lp, PolicyFor: func(*canonjson.Value) *attest.LoadedPolicy { return lp }}, "attest: a Verifier takes one of Policy, PolicyFor and NoPolicyUnsafe"},
		{"time", attest.VerifierOptions{EvaluatedAt: "2026-08-27 18:05", Policy: lp}, `attest: evaluation time "2026-08-27 18:05" is not an RFC 3339 date-time (leap seconds are rejected)`},
		{"gate", attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt, Policy: lp, Gate: badGate}, "attest: gate: accepted "},
	} {
		v, err := attest.NewVerifier(tt.o)
		if v != nil || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	v, err := attest.NewVerifier(ok)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	if _, err := v.WithGate(badGate); err == nil || !strings.HasPrefix(err.Error(), "attest: gate: accepted ") {
		t.Errorf("WithGate: %v", err)
	}
	g := attest.Gate{MinLevel: attest.Witnessed, NoSubjectUnsafe: true}
	w, err := v.WithGate(g)
	if err != nil || w.Gate().MinLevel != attest.Witnessed || v.Gate().MinLevel != 0 {
		t.Fatalf("WithGate control: %v", err)
	}
	// The gate given judges: a bundle signed by the trusted key alone is
	// valid but not WITNESSED, and Summaries says why in short.
	s, err := attest.SignBundle(bundletest.Example(t), attesttest.TestOnlyKeyOne(), signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	r, verdict, err := w.Verify(s.Attested)
	if err != nil || !r.Valid || verdict.Passed || len(verdict.Summaries()) == 0 {
		t.Fatalf("WITNESSED gate: valid %t passed %t %v %v", r.Valid, verdict.Passed, verdict.Summaries(), err)
	}
	if _, verdict, _ := v.Verify(s.Attested); !verdict.Passed || verdict.Summaries() != nil {
		t.Errorf("default gate: %v", verdict.Summaries())
	}
}

// A Verifier with PolicyFor verifies each bundle against the policy it
// returns for that bundle: one that trusts the signer passes, one that
// does not fails the bundle as untrusted (not the other way round).
func TestVerifierPolicyFor(t *testing.T) {
	claim := attest.SignedWithIdentity
	o := signOpts(attesttest.IdentityOne)
	o.Claim = &claim
	s, err := attest.SignBundle(bundletest.Example(t), attesttest.TestOnlyKeyOne(), o)
	if err != nil {
		t.Fatal(err)
	}
	trusting := trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}), trustpolicy.OpenOptions{})
	other := trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"two"}}), trustpolicy.OpenOptions{})
	for _, tt := range []struct {
		lp    *attest.LoadedPolicy
		valid bool
	}{{trusting, true}, {other, false}} {
		var asked *canonjson.Value
		v, err := attest.NewVerifier(attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt,
			PolicyFor: func(w *canonjson.Value) *attest.LoadedPolicy { asked = w; return tt.lp }})
		if err != nil {
			t.Fatal(err)
		}
		r, err := v.Check(s.Attested)
		if err != nil || r.Valid != tt.valid || asked != s.Attested {
			t.Errorf("valid %t, want %t (%v %s %v)", r.Valid, tt.valid, r.Diagnostics, r.Detail, err)
		}
		if !tt.valid && (len(r.Diagnostics) != 1 || r.Diagnostics[0] != attest.CodeUntrustedSigner) {
			t.Errorf("untrusted: %v", r.Diagnostics)
		}
	}
}

// ClaimBeyond says when the producer's own policy derives less than the
// claim: WITNESSED by one trusted key is an overclaim, a claim by a key
// the policy does not trust is an untrusted signer; the claim the policy
// derives is "" (control).
func TestClaimBeyond(t *testing.T) {
	b := bundletest.Example(t)
	one := attesttest.TestOnlyKeyOne()
	val := validator.New()
	trusting := trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}), trustpolicy.OpenOptions{Validator: val})
	other := trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"two"}}), trustpolicy.OpenOptions{Validator: val})
	sign := func(l attest.Level) *attest.Signing {
		o := signOpts(attesttest.IdentityOne)
		o.Claim = &l
		s, err := attest.SignBundle(b, one, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tt := range []struct {
		claim attest.Level
		lp    *attest.LoadedPolicy
		want  string
	}{
		{attest.SignedWithIdentity, trusting, ""},
		{attest.Signed, trusting, ""},
		{attest.Witnessed, trusting, attest.CodeClassificationOverclaim + ": "},
		{attest.SignedWithIdentity, other, attest.CodeUntrustedSigner + ": "},
	} {
		got, err := sign(tt.claim).ClaimBeyond(tt.lp, attesttest.EvaluatedAt, val)
		if err != nil || (tt.want == "" && got != "") || (tt.want != "" && (!strings.HasPrefix(got, tt.want) || len(got) == len(tt.want))) {
			t.Errorf("claim %s: %q %v, want %q…", tt.claim, got, err, tt.want)
		}
	}
	if _, err := sign(attest.Signed).ClaimBeyond(trusting, "not a time", val); err == nil {
		t.Error("an evaluation time that is not one: no error")
	}
}

// SignedTrustPolicyID is the trustPolicyId the first envelope's statement
// names, or "" when there is none to read: no envelopes, a payload that
// is not strict base64 or not JSON.
func TestSignedTrustPolicyID(t *testing.T) {
	s, err := attest.SignBundle(bundletest.Example(t), attesttest.TestOnlyKeyOne(), signOpts(attesttest.IdentityOne))
	if err != nil {
		t.Fatal(err)
	}
	if got := attest.SignedTrustPolicyID(s.Attested); got != attesttest.TrustPolicyID {
		t.Fatalf("control: %q, want %q", got, attesttest.TrustPolicyID)
	}
	for name, edit := range map[string]func(w *canonjson.Value){
		"no envelopes":   func(w *canonjson.Value) { w.Get("authenticity").Set("envelopes", canonjson.NewArray()) },
		"payload number": func(w *canonjson.Value) { env(w).Set("payload", canonjson.NewInt(1)) },
		"not base64":     func(w *canonjson.Value) { env(w).Set("payload", canonjson.NewString("!!!")) },
		"not JSON":       func(w *canonjson.Value) { env(w).Set("payload", canonjson.NewString("bm90IEpTT04=")) },
		"no predicate id": func(w *canonjson.Value) {
			env(w).Set("payload", canonjson.NewString("eyJwcmVkaWNhdGUiOnt9fQ==")) // {"predicate":{}}
		},
	} {
		w := s.Attested.Clone()
		edit(w)
		if got := attest.SignedTrustPolicyID(w); got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

func env(w *canonjson.Value) *canonjson.Value { return w.Path("authenticity", "envelopes").Items[0] }
