package v01_test

import (
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/v01"
	"github.com/mcpres/mcpres/validator/validatortest"
)

// FuzzBundleV01: no panic; errors only *InputError; one diagnostic when
// invalid; deterministic.
func FuzzBundleV01(f *testing.F) {
	validatortest.FuzzSeeds(f, "../..", "v0.1.0", v01ExampleFile, v01FixtureBackedFile)
	for _, s := range []string{
		`{}`, `[]`, `{"evidence":{"operations":[null]}}`, `{"evidence":{"operations":{}}}`,
		`{"evidence":{"operations":[{"kind":"CLEAN_CONTROL"},{"kind":"NEGATIVE_CONTROL","outcome":"EXPECTED_FAILURE","faultId":"f"}],"recoveryPolicies":[null]}}`,
		`{"evidence":{"operations":[{"kind":"CLEAN_CONTROL"},{"kind":"NEGATIVE_CONTROL","outcome":"EXPECTED_FAILURE","faultId":"f"}],"cleanup":{"complete":true},"subject":{"name":"a","version":"1","artifact":{"sha256":"x"}},"note":"QXV0aG9yaXphdGlvbjogQmVhcmVyIGFiYzEyMw=="},"integrity":{"complete":true,"publication":"MANIFEST_LAST","artifacts":[{"path":"/x"}]}}`,
	} {
		f.Add([]byte(s))
	}
	val := validator.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		r, err := v01.New(val).Validate(doc)
		validatortest.CheckFuzzResult(t, r, err, validator.CodeSchemaInvalid)
		r2, err2 := v01.New(val).Validate(doc)
		if (err == nil) != (err2 == nil) || !slices.Equal(r.Diagnostics, r2.Diagnostics) || len(r.SchemaErrors) != len(r2.SchemaErrors) {
			t.Fatalf("not deterministic: %v %v / %v %v", r.Diagnostics, err, r2.Diagnostics, err2)
		}
	})
}
