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
