package attest_test

import (
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// A policy opened once (trustpolicy.Open) gives every verification the
// result that opening it for each verification gives, a load that failed
// included: it is reported by each verification that reaches step G6.
func TestLoadPolicyOnce(t *testing.T) {
	w, policy, want := benchWrapper(t, bundletest.Example(t), 2)
	val := validator.New()
	badPolicy := policy.Clone()
	badPolicy.Set("validUntil", canonjson.NewInt(1)) // fails the schema
	for _, tc := range []struct {
		name  string
		doc   *canonjson.Value
		valid bool
	}{{"valid policy", policy, true}, {"schema-invalid policy", badPolicy, false}} {
		open := trustpolicy.OpenOptions{Validator: val}
		once := attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Validator: val, Policy: trustpolicy.Open(tc.doc, open)}
		for range 3 {
			r, err := attest.Verify(w, once)
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid != tc.valid || (tc.valid && r.Level != want) {
				t.Errorf("%s: valid %t level %s %v %s", tc.name, r.Valid, r.Level, r.Diagnostics, r.Detail)
			}
			perCall := once
			perCall.Policy = trustpolicy.Open(tc.doc, open)
			rp, err := attest.Verify(w, perCall)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := canonjson.Canonical(r.Value())
			b, _ := canonjson.Canonical(rp.Value())
			if string(a) != string(b) {
				t.Errorf("%s: opened once\n%s\nopened per call\n%s", tc.name, a, b)
			}
		}
	}
}

// A refused policy makes a bundle that verifies under the policy INVALID
// with the refusal's code, at step G6, naming the policy; the control: the
// same policy not refused verifies, and a bundle that fails before G6
// (schema) reports its own problem, not the refusal.
func TestRefusedPolicy(t *testing.T) {
	w, policy, want := benchWrapper(t, bundletest.Example(t), 2)
	val := validator.New()
	open := trustpolicy.OpenOptions{Validator: val}
	refusal := &attest.Failure{Code: "MCPRES_TEST_REFUSED", Detail: "test refusal"}
	verify := func(w *canonjson.Value, lp *attest.LoadedPolicy) attest.Result {
		r, err := attest.Verify(w, attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Validator: val, Policy: lp})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lp := trustpolicy.Open(policy, open)
	if r := verify(w, lp); !r.Valid || r.Level != want {
		t.Fatalf("control: not refused: valid %t level %s %v", r.Valid, r.Level, r.Diagnostics)
	}
	r := verify(w, lp.Refused(refusal))
	if r.Valid || len(r.Diagnostics) != 1 || r.Diagnostics[0] != refusal.Code || r.Detail != refusal.Detail {
		t.Fatalf("refused: valid %t %v %q", r.Valid, r.Diagnostics, r.Detail)
	}
	if r.Evaluation.PolicyID == nil {
		t.Error("refused: the policy id is not reported")
	}
	if r := verify(w, lp); !r.Valid {
		t.Error("Refused changed the policy it was called on")
	}
	broken := w.Clone()
	broken.Set("bundle", canonjson.NewInt(1))
	if r := verify(broken, lp.Refused(refusal)); r.Valid || r.Diagnostics[0] == refusal.Code {
		t.Errorf("a bundle failing before G6: %v, want its own diagnostic", r.Diagnostics)
	}
}
