// Package profile validates MCP-RES reliability-profile evaluations
// (mcp-res.profile-evaluation/0.2.0, MCP-RES §13, MCPRES-PROFILE-001/002)
// against a set of reliability-profile manifests
// (mcp-res.reliability-profile-manifest/0.2.0), and carries the field-claim
// rules of MCP-RES §14 (MCPRES-FIELD-001).
//
// # Profile sets
//
// A Set is every directory entry whose name ends in ".json" (dot-files
// included, names compared case-sensitively), in UTF-16 code-unit order of
// names, each read with the strict reader of REFERENCE §1.5 (LoadDir). An
// entry that is not a regular file — a symbolic link, a directory, a
// device — is unreadable, not skipped, so the set fails closed. mcpres
// ships no manifests: the upstream set is data the caller provides
// (mcpres validate --profiles DIR or $MCPRES_PROFILES).
//
// Validator.Manifests checks a set as REFERENCE §5.6 step 2 requires: every
// file readable and valid against the manifest schema, EXPERIMENTAL exactly
// when experimentalProvenance is present, no check id twice within a
// manifest (required ∪ conditional ∪ experimental), and no manifest id
// twice in the set. The first problem, in file order, is reported.
//
// # Validation
//
// Validator.Validate applies REFERENCE §5.6 in order and reports the first
// failing check:
//
//  1. the schema of REFERENCE §3.5.1 → MCP_RES_PROFILE_SCHEMA_INVALID;
//  2. the profile set → MCP_RES_PROFILE_MANIFEST_INVALID;
//  3. a manifest with profile.id and profile.version →
//     MCP_RES_PROFILE_MANIFEST_UNKNOWN;
//  4. profile.protocolRevision listed by the manifest →
//     MCP_RES_PROFILE_REVISION_UNSUPPORTED (revisions are never equivalent);
//  5. profile.manifestSha256 = canonical digest of the manifest →
//     MCP_RES_PROFILE_MANIFEST_DIGEST_MISMATCH;
//  6. evaluationSha256 = canonical digest of the evaluation without it →
//     MCP_RES_PROFILE_DIGEST_MISMATCH;
//  7. coverage: unique check ids equal to the claimed ids, every claimed id
//     registered by the manifest, and a FULL_PROFILE claim equal to the
//     required plus revision-applicable conditional checks (so never an
//     experimental one) → MCP_RES_PROFILE_COVERAGE_MISMATCH;
//  8. a REMOTE_HTTP target needs remoteOptIn, an allowlistSha256 and a
//     reviewedTargetSha256 equal to targetSha256 →
//     MCP_RES_PROFILE_REMOTE_TARGET_UNREVIEWED;
//  9. per check, the positive and then the negative control: reached
//     (MCP_RES_PROFILE_PROPERTY_NOT_REACHED), observed outcome equal to the
//     expected one (MCP_RES_PROFILE_OUTCOME_MISMATCH for the positive,
//     MCP_RES_PROFILE_NEGATIVE_CONTROL_MISSING for the negative control),
//     observed reason code equal to the expected one
//     (MCP_RES_PROFILE_WRONG_REASON);
//  10. required cleanup observed → MCP_RES_PROFILE_CLEANUP_INCOMPLETE;
//  11. result equal to the derived result, INCOMPLETE when any observation
//     comes from a TEST_FIXTURE and PASS otherwise →
//     MCP_RES_PROFILE_TEST_FIXTURE_OVERCLAIM (a fixture with PASS) or
//     MCP_RES_PROFILE_RESULT_MISMATCH. A FAIL result therefore never
//     validates.
//
// A valid result reports the derived result, the manifest's status
// (profileStatus) and the claim scope. EXPERIMENTAL manifests (the
// future-identity profiles of MCP-RES §16) are validated like any other
// and reported with profileStatus EXPERIMENTAL, never as released
// behaviour.
//
// # Field evidence (MCP-RES §14)
//
// REFERENCE defines no separate field-evidence document: the upstream field
// corpus (mcp-res.field-corpus/0.2.0) is an unvalidated record. A field
// claim is a profile evaluation, whose required members name every element
// MCPRES-FIELD-001 lists: OS (environment.platform), runtime
// (environment.runtimeName, runtimeVersion), language
// (subject.implementationLanguage), subject digest (subject.artifactSha256),
// protocol revision and profile digest (profile.protocolRevision,
// manifestSha256), transport (scope.targetKind), bounded check set
// (scope.claimedCheckIds), clean path (each check's positive), expected
// failure and wrong-reason control (each check's reason-bound
// negativeControl), interruption behaviour (the profiles' interruption
// checks), cleanup and evaluation integrity (evaluationSha256). An
// evaluation has exactly one environment object, so a CI matrix is retained
// leg by leg as one evaluation per leg; an attempt to collapse legs into one
// document (an environment array, a list of platforms, an extra member) is
// MCP_RES_PROFILE_SCHEMA_INVALID.
//
// Like every kind package it depends on package validator, never the
// reverse: it uses the core validator's schemas (New takes a
// *validator.Validator), its Result is a validator.Result (built with
// validator.Fail and validator.Pass, its mode members in Extra) with typed
// copies of those members, and it aborts with *validator.InputError. Package
// document dispatches to it by schemaVersion.
package profile
