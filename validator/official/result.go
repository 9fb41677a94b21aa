package official

import (
	"github.com/mcpres/mcpres/validator"
)

// Diagnostic codes of the official attachment validator and importer
// (REFERENCE §5.5, §5.8).
const (
	CodeSchemaInvalid               = "MCP_RES_OFFICIAL_ATTACHMENT_SCHEMA_INVALID"
	CodeRequirementRevisionMismatch = "MCP_RES_OFFICIAL_REQUIREMENT_REVISION_MISMATCH"
	CodeLegNotExecuted              = "MCP_RES_OFFICIAL_LEG_NOT_EXECUTED"
	CodeInventoryMismatch           = "MCP_RES_OFFICIAL_INVENTORY_MISMATCH"
	CodeExpectedFailureRewritten    = "MCP_RES_OFFICIAL_EXPECTED_FAILURE_REWRITTEN"
	CodeStaleBaselineMismatch       = "MCP_RES_OFFICIAL_STALE_BASELINE_MISMATCH"
	CodeResultDigestMismatch        = "MCP_RES_OFFICIAL_RESULT_DIGEST_MISMATCH"
	CodeMappingOverclaim            = "MCP_RES_OFFICIAL_MAPPING_OVERCLAIM"
	CodeStatusMismatch              = "MCP_RES_OFFICIAL_STATUS_MISMATCH"

	// Importer only.
	CodeImportInputInvalid = "MCP_RES_OFFICIAL_INPUT_INVALID"
	CodeCoverageIncomplete = "MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE"
)

// Schema names (validator/schema) and the schemaVersion of the import
// configuration, an mcpres extension owned here. The attachment's own
// schemaVersion is bundle.SchemaVersionOfficialAttachment.
const (
	SchemaName                = "official-conformance-attachment"
	ImportConfigSchemaName    = "mcpres-official-import-config-v1"
	SchemaVersionImportConfig = "mcpres.official-import-config/v1"
)

// Import statuses (REFERENCE §8.1).
const (
	StatusComplete   = "COMPLETE"
	StatusIncomplete = "INCOMPLETE"
	StatusInvalid    = "INVALID"
)

// Result is the outcome of validating one attachment: the
// validator.Result every document kind gives (Valid iff Diagnostics is
// empty; an invalid result has exactly one code; Detail explains the
// failing check for people) whose Extra, when valid, holds importStatus
// and officialCertificationClaim (always false), the members that follow
// schemaErrors in the result object (REFERENCE §5.5). ImportStatus is the
// attachment's importStatus, set only when Valid.
type Result struct {
	validator.Result
	ImportStatus string
}

// An ImportError is a refusal of Import: Code is
// MCP_RES_OFFICIAL_INPUT_INVALID or MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE.
type ImportError struct {
	Code   string
	Reason string
}

func (e *ImportError) Error() string { return e.Code + ": " + e.Reason }
