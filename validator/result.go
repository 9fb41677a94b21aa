package validator

import (
	"errors"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// Diagnostic codes of the core v0.2 validator (REFERENCE §5.8).
const (
	CodeInputInvalid                = "MCP_RES_INPUT_INVALID"
	CodeSelfAssertedClaim           = "MCP_RES_SELF_ASSERTED_CLAIM"
	CodeVacuousNegativeControl      = "MCP_RES_VACUOUS_NEGATIVE_CONTROL"
	CodeNegativePrerequisiteMissing = "MCP_RES_NEGATIVE_PREREQUISITE_MISSING"
	CodePropertyNotReached          = "MCP_RES_PROPERTY_NOT_REACHED"
	CodeWrongStopReason             = "MCP_RES_WRONG_STOP_REASON"
	CodeNegativeMutantSurvived      = "MCP_RES_NEGATIVE_MUTANT_SURVIVED"
	CodeSchemaInvalid               = "MCP_RES_SCHEMA_INVALID"
	CodeScenarioFingerprintMismatch = "MCP_RES_SCENARIO_FINGERPRINT_MISMATCH"
	CodeWallClockReversal           = "MCP_RES_WALL_CLOCK_REVERSAL"
	CodeCausalMismatch              = "MCP_RES_CAUSAL_MISMATCH"
	CodeCrossRunSubstitution        = "MCP_RES_CROSS_RUN_SUBSTITUTION"
	CodeRetryLimitExceeded          = "MCP_RES_RETRY_LIMIT_EXCEEDED"
	CodeOperationParentCycle        = "MCP_RES_OPERATION_PARENT_CYCLE"
	CodeObservationCausalMismatch   = "MCP_RES_OBSERVATION_CAUSAL_MISMATCH"
	CodeMissingObservationArtifact  = "MCP_RES_MISSING_OBSERVATION_ARTIFACT"
	CodeObservationHashMismatch     = "MCP_RES_OBSERVATION_HASH_MISMATCH"
	CodeRequiredSurfaceUnobserved   = "MCP_RES_REQUIRED_SURFACE_UNOBSERVED"
	CodeTrialSummaryInconsistent    = "MCP_RES_TRIAL_SUMMARY_INCONSISTENT"
	CodeFalseStabilityClaim         = "MCP_RES_FALSE_STABILITY_CLAIM"
	CodeEvidenceClassPromotion      = "MCP_RES_EVIDENCE_CLASS_PROMOTION"
	CodeCompletionUnobserved        = "MCP_RES_COMPLETION_UNOBSERVED"
	CodeDigestMismatch              = "MCP_RES_DIGEST_MISMATCH"
	CodeExecutionDigestMismatch     = "MCP_RES_EXECUTION_DIGEST_MISMATCH"
)

// Result is the outcome of validating one document (REFERENCE §5.0), the
// one result convention of every document kind: the kind packages
// (validator/v01, validator/migration, validator/official,
// validator/profile, validator/oauth) and attest build it with [Pass] and
// [Fail], and a kind with mode members embeds it in its own Result, with
// Extra set and typed copies of those members. Valid is true iff
// Diagnostics is empty. Detail is a human-readable explanation of the
// first failing check (not part of the upstream result object; printed by
// the text renderer and in JSON as "detail").
type Result struct {
	Valid        bool
	Diagnostics  []string
	SchemaErrors []schema.Error
	Detail       string
	// Extra holds the mode-specific members that follow schemaErrors in
	// the result object (REFERENCE §5.5–§5.7: importStatus, result,
	// profileStatus, …), in order; nil for the other kinds and for every
	// invalid result.
	Extra []canonjson.Member
}

// Pass is the result of a document that passes every check.
func Pass() Result {
	return Result{Valid: true, Diagnostics: []string{}, SchemaErrors: []schema.Error{}}
}

// PassWith is [Pass] with the mode-specific members extra (Extra) of a
// kind whose valid result object carries them.
func PassWith(extra ...canonjson.Member) Result {
	r := Pass()
	r.Extra = extra
	return r
}

// Fail is the result of the first failing check: exactly one diagnostic
// code, no schema errors, and detail for people.
func Fail(code, detail string) Result {
	return Result{Diagnostics: []string{code}, SchemaErrors: []schema.Error{}, Detail: detail}
}

// Value renders the upstream-compatible result object
// {"valid","diagnostics","schemaErrors"} followed by Extra, in that order
// (REFERENCE §5.0). Every document kind renders its result with it.
func (r Result) Value() *canonjson.Value {
	d := make([]*canonjson.Value, len(r.Diagnostics))
	for i, c := range r.Diagnostics {
		d[i] = canonjson.NewString(c)
	}
	e := make([]*canonjson.Value, len(r.SchemaErrors))
	for i, se := range r.SchemaErrors {
		e[i] = canonjson.NewObject(
			canonjson.Member{Key: "instancePath", Value: canonjson.NewString(se.InstancePath)},
			canonjson.Member{Key: "keyword", Value: canonjson.NewString(se.Keyword)},
			canonjson.Member{Key: "message", Value: canonjson.NewString(se.Message)},
		)
	}
	return canonjson.NewObject(append([]canonjson.Member{
		{Key: "valid", Value: canonjson.NewBool(r.Valid)},
		{Key: "diagnostics", Value: canonjson.NewArray(d...)},
		{Key: "schemaErrors", Value: canonjson.NewArray(e...)},
	}, r.Extra...)...)
}

// An InputError aborts validation: the input cannot be evaluated at all.
// It is reported as MCP_RES_INPUT_INVALID with exit status 2. Every
// document kind aborts with it.
type InputError struct {
	Reason string
}

func (e *InputError) Error() string { return CodeInputInvalid + ": " + e.Reason }

// InputReason is why an input could not be evaluated: the Reason of an
// *InputError err wraps, else err's message (a read error).
func InputReason(err error) string {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.Reason
	}
	return err.Error()
}

// InputInvalidValue is the result object of an input that could not be
// evaluated ([InputReason]): {"valid": false, "diagnostics":
// ["MCP_RES_INPUT_INVALID"], "message": "MCP_RES_INPUT_INVALID: REASON"},
// as `mcpres validate --format json` prints it and a log service answers
// it (HTTP 400).
func InputInvalidValue(err error) *canonjson.Value {
	return canonjson.NewObject(
		canonjson.Member{Key: "valid", Value: canonjson.NewBool(false)},
		canonjson.Member{Key: "diagnostics", Value: canonjson.NewArray(canonjson.NewString(CodeInputInvalid))},
		canonjson.Member{Key: "message", Value: canonjson.NewString(CodeInputInvalid + ": " + InputReason(err))},
	)
}
