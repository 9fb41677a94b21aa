package v01_test

import (
	"flag"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/validatortest"
)

var update = flag.Bool("update", false, "rewrite testdata/example.json and testdata/fixture-backed.json (sealed)")

// The shared fault-table helpers (validatortest), under the short names
// the tables use.
type mutator = validatortest.Mutator

const otherSha = validatortest.OtherSha

var (
	lit         = validatortest.Lit
	at          = validatortest.At
	put         = validatortest.Put
	set         = validatortest.Set
	remove      = validatortest.Remove
	appendTo    = validatortest.AppendTo
	copyTo      = validatortest.CopyTo
	all         = validatortest.All
	pretty      = validatortest.Pretty
	loadCatalog = validatortest.LoadCatalog
)

func syncFile(t *testing.T, path string, want []byte) {
	t.Helper()
	validatortest.SyncFile(t, path, want, *update, "./validator/v01")
}

func upstreamDir(t testing.TB, version string) string {
	t.Helper()
	return validatortest.UpstreamDir(t, "../..", version)
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
