// Package official validates MCP-RES official conformance attachments
// (mcp-res.official-conformance-attachment/0.2.0, MCP-RES §12,
// MCPRES-OFFICIAL-001) and builds them from the JSON output of the official
// MCP conformance tool (@modelcontextprotocol/conformance).
//
// # Validation
//
// Validator.Validate applies REFERENCE §5.5 in order and reports the first
// failing check:
//
//  1. the schema of REFERENCE §3.4 → MCP_RES_OFFICIAL_ATTACHMENT_SCHEMA_INVALID
//     (with every schema error); officialCertificationClaim must be false and
//     officialResultPreserved true (schema constants);
//  2. protocolRevision ≠ requirementSet.revision →
//     MCP_RES_OFFICIAL_REQUIREMENT_REVISION_MISMATCH;
//  3. legs[mode] ≠ EXECUTED → MCP_RES_OFFICIAL_LEG_NOT_EXECUTED;
//  4. inventories: check references ("<scenarioId>:<checkId>") unique;
//     executed, wireSchema, warnings, skipped and untestable equal to the
//     sorted references of the matching checks; every reference declared;
//     pending equal to the sorted declared references that were not executed
//     → MCP_RES_OFFICIAL_INVENTORY_MISMATCH;
//  5. expectedFailureBaseline.sha256 = sha256(canonical entries) → same code;
//  6. per check, baselineExpected = (reference in the baseline and outcome
//     FAILURE or WARNING) → MCP_RES_OFFICIAL_EXPECTED_FAILURE_REWRITTEN;
//  7. staleExpectedFailures = the baseline entries, in baseline order, whose
//     reference is not a FAILURE or WARNING check →
//     MCP_RES_OFFICIAL_STALE_BASELINE_MISMATCH;
//  8. only when Options.OriginalResult is given: SHA-256 and length of its
//     bytes = originalResultArtifact.sha256 and bytes →
//     MCP_RES_OFFICIAL_RESULT_DIGEST_MISMATCH;
//  9. explicitMapping false with a non-null mcpResEvidenceClass →
//     MCP_RES_OFFICIAL_MAPPING_OVERCLAIM;
//  10. importStatus = the derived status (DeriveStatus) →
//     MCP_RES_OFFICIAL_STATUS_MISMATCH.
//
// "Sorted" is ascending by UTF-16 code units (canonjson.CompareKeys) and
// every inventory comparison is exact and order-sensitive. A valid result
// reports the attachment's importStatus and officialCertificationClaim
// false. A valid attachment may record an INVALID official run: validity
// means the record is honest, not that the subject passed.
//
// What is not checked: that declared references name real official checks,
// the content of notScored beyond its shape, scenarios against the checks'
// scenario ids, and an explicitMapping true claim (MCP-RES v0.2 defines no
// mapping; upstream accepts any class with explicitMapping true, and so does
// this package).
//
// # Importing
//
// Import turns the tool's output (a JSON array of check objects) plus an
// ImportConfig (mcpres.official-import-config/v1) into an attachment,
// exactly as REFERENCE §8.1 describes: every outcome is copied verbatim,
// failures and warnings keep their official outcome, a baseline can only mark
// FAILURE or WARNING checks as expected, and importStatus is derived, never
// configured. Malformed output is MCP_RES_OFFICIAL_INPUT_INVALID; an emitted
// check that the configuration does not declare is
// MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE.
//
// Like every kind package it depends on package validator, never the
// reverse: it uses the core validator's schemas (New takes a
// *validator.Validator), its Result is a validator.Result (built with
// validator.Fail and validator.Pass, its mode members in Extra) with typed
// copies of those members, and it aborts with *validator.InputError. Package
// document dispatches to it by schemaVersion.
package official
