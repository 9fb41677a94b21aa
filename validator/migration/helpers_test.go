package migration_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
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
	reread           = validatortest.Reread
	pretty           = validatortest.Pretty
	upstreamV01Valid = validatortest.UpstreamV01Valid
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
