package validator

import "github.com/mcpres/mcpres/internal/canonjson"

// Schema names used by the validators.
const (
	schemaBundle = "conformance-bundle"
)

// A Validator validates MCP-RES documents. It compiles its embedded schemas
// on first use; create one per process (or per goroutine pool) and reuse it.
// A Validator is safe for concurrent use.
type Validator struct {
}

// New returns a Validator.
func New() *Validator { return &Validator{} }

func (v *Validator) schemaErrors(name string, doc *canonjson.Value) []SchemaError {
	return nil // TODO: wire validator/schema
}

// Document validates doc according to its kind, detected from the root
// schemaVersion (REFERENCE §5.0): conformance bundles v0.2.0 (and any
// document of unknown kind) with the core v0.2 rules.
func (v *Validator) Document(doc *canonjson.Value) (Result, error) {
	switch sv := doc.Get("schemaVersion"); {
	case sv.Is(canonjson.String) && sv.Str == "mcp-res.conformance-bundle/0.1.0":
		return Result{}, &InputError{Reason: "v0.1.0 bundles are not supported yet"}
	}
	return v.Bundle(doc)
}
