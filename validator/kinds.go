package validator

import (
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator/oauth"
	"github.com/mcpres/mcpres/validator/official"
	"github.com/mcpres/mcpres/validator/profile"
	"github.com/mcpres/mcpres/validator/schema"
)

// DocumentOptions carries what some document kinds need beyond the
// document itself.
type DocumentOptions struct {
	// Profiles is the reliability-profile manifest set for profile and
	// OAuth boundary evaluations (mcpres validate --profiles DIR or
	// $MCPRES_PROFILES; see profile.LoadDir). Nil means none is configured:
	// a schema-valid evaluation then aborts with MCP_RES_INPUT_INVALID.
	Profiles *profile.Set
	// OriginalResult is the raw official conformance tool output
	// (--original-result FILE; see official.ReadOriginalResult). Official
	// attachments are checked against it (REFERENCE §5.5 step 8); nil
	// skips that step.
	OriginalResult *official.OriginalResult
}

// DocumentWith validates doc like Document, giving the document kinds of
// REFERENCE §5.5–§5.7 the inputs in opts.
func (v *Validator) DocumentWith(doc *canonjson.Value, opts DocumentOptions) (Result, error) {
	if r, ok, err := v.documentKind(doc, opts); ok {
		return r, err
	}
	return v.Document(doc)
}

// documentKind validates official conformance attachments, profile
// evaluations and OAuth boundary evaluations (REFERENCE §5.5–§5.7),
// detected by their root schemaVersion; ok is false for every other
// document. Their mode-specific result members go to Result.Extra, and
// their aborts become *InputError.
func (v *Validator) documentKind(doc *canonjson.Value, opts DocumentOptions) (r Result, ok bool, err error) {
	sv := doc.Get("schemaVersion")
	if !sv.Is(canonjson.String) {
		return Result{}, false, nil
	}
	switch sv.Str {
	case official.SchemaVersion:
		or, err := official.New(v.schemaSet()).Validate(doc, official.Options{OriginalResult: opts.OriginalResult})
		if err != nil {
			return Result{}, true, kindInputError(err)
		}
		return kindResult(or.Valid, or.Diagnostics, or.SchemaErrors, or.Detail, or.Extra()), true, nil
	case profile.SchemaVersion:
		pr, err := profile.New(v.schemaSet()).Validate(doc, opts.Profiles)
		if err != nil {
			return Result{}, true, kindInputError(err)
		}
		return kindResult(pr.Valid, pr.Diagnostics, pr.SchemaErrors, pr.Detail, pr.Extra()), true, nil
	case oauth.SchemaVersion:
		ar, err := oauth.New(v.schemaSet()).Validate(doc, opts.Profiles)
		if err != nil {
			return Result{}, true, kindInputError(err)
		}
		return kindResult(ar.Valid, ar.Diagnostics, ar.SchemaErrors, ar.Detail, ar.Extra()), true, nil
	}
	return Result{}, false, nil
}

// schemaSet returns the compiled embedded schemas, loading them on first
// use (the same once as SchemaErrors).
func (v *Validator) schemaSet() *schema.Set {
	v.once.Do(func() { v.schemas, v.loadErr = schema.Load() })
	if v.loadErr != nil {
		panic(fmt.Sprintf("validator: embedded schemas do not load: %v", v.loadErr))
	}
	return v.schemas
}

func kindResult(valid bool, diags []string, errs []schema.Error, detail string, extra []canonjson.Member) Result {
	out := Result{Valid: valid, Diagnostics: diags, SchemaErrors: make([]SchemaError, len(errs)), Detail: detail, Extra: extra}
	for i, e := range errs {
		out.SchemaErrors[i] = SchemaError(e)
	}
	return out
}

// kindInputError returns the kind packages' aborts (all *InputError, the
// shared outcome type) unchanged, and wraps anything else.
func kindInputError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	return &InputError{Reason: err.Error()}
}
