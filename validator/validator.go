package validator

import (
	"fmt"
	"sync"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// A Validator validates MCP-RES documents. It loads its embedded schemas on
// first use (nothing happens at package init, so commands that never
// validate pay nothing). A Validator is safe for concurrent use; create one
// and reuse it.
//
// The validators of the other document kinds (validator/v01,
// validator/migration, validator/official, validator/profile,
// validator/oauth) take a *Validator and use its schemas, so one compiled
// set serves them all; package document chooses between them.
type Validator struct {
	once    sync.Once
	schemas *schema.Set
	loadErr error
	max     int
}

// New returns a Validator.
func New() *Validator { return &Validator{} }

// Options configure a Validator made by [NewWith].
type Options struct {
	// MaxSchemaErrors, when ≥ 1, is the most schema errors a result lists
	// (schema.Set.ValidateMax: the first ones evaluation meets, in
	// document order), so that an invalid document costs memory bounded by
	// the limit, not by its number of errors. Validity is unchanged; only
	// the list is shorter. A service that validates untrusted documents
	// (the log's admission, package tlog/admit) sets it; `mcpres validate`
	// does not.
	MaxSchemaErrors int
}

// NewWith returns a Validator configured by o.
func NewWith(o Options) *Validator { return &Validator{max: o.MaxSchemaErrors} }

// Schemas returns the compiled embedded schema set, loading it on first
// use. It is the one lazy schema loader of the module.
func (v *Validator) Schemas() *schema.Set {
	v.once.Do(func() { v.schemas, v.loadErr = schema.Load() })
	if v.loadErr != nil {
		// The schemas are embedded and tested; failing to load them is a bug.
		panic(fmt.Sprintf("validator: embedded schemas do not load: %v", v.loadErr))
	}
	return v.schemas
}

// SchemaErrors checks doc against the named embedded schema and returns
// every violation in document order (nil when doc is valid), or the first
// Options.MaxSchemaErrors of them.
func (v *Validator) SchemaErrors(name string, doc *canonjson.Value) []schema.Error {
	errs := v.Schemas().ValidateMax(name, doc, v.max)
	if len(errs) == 0 {
		return nil
	}
	return errs
}
