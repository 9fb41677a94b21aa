package attest_test

import (
	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// openPolicy is trustpolicy.Open of doc, or nil (no policy) for nil.
func openPolicy(doc *canonjson.Value, val *validator.Validator) *attest.LoadedPolicy {
	if doc == nil {
		return nil
	}
	return trustpolicy.Open(doc, trustpolicy.OpenOptions{Validator: val})
}
