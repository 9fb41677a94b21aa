package validator_test

import (
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// documentOf validates through the one document-kind switch (package
// document) with val, as mcpres validate does, for the tests of the v0.1
// and migration-result kinds kept beside the core's.
func documentOf(val *validator.Validator) func(*canonjson.Value) (validator.Result, error) {
	d := document.New(val)
	return func(doc *canonjson.Value) (validator.Result, error) {
		r, err := d.Validate(doc, document.Options{})
		return r.Result, err
	}
}
