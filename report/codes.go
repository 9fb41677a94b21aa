package report

import "strings"

// explanation says, in mcpres's own words, what a diagnostic's check
// means and which part of the document it looks at. The wording follows
// REFERENCE §5 and the MCP-RES v0.2.0 sections named in each entry.
type explanation struct {
	Meaning string
	Where   string
}

// explanations covers every code of the core v0.2 validator and the
// attestation validator (REFERENCE §5.8), and the reader's INPUT_INVALID.
// TestEveryCodeExplained keeps it complete. Other families fall back to
// familyExplanation.
var explanations = map[string]explanation{
	"MCP_RES_INPUT_INVALID": {
		"The document could not be evaluated at all: it breaks a rule of the strict JSON reader (size, depth, duplicate keys, invalid UTF-8, non-integer numbers) or has a shape on which no check can run.",
		"the whole file"},
	"MCP_RES_SELF_ASSERTED_CLAIM": {
		"The evidence asserts its own success with producer booleans (such as actualRuntime or cleanupCompleted) instead of integrity-bound observations; MCP-RES v0.2 does not accept self-asserted claims (spec §3).",
		"evidence (any member named like a v0.1 self-assertion)"},
	"MCP_RES_VACUOUS_NEGATIVE_CONTROL": {
		"A negative control is missing or proves nothing: there is no NEGATIVE_CONTROL operation, it carries no negativeObservation, or the observed verdict differs from the expected one (spec §2).",
		"evidence.operations[kind=NEGATIVE_CONTROL].negativeObservation"},
	"MCP_RES_NEGATIVE_PREREQUISITE_MISSING": {
		"A negative control does not list the prerequisites it reached, so nothing shows the fault was exercised past its setup (spec §2).",
		"negativeObservation.prerequisitesReached"},
	"MCP_RES_PROPERTY_NOT_REACHED": {
		"A negative control does not show that the property under test was actually reached (propertyReached is not true), so its rejection may have happened for another reason (spec §2).",
		"negativeObservation.propertyReached"},
	"MCP_RES_WRONG_STOP_REASON": {
		"A negative control stopped, but not for the expected reason: the right verdict for the wrong reason is not evidence (spec §2).",
		"negativeObservation.expectedStopReason / observedStopReason"},
	"MCP_RES_NEGATIVE_MUTANT_SURVIVED": {
		"A negative control names a mutant that it did not kill, so the check is not shown to detect the fault it targets (spec §2).",
		"negativeObservation.mutantId / mutantKilled"},
	"MCP_RES_SCHEMA_INVALID": {
		"The bundle does not match the MCP-RES v0.2.0 JSON Schema; each schema error below names the failing member by its JSON Pointer.",
		"the members named by the schema errors"},
	"MCP_RES_SCENARIO_FINGERPRINT_MISMATCH": {
		"The scenario descriptor disagrees with the evidence it describes (standard, profile, protocol revision or subject identity), or the scenario fingerprint is not the digest of the descriptor (spec §4).",
		"evidence.scenario"},
	"MCP_RES_WALL_CLOCK_REVERSAL": {
		"The run finishes before it starts, or its monotonic duration is longer than the wall-clock interval it claims (spec §7).",
		"evidence.run.startedAt / finishedAt / monotonicDurationMs"},
	"MCP_RES_CAUSAL_MISMATCH": {
		"The operation graph or a statement mirror is inconsistent: a duplicate operation id, an operation outside the run, a parent, fault or recovery policy that does not exist, or a statement member that does not mirror the evidence (spec §7, §8).",
		"evidence.operations, or statement (mirrors)"},
	"MCP_RES_CROSS_RUN_SUBSTITUTION": {
		"An operation names a different run than the one the bundle records: evidence from another run was substituted (spec §7).",
		"evidence.operations[].runId"},
	"MCP_RES_RETRY_LIMIT_EXCEEDED": {
		"An operation's attempt number exceeds the retry limit of the recovery policy it claims, so recovery was not bounded (spec §7).",
		"evidence.operations[].attempt and scenario.descriptor.recoveryPolicies"},
	"MCP_RES_OPERATION_PARENT_CYCLE": {
		"The parent relation of the operations contains a cycle, so the operation graph is not a causal history (spec §7).",
		"evidence.operations[].parentOperationId"},
	"MCP_RES_OBSERVATION_CAUSAL_MISMATCH": {
		"An observation is not tied to this run: a duplicate id, another subject, an operation that does not exist, a time outside the run, or a negative control whose oracle evidence no VALIDATOR_CHECK of that operation carries (spec §3).",
		"evidence.observations"},
	"MCP_RES_MISSING_OBSERVATION_ARTIFACT": {
		"An observation or a negative control's oracle refers to an artifact that the integrity manifest does not list (spec §3).",
		"observations[].artifactRefs, negativeObservation.oracleEvidenceRef, integrity.artifacts"},
	"MCP_RES_OBSERVATION_HASH_MISMATCH": {
		"An observation's digest does not match its content, or no manifest entry it references carries that digest, length and observation media type (spec §3).",
		"evidence.observations[].observationSha256 and integrity.artifacts"},
	"MCP_RES_REQUIRED_SURFACE_UNOBSERVED": {
		"A required observation surface is uninstrumented, unknown or backed by no existing observation, or the coverage does not list each of the 14 surfaces exactly once (spec §5).",
		"evidence.coverage.surfaces"},
	"MCP_RES_TRIAL_SUMMARY_INCONSISTENT": {
		"The trial summary does not add up: counts, seeds, outcome hashes or duration statistics disagree with the number of completed trials or with its classification (spec §6).",
		"evidence.trialSummary"},
	"MCP_RES_FALSE_STABILITY_CLAIM": {
		"The trial summary claims REPEATED_STABLE without at least two trials, all successful, with a single outcome hash (spec §6).",
		"evidence.trialSummary.classification"},
	"MCP_RES_EVIDENCE_CLASS_PROMOTION": {
		"The claimed evidence class is not the one the passing integrity-bound observations derive; an under-claim fails like an over-claim (spec §3, REFERENCE §4.1).",
		"evidence.evidenceClassClaim, statement.evidenceClass"},
	"MCP_RES_COMPLETION_UNOBSERVED": {
		"The statement says PASS but there is no passing CLEANUP_CHECK and PRIVACY_SCAN observation (spec §3).",
		"statement.result and evidence.observations"},
	"MCP_RES_DIGEST_MISMATCH": {
		"The integrity manifest does not bind the bundle: a duplicate path, a wrong supporting-artifact digest, a wrong evidence or statement entry, or a bundle digest that does not recompute (spec §8).",
		"integrity"},
	"MCP_RES_EXECUTION_DIGEST_MISMATCH": {
		"The execution-instance digest does not recompute from the run's execution material (spec §4).",
		"statement.executionInstanceDigest"},

	"MCP_RES_ATTESTATION_SIGNATURE_MISSING": {
		"The authenticity record claims a signed level but carries no signature (or an envelope without signatures) (spec §10).",
		"authenticity.envelopes"},
	"MCP_RES_ATTESTATION_ALGORITHM_UNSUPPORTED": {
		"A signature uses an algorithm other than Ed25519, the only one MCP-RES v0.2.0 accepts (spec §10).",
		"authenticity.envelopes[].signatures[].algorithm"},
	"MCP_RES_ATTESTATION_SCHEMA_INVALID": {
		"The attested bundle, a signed statement or the trust policy does not match its schema (spec §10).",
		"the members named by the schema errors"},
	"MCP_RES_ATTESTED_EVIDENCE_INVALID": {
		"The signed bundle itself fails core validation: a valid signature over invalid evidence is invalid (MCPRES-AUTHN-001). The next code says which check failed.",
		"bundle"},
	"MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM": {
		"The claimed authenticity level is higher than what the envelopes and the trust policy let a verifier derive (or envelopes are present under UNSIGNED_INTEGRITY_ONLY) (spec §10).",
		"authenticity.claimedClassification"},
	"MCP_RES_TRUST_POLICY_EXPIRED": {
		"The trust policy is not in force at the evaluation time (before validFrom or after validUntil) (spec §10).",
		"the trust policy and the evaluation time"},
	"MCP_RES_ATTESTATION_DUPLICATE_SIGNER": {
		"An envelope carries more than one signature, or one key signed twice: a signer is counted once (spec §10).",
		"authenticity.envelopes[].signatures"},
	"MCP_RES_ATTESTATION_SIGNATURE_INVALID": {
		"A signature, key or payload does not decode or does not verify under the strict Ed25519 rules (REFERENCE §6.7).",
		"authenticity.envelopes[]"},
	"MCP_RES_ATTESTATION_IDENTITY_MISMATCH": {
		"A key id is not the digest of its public key, or the signed statement names another signer identity or key than the signature (spec §10).",
		"authenticity.envelopes[].signatures[] and the statement predicate"},
	"MCP_RES_ATTESTATION_BINDING_MISMATCH": {
		"The signed statement does not attest exactly this bundle: subject, bundle digest, scenario, execution digest, profile or validator differ (spec §10).",
		"the statement predicate and bundle"},
	"MCP_RES_ATTESTATION_KEY_REVOKED": {
		"The trust policy revokes a signing key for the signing or evaluation time (spec §10).",
		"the trust policy's revocations"},
	"MCP_RES_ATTESTATION_UNTRUSTED_SIGNER": {
		"The claimed level needs every signer trusted, but a key and identity pair is not trusted by the policy (or no policy was given) (spec §10).",
		"authenticity.claimedClassification and the trust policy"},
	"MCP_RES_TRANSPARENCY_REFERENCE_INVALID": {
		"A transparency reference's proof bytes do not match their digest, or the proof does not verify against a log the policy trusts (REFERENCE §6.10).",
		"statement predicate.transparencyReference"},
}

// familyExplanation is the fallback for codes of the other validators.
func familyExplanation(code string) explanation {
	for _, f := range []struct{ prefix, ref string }{
		{"MCP_RES_MIGRATION_", "a migration-result check (spec §11, REFERENCE §5.4 and §7)"},
		{"MCP_RES_OFFICIAL_", "an official conformance attachment check (spec §12, REFERENCE §5.5)"},
		{"MCP_RES_PROFILE_", "a reliability-profile evaluation check (spec §13, REFERENCE §5.6)"},
		{"MCP_RES_OAUTH_", "an authorization-boundary evaluation check (spec §15, REFERENCE §5.7)"},
	} {
		if strings.HasPrefix(code, f.prefix) {
			return explanation{"This is " + f.ref + "; the detail below says what failed.", "see the detail"}
		}
	}
	return explanation{"A v0.1 or other check of REFERENCE §5; the detail below says what failed.", "see the detail"}
}

func explain(code string) explanation {
	if e, ok := explanations[code]; ok {
		return e
	}
	return familyExplanation(code)
}
