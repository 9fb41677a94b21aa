// Package outcome holds what every MCP-RES validator reports the same way:
// the upstream result object (REFERENCE §5.0) and the abort that becomes
// MCP_RES_INPUT_INVALID. It is a leaf, so that package validator and the
// kind-specific packages it dispatches to (official, profile, oauth) share
// it without an import cycle.
package outcome

import (
	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// CodeInputInvalid is the diagnostic of an input that cannot be evaluated.
const CodeInputInvalid = "MCP_RES_INPUT_INVALID"

// Object renders {"valid","diagnostics","schemaErrors"} followed by the
// mode-specific extra members, in that order (REFERENCE §5.0).
func Object(valid bool, diags []string, errs []schema.Error, extra []canonjson.Member) *canonjson.Value {
	d := make([]*canonjson.Value, len(diags))
	for i, c := range diags {
		d[i] = canonjson.NewString(c)
	}
	e := make([]*canonjson.Value, len(errs))
	for i, se := range errs {
		e[i] = canonjson.NewObject(
			canonjson.Member{Key: "instancePath", Value: canonjson.NewString(se.InstancePath)},
			canonjson.Member{Key: "keyword", Value: canonjson.NewString(se.Keyword)},
			canonjson.Member{Key: "message", Value: canonjson.NewString(se.Message)},
		)
	}
	return canonjson.NewObject(append([]canonjson.Member{
		{Key: "valid", Value: canonjson.NewBool(valid)},
		{Key: "diagnostics", Value: canonjson.NewArray(d...)},
		{Key: "schemaErrors", Value: canonjson.NewArray(e...)},
	}, extra...)...)
}

// An InputError aborts validation: the input cannot be evaluated at all.
// It is reported as MCP_RES_INPUT_INVALID with exit status 2.
type InputError struct {
	Reason string
}

func (e *InputError) Error() string { return CodeInputInvalid + ": " + e.Reason }
