// Package oauth validates MCP-RES authorization-boundary evaluations
// (mcp-res.oauth-boundary-evaluation/0.2.0, MCP-RES §15,
// MCPRES-OAUTH-001..003) against the mcp-res/oauth-boundary/v1 manifest of
// a profile set (package profile).
//
// Validator.Validate applies REFERENCE §5.7 in order and reports the first
// failing check:
//
//  1. the schema of REFERENCE §3.6 → MCP_RES_OAUTH_SCHEMA_INVALID;
//  2. the whole profile set checked as package profile does (any invalid
//     manifest fails, REFERENCE §10 row 26), then the manifest with id
//     mcp-res/oauth-boundary/v1 present with status PROVISIONAL →
//     MCP_RES_OAUTH_MANIFEST_INVALID;
//  3. profile.protocolRevision listed by it → MCP_RES_OAUTH_REVISION_UNSUPPORTED;
//  4. profile.manifestSha256 = its canonical digest →
//     MCP_RES_OAUTH_MANIFEST_DIGEST_MISMATCH;
//  5. evaluationSha256 = canonical digest of the evaluation without it →
//     MCP_RES_OAUTH_DIGEST_MISMATCH;
//  6. unique case ids equal to the required plus revision-applicable
//     conditional checks (experimental checks never count) →
//     MCP_RES_OAUTH_COVERAGE_MISMATCH;
//  7. a loopback-only fixture that contacted zero real authorization
//     providers and made zero external network requests →
//     MCP_RES_OAUTH_EXTERNAL_PROVIDER_CONTACT;
//  8. synthetic credentials only → MCP_RES_OAUTH_NON_SYNTHETIC_CREDENTIAL;
//  9. per case: (a) the expected reason codes are the property-specific
//     ones, Reason(id, "ACCEPTED") for the positive and Reason(id,
//     "REJECTED") for the negative → MCP_RES_OAUTH_WRONG_REASON; (b) the
//     positive and then the negative are reached
//     (MCP_RES_OAUTH_PROPERTY_NOT_REACHED), observed as expected
//     (MCP_RES_OAUTH_OUTCOME_MISMATCH) and for the expected reason
//     (MCP_RES_OAUTH_WRONG_REASON); (c) the wrong-reason mutant is reached,
//     was rejected by the early syntax guard
//     (MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION, not the property-specific
//     rejection) and expects MCP_RES_OAUTH_WRONG_REASON →
//     MCP_RES_OAUTH_WRONG_REASON_CONTROL_MISSING. Rejection at an earlier
//     syntax guard therefore never counts as covering a property;
//  10. no token material persisted and no credential material in the
//     evidence → MCP_RES_OAUTH_SECRET_PERSISTED;
//  11. authorization errors sanitized → MCP_RES_OAUTH_UNSANITIZED_ERROR;
//  12. both listeners closed → MCP_RES_OAUTH_CLEANUP_INCOMPLETE;
//  13. result equal to the derived result, INCOMPLETE when any case's
//     evidence comes from a TEST_FIXTURE and PASS otherwise →
//     MCP_RES_OAUTH_TEST_FIXTURE_OVERCLAIM (a fixture with PASS) or
//     MCP_RES_OAUTH_RESULT_MISMATCH.
//
// A valid result reports the derived result, securityCertificationClaim
// false and realAuthorizationProvidersContacted 0: a valid evaluation is
// reliability evidence about a synthetic, loopback-only fixture, never a
// security certification. The flow object is only shaped by the schema.
//
// The future-identity profiles of MCP-RES §16 (oauth-client-credentials,
// enterprise-managed-authorization, dpop, token-exchange) are EXPERIMENTAL
// manifests: they are evaluated with package profile, reported with
// profileStatus EXPERIMENTAL, and never accepted here, where only the
// PROVISIONAL mcp-res/oauth-boundary/v1 is scored.
//
// Like every kind package it depends on package validator, never the
// reverse: it uses the core validator's schemas (New takes a
// *validator.Validator), its Result is a validator.Result (built with
// validator.Fail and validator.Pass, its mode members in Extra) with typed
// copies of those members, and it aborts with *validator.InputError. Package
// document dispatches to it by schemaVersion.
package oauth
