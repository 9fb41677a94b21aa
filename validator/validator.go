package validator

import (
	"fmt"
	"sync"

	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// Schema names of the embedded schemas (validator/schema/schemas).
const (
	SchemaBundle         = "conformance-bundle"
	SchemaAttestedBundle = "attested-conformance-bundle"
	SchemaStatement      = "in-toto-statement"
	SchemaTrustPolicy    = "trust-policy"
)

const schemaBundle = SchemaBundle

// A Validator validates MCP-RES documents. It loads its embedded schemas on
// first use (nothing happens at package init, so commands that never
// validate pay nothing). A Validator is safe for concurrent use; create one
// and reuse it.
type Validator struct {
	once    sync.Once
	schemas *schema.Set
	loadErr error
}

// New returns a Validator.
func New() *Validator { return &Validator{} }

// SchemaErrors checks doc against the named embedded schema and returns
// every violation in document order (empty when doc is valid).
func (v *Validator) SchemaErrors(name string, doc *canonjson.Value) []SchemaError {
	v.once.Do(func() { v.schemas, v.loadErr = schema.Load() })
	if v.loadErr != nil {
		// The schemas are embedded and tested; failing to load them is a bug.
		panic(fmt.Sprintf("validator: embedded schemas do not load: %v", v.loadErr))
	}
	errs := v.schemas.Validate(name, doc)
	if len(errs) == 0 {
		return nil
	}
	out := make([]SchemaError, len(errs))
	for i, e := range errs {
		out[i] = SchemaError{InstancePath: e.InstancePath, Keyword: e.Keyword, Message: e.Message}
	}
	return out
}

func (v *Validator) schemaErrors(name string, doc *canonjson.Value) []SchemaError {
	return v.SchemaErrors(name, doc)
}

// Document validates doc according to its kind, detected from the root
// schemaVersion (REFERENCE §5.0): v0.1.0 conformance bundles with the
// frozen v0.1 rules (BundleV01), migration results with MigrationResult,
// and conformance bundles v0.2.0 (and any document of unknown kind) with
// the core v0.2 rules.
func (v *Validator) Document(doc *canonjson.Value) (Result, error) {
	if r, ok, err := v.documentKind(doc, DocumentOptions{}); ok {
		return r, err
	}
	switch sv := doc.Get("schemaVersion"); {
	case sv.Is(canonjson.String) && sv.Str == SchemaVersionV01Bundle:
		return v.BundleV01(doc)
	case sv.Is(canonjson.String) && sv.Str == SchemaVersionMigrationResult:
		return v.MigrationResult(doc)
	}
	return v.Bundle(doc)
}
