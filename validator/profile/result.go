package profile

import (
	"github.com/mcpres/mcpres/validator"
)

// Diagnostic codes of the profile evaluation validator (REFERENCE §5.6,
// §5.8).
const (
	CodeSchemaInvalid          = "MCP_RES_PROFILE_SCHEMA_INVALID"
	CodeManifestInvalid        = "MCP_RES_PROFILE_MANIFEST_INVALID"
	CodeManifestUnknown        = "MCP_RES_PROFILE_MANIFEST_UNKNOWN"
	CodeRevisionUnsupported    = "MCP_RES_PROFILE_REVISION_UNSUPPORTED"
	CodeManifestDigestMismatch = "MCP_RES_PROFILE_MANIFEST_DIGEST_MISMATCH"
	CodeDigestMismatch         = "MCP_RES_PROFILE_DIGEST_MISMATCH"
	CodeCoverageMismatch       = "MCP_RES_PROFILE_COVERAGE_MISMATCH"
	CodeRemoteTargetUnreviewed = "MCP_RES_PROFILE_REMOTE_TARGET_UNREVIEWED"
	CodePropertyNotReached     = "MCP_RES_PROFILE_PROPERTY_NOT_REACHED"
	CodeOutcomeMismatch        = "MCP_RES_PROFILE_OUTCOME_MISMATCH"
	CodeNegativeControlMissing = "MCP_RES_PROFILE_NEGATIVE_CONTROL_MISSING"
	CodeWrongReason            = "MCP_RES_PROFILE_WRONG_REASON"
	CodeCleanupIncomplete      = "MCP_RES_PROFILE_CLEANUP_INCOMPLETE"
	CodeTestFixtureOverclaim   = "MCP_RES_PROFILE_TEST_FIXTURE_OVERCLAIM"
	CodeResultMismatch         = "MCP_RES_PROFILE_RESULT_MISMATCH"
)

// Schema names (validator/schema), manifest statuses and results. The
// schemaVersions are bundle.SchemaVersionProfileEvaluation and
// bundle.SchemaVersionProfileManifest.
const (
	SchemaName         = "profile-evaluation"
	ManifestSchemaName = "reliability-profile-manifest"
	StatusProvisional  = "PROVISIONAL"
	StatusExperimental = "EXPERIMENTAL"
	ResultPass         = "PASS"
	ResultIncomplete   = "INCOMPLETE"
)

// Result is the outcome of validating one evaluation: the
// validator.Result every document kind gives (Valid iff Diagnostics is
// empty; an invalid result has exactly one code; Detail explains the
// failing check for people) whose Extra, when valid, holds result,
// profileStatus and claimScope, the members that follow schemaErrors in
// the result object (REFERENCE §5.6). When Valid, Derived is the derived
// result (PASS or INCOMPLETE), ProfileStatus the manifest's status and
// ClaimScope the scope's claim.
type Result struct {
	validator.Result
	Derived       string
	ProfileStatus string
	ClaimScope    string
}
