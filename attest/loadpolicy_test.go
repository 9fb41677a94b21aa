package attest_test

import (
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// A policy loaded once with LoadPolicy gives every verification the result
// that passing the document in Options.Policy gives, and its loader runs
// once, whatever the number of verifications.
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
		loads := 0
		counting := func(doc *canonjson.Value, v *validator.Validator) (attest.TrustPolicy, []schema.Error, error) {
			loads++
			return attest.LoadPolicy(doc, attest.Options{Validator: v}).Policy()
		}
		opts := attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Validator: val,
			PolicyLoaders: map[string]attest.PolicyLoader{bundle.SchemaVersionTrustPolicy: counting}}
		perCall := opts
		perCall.Policy = tc.doc
		once := opts
		once.LoadedPolicy = attest.LoadPolicy(tc.doc, opts)
		if loads != 1 {
			t.Fatalf("%s: LoadPolicy ran the loader %d times", tc.name, loads)
		}
		for range 3 {
			r, err := attest.Verify(w, once)
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid != tc.valid || (tc.valid && r.Level != want) {
				t.Errorf("%s: valid %t level %s %v %s", tc.name, r.Valid, r.Level, r.Diagnostics, r.Detail)
			}
			loads = 0
			rp, err := attest.Verify(w, perCall)
			if err != nil {
				t.Fatal(err)
			}
			if loads != 1 { // control: Options.Policy loads at every verification
				t.Errorf("%s: Options.Policy ran the loader %d times", tc.name, loads)
			}
			a, _ := canonjson.Canonical(r.Value())
			b, _ := canonjson.Canonical(rp.Value())
			if string(a) != string(b) {
				t.Errorf("%s: LoadedPolicy result\n%s\nOptions.Policy result\n%s", tc.name, a, b)
			}
		}
		loads = 0
		if _, err := attest.Verify(w, once); err != nil || loads != 0 {
			t.Errorf("%s: a LoadedPolicy was loaded again (%d) %v", tc.name, loads, err)
		}
	}
}
