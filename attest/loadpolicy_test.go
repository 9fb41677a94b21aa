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
