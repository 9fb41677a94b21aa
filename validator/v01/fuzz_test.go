package v01_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/v01"
)

// checkFuzzResult asserts the result properties every validator keeps:
// an abort is an *InputError with a zero Result; otherwise valid iff no
// diagnostic, exactly one diagnostic when invalid, and schema errors only
// with the schema code.
func checkFuzzResult(t *testing.T, r validator.Result, err error, schemaCode string) {
	t.Helper()
	if err != nil {
		var ie *validator.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("abort is %T, not *InputError: %v", err, err)
		}
		if r.Valid || r.Diagnostics != nil || r.SchemaErrors != nil {
			t.Fatalf("abort with a non-zero result %+v", r)
		}
		return
	}
	if r.Valid != (len(r.Diagnostics) == 0) {
		t.Fatalf("valid=%t with diagnostics %v", r.Valid, r.Diagnostics)
	}
	if !r.Valid && len(r.Diagnostics) != 1 {
		t.Fatalf("%d diagnostics %v, want exactly one", len(r.Diagnostics), r.Diagnostics)
	}
	if (len(r.SchemaErrors) > 0) != slices.Equal(r.Diagnostics, []string{schemaCode}) {
		t.Fatalf("schema errors %v with diagnostics %v", r.SchemaErrors, r.Diagnostics)
	}
}

// fuzzSeeds adds the committed v0.1 examples (compact, so that the fuzzer
// mutates structure rather than indentation), the upstream v0.1 vectors
// when ../shared is present, and small shapes that reach the aborts.
func fuzzSeeds(f *testing.F, files ...string) {
	for _, file := range files {
		_, v, err := canonjson.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		b, err := canonjson.Compact(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := filepath.Join("..", "..", "..", "shared", "conformance", "upstream", "v0.1.0")
	for _, group := range []string{"valid", "invalid"} {
		ents, _ := os.ReadDir(filepath.Join(dir, group))
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(dir, group, e.Name())); err == nil {
				f.Add(b)
			}
		}
	}
}

// FuzzBundleV01: no panic; errors only *InputError; one diagnostic when
// invalid; deterministic.
func FuzzBundleV01(f *testing.F) {
	fuzzSeeds(f, v01ExampleFile, v01FixtureBackedFile)
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
		checkFuzzResult(t, r, err, validator.CodeSchemaInvalid)
		r2, err2 := v01.New(val).Validate(doc)
		if (err == nil) != (err2 == nil) || !slices.Equal(r.Diagnostics, r2.Diagnostics) || len(r.SchemaErrors) != len(r2.SchemaErrors) {
			t.Fatalf("not deterministic: %v %v / %v %v", r.Diagnostics, err, r2.Diagnostics, err2)
		}
	})
}
