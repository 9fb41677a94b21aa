package migration_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/validatortest"
)

var update = flag.Bool("update", false, "rewrite the migration corpus in testdata")

// The v0.1 fixtures the corpus is built from (validator/v01's testdata).
var (
	v01ExampleFile       = filepath.Join("..", "v01", "testdata", "example.json")
	v01FixtureBackedFile = filepath.Join("..", "v01", "testdata", "fixture-backed.json")
)

// v1Abort marks a row that must abort with an *InputError.
const v1Abort = validator.CodeInputInvalid

// The shared fault-table helpers (validatortest), under the short names
// the tables use.
type mutator = validatortest.Mutator

const otherSha = validatortest.OtherSha

var (
	lit              = validatortest.Lit
	set              = validatortest.Set
	remove           = validatortest.Remove
	all              = validatortest.All
	checkResult      = validatortest.CheckResult
	checkInputError  = validatortest.CheckInputError
	reread           = validatortest.Reread
	pretty           = validatortest.Pretty
	upstreamV01Valid = validatortest.UpstreamV01Valid
	one              = func(code string) []string { return []string{code} }
)

func syncFile(t *testing.T, path string, want []byte) {
	t.Helper()
	validatortest.SyncFile(t, path, want, *update, "./validator/migration")
}

func upstreamV01Dir(t testing.TB) string {
	t.Helper()
	return validatortest.UpstreamDir(t, "../..", "v0.1.0")
}

// documentOf validates through the one document-kind switch (package
// document) with val, as mcpres validate does.
func documentOf(val *validator.Validator) func(*canonjson.Value) (validator.Result, error) {
	d := document.New(val)
	return func(doc *canonjson.Value) (validator.Result, error) {
		r, err := d.Validate(doc, document.Options{})
		return r.Result, err
	}
}

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

// fuzzSeeds adds committed documents (compact, so that the fuzzer mutates
// structure rather than indentation) and the upstream v0.1 vectors when
// ../shared is present.
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
