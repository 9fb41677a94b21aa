package validator_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// Diagnostic codes of the core v0.2 validator, shortened for the tables.
const (
	cSelf       = validator.CodeSelfAssertedClaim
	cVacuous    = validator.CodeVacuousNegativeControl
	cPrereq     = validator.CodeNegativePrerequisiteMissing
	cProperty   = validator.CodePropertyNotReached
	cStop       = validator.CodeWrongStopReason
	cMutant     = validator.CodeNegativeMutantSurvived
	cSchema     = validator.CodeSchemaInvalid
	cScenario   = validator.CodeScenarioFingerprintMismatch
	cWallClock  = validator.CodeWallClockReversal
	cCausal     = validator.CodeCausalMismatch
	cCrossRun   = validator.CodeCrossRunSubstitution
	cRetry      = validator.CodeRetryLimitExceeded
	cCycle      = validator.CodeOperationParentCycle
	cObsCausal  = validator.CodeObservationCausalMismatch
	cMissing    = validator.CodeMissingObservationArtifact
	cHash       = validator.CodeObservationHashMismatch
	cSurface    = validator.CodeRequiredSurfaceUnobserved
	cTrials     = validator.CodeTrialSummaryInconsistent
	cStability  = validator.CodeFalseStabilityClaim
	cPromotion  = validator.CodeEvidenceClassPromotion
	cCompletion = validator.CodeCompletionUnobserved
	cDigest     = validator.CodeDigestMismatch
	cExecution  = validator.CodeExecutionDigestMismatch
)

// coreCodes is the core v0.2 registry of REFERENCE §5.8, in check order.
var coreCodes = []string{
	cSelf, cVacuous, cPrereq, cProperty, cStop, cMutant, cSchema, cScenario, cWallClock,
	cCausal, cCrossRun, cRetry, cCycle, cObsCausal, cMissing, cHash, cSurface, cTrials,
	cStability, cPromotion, cCompletion, cDigest, cExecution,
}

// A faultCase injects one fault into the sealed example bundle.
type faultCase struct {
	name   string
	mutate mutator
	// reseal is the stage to re-seal from after mutate (bundle.SealFrom's
	// doc says which), or noReseal when the fault is in the digests.
	reseal bundle.Stage
	want   []string // exact diagnostics; nil means valid
	// schema lists "instancePath keyword" of every schema error, for
	// MCP_RES_SCHEMA_INVALID rows.
	schema []string
	// detail is a substring of Result.Detail naming the sub-condition that
	// must fire (several sub-conditions share one code).
	detail string
	// notCode marks a wrong-reason control: a nearby fault that must NOT
	// produce this code (want says what it produces instead).
	notCode string
}

func one(code string) []string { return []string{code} }

// faultCases is the whole table, grouped by the check that fires.
func faultCases() []faultCase {
	return slices.Concat(
		selfAssertedCases(), negativeControlCases(), schemaCases(), scenarioCases(),
		wallClockCases(), dateTimeFormCases(), operationCases(), mirrorCases(), observationCases(),
		coverageCases(), trialSummaryCases(), classCases(), completionCases(),
		digestCases(), executionCases(),
	)
}

// TestCoreDiagnostics runs every row of the fault table through
// Validator.Bundle, and again after writing the bundle with Pretty and
// reading it back with the strict reader (the fault must survive a file),
// and through BundleWith with SchemaChecked.
func TestCoreDiagnostics(t *testing.T) {
	val := validator.New()
	for _, c := range faultCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.notCode != "" && slices.Contains(c.want, c.notCode) {
				t.Fatalf("table error: control for %s expects %s", c.notCode, c.want)
			}
			if slices.Equal(c.want, one(cSchema)) != (c.schema != nil) {
				t.Fatalf("table error: schema errors %q with diagnostics %q", c.schema, c.want)
			}
			v := build(t, c.mutate, c.reseal)
			r, err := val.Bundle(v)
			checkResult(t, r, err, c.want, c.schema, c.detail)

			r, err = val.Bundle(reread(t, v))
			checkResult(t, r, err, c.want, c.schema, c.detail)

			// A caller that checked the schema already gets the same
			// result without the schema step, which is really skipped.
			r, err = val.BundleWith(v, validator.BundleOptions{SchemaChecked: true})
			if c.schema == nil {
				checkResult(t, r, err, c.want, c.schema, c.detail)
			} else if err == nil && slices.Contains(r.Diagnostics, cSchema) {
				t.Errorf("BundleWith(SchemaChecked) evaluated the schema: %v", r.Diagnostics)
			}
		})
	}
}

// TestEveryCoreCodeHasCaseAndControl is the acceptance criterion of issue
// #2: every core diagnostic has a row that fires it and a wrong-reason
// control, a nearby fault that must give a different specific code. Rows
// whose near miss is valid are counted apart (they are not wrong-reason
// controls: nothing fires).
func TestEveryCoreCodeHasCaseAndControl(t *testing.T) {
	sealed, raw, controls, passes := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	count := func(fires map[string]int, want []string, notCode string) {
		switch {
		case len(want) == 1:
			fires[want[0]]++
			if notCode != "" {
				controls[notCode]++
			}
		case notCode != "":
			passes[notCode]++
		}
	}
	for _, c := range faultCases() {
		count(sealed, c.want, c.notCode)
	}
	for _, c := range precheckCases() {
		count(raw, c.want, c.notCode)
	}
	for _, code := range coreCodes {
		if sealed[code]+raw[code] == 0 {
			t.Errorf("%s: no row fires it", code)
		}
		if controls[code] == 0 {
			t.Errorf("%s: no wrong-reason control", code)
		}
		t.Logf("%-40s fires %3d sealed + %2d raw; wrong-reason controls %2d; valid near misses %2d",
			code, sealed[code], raw[code], controls[code], passes[code])
	}
}

func selfAssertedCases() []faultCase {
	schemaEvidence := []string{"/evidence additionalProperties"}
	return []faultCase{
		// JS and Python rules both.
		{name: "SELF/execution.actualRuntime (both rules, the upstream vector)",
			mutate: set(pEvidence+"/execution", `{"actualRuntime":true}`), reseal: fullSeal, want: one(cSelf), detail: "actualRuntime"},
		// JS rule: the key anywhere inside evidence, arrays included.
		{name: "SELF/JS protocolMessagesExchanged in an observation producer",
			mutate: set(pObsProc+"/producer/protocolMessagesExchanged", "true"), reseal: fullSeal, want: one(cSelf), detail: "protocolMessagesExchanged"},
		{name: "SELF/JS privacyScanPassed in a coverage entry",
			mutate: set(pSurfaces+"/0/privacyScanPassed", "false"), reseal: fullSeal, want: one(cSelf), detail: "privacyScanPassed"},
		{name: "SELF/JS cleanupCompleted in a negativeObservation, value false",
			mutate: set(pNegObs+"/cleanupCompleted", "false"), reseal: fullSeal, want: one(cSelf), detail: "cleanupCompleted"},
		{name: "SELF/JS actualRuntime with a null value",
			mutate: set(pRun+"/environment/actualRuntime", "null"), reseal: fullSeal, want: one(cSelf), detail: "actualRuntime"},
		{name: `SELF/JS quirk key x"actualRuntime`,
			mutate: set(pEvidence+`/x"actualRuntime`, "1"), reseal: fullSeal, want: one(cSelf), detail: "actualRuntime"},
		{name: `SELF/JS quirk key ending in "cleanupCompleted, nested`,
			mutate: set(pRun+`/environment/note: "cleanupCompleted`, `"x"`), reseal: fullSeal, want: one(cSelf), detail: "cleanupCompleted"},
		// Python rules.
		{name: "SELF/Python execution.installationExecuted",
			mutate: set(pEvidence+"/execution", `{"installationExecuted":false}`), reseal: fullSeal, want: one(cSelf), detail: "execution.installationExecuted"},
		{name: "SELF/Python execution.regressionExecuted",
			mutate: set(pEvidence+"/execution", `{"other":1,"regressionExecuted":true}`), reseal: fullSeal, want: one(cSelf), detail: "execution.regressionExecuted"},
		{name: "SELF/Python privacy.scanPassed",
			mutate: set(pEvidence+"/privacy", `{"scanPassed":true}`), reseal: fullSeal, want: one(cSelf), detail: "privacy.scanPassed"},
		{name: "SELF/Python cleanup.complete",
			mutate: set(pEvidence+"/cleanup", `{"complete":true}`), reseal: fullSeal, want: one(cSelf), detail: "cleanup.complete"},

		// Order: P1 precedes P2 and the schema.
		{name: "SELF/precedes a missing negative control",
			mutate: all(set(pEvidence+"/execution", `{"actualRuntime":true}`), set(pOpNeg+"/kind", `"FAULT_CASE"`)),
			reseal: fullSeal, want: one(cSelf), notCode: cVacuous},
		{name: "SELF/precedes a schema error",
			mutate: all(set(pEvidence+"/cleanup", `{"complete":true}`), set(pStatement+"/verifiedAt", `"2026-03-14T09:31:60.000Z"`)),
			reseal: fullSeal, want: one(cSelf), notCode: cSchema},

		// Controls: near misses are only unknown members (a schema error).
		{name: "SELF control/execution.fixtureUsed is not a self-asserted name",
			mutate: set(pEvidence+"/execution", `{"fixtureUsed":true}`), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/execution as an array is ignored",
			mutate: set(pEvidence+"/execution", `["installationExecuted","actualRuntime"]`), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/execution as a string is ignored",
			mutate: set(pEvidence+"/execution", `"installationExecuted"`), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/privacy without scanPassed",
			mutate: set(pEvidence+"/privacy", `{"passed":true}`), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/privacy as a string",
			mutate: set(pEvidence+"/privacy", `"scanPassed"`), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/cleanup.completed is not cleanup.complete",
			mutate: set(pEvidence+"/cleanup", `{"completed":true}`), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/installationExecuted outside execution",
			mutate: set(pSubject+"/installationExecuted", "true"), reseal: fullSeal, want: one(cSchema), schema: []string{"/evidence/subject additionalProperties"}, notCode: cSelf},
		{name: "SELF control/scanPassed outside privacy",
			mutate: set(pEvidence+"/scanPassed", "true"), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/key with a prefix but no quote",
			mutate: set(pEvidence+"/xactualRuntime", "true"), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: `SELF control/key actualRuntime" (quote after the name)`,
			mutate: set(pEvidence+`/actualRuntime"`, "true"), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/names are case-sensitive",
			mutate: set(pEvidence+"/ActualRuntime", "true"), reseal: fullSeal, want: one(cSchema), schema: schemaEvidence, notCode: cSelf},
		{name: "SELF control/a self-asserted key outside evidence",
			mutate: set(pStatement+"/actualRuntime", "true"), reseal: fullSeal, want: one(cSchema), schema: []string{"/statement additionalProperties"}, notCode: cSelf},
		{name: "SELF control/the name as a legacyAssertions value",
			mutate: set(pEvidence+"/legacyAssertions", `[{"name":"actualRuntime","value":true,"strength":"LEGACY_SELF_ASSERTED"}]`),
			reseal: fullSeal, notCode: cSelf},
		{name: "SELF control/the key text inside a string value",
			mutate: set(pTrials+"/stopRule", `"{\"actualRuntime\":true,\"x\\\"cleanupCompleted\":1}"`), reseal: fullSeal, notCode: cSelf},
	}
}

func negativeControlCases() []faultCase {
	secondControl := copyTo(pOps+"/2", pOpNeg)
	renameSecond := set(pOps+"/2/operationId", `"op-truncated-reply-2"`)
	return []faultCase{
		{name: "VACUOUS/no NEGATIVE_CONTROL operation",
			mutate: set(pOpNeg+"/kind", `"FAULT_CASE"`), reseal: fullSeal, want: one(cVacuous), detail: "no NEGATIVE_CONTROL"},
		{name: "VACUOUS/kind is case-sensitive",
			mutate: set(pOpNeg+"/kind", `"negative_control"`), reseal: fullSeal, want: one(cVacuous), detail: "no NEGATIVE_CONTROL"},
		{name: "VACUOUS/negativeObservation absent",
			mutate: remove(pNegObs), reseal: fullSeal, want: one(cVacuous), detail: "missing or empty"},
		{name: "VACUOUS/negativeObservation empty object",
			mutate: set(pNegObs, `{}`), reseal: fullSeal, want: one(cVacuous), detail: "missing or empty"},
		{name: "VACUOUS/verdict mismatch",
			mutate: set(pNegObs+"/observedVerdict", `"PASS"`), reseal: fullSeal, want: one(cVacuous), detail: "observedVerdict"},
		{name: "VACUOUS/verdict and stop reason mismatch: the verdict is checked first",
			mutate: all(set(pNegObs+"/observedVerdict", `"PASS"`), set(pNegObs+"/observedStopReason", `"TIMEOUT_EXPIRED"`)),
			reseal: fullSeal, want: one(cVacuous), detail: "observedVerdict", notCode: cStop},

		{name: "PREREQ/prerequisitesReached empty",
			mutate: set(pNegObs+"/prerequisitesReached", `[]`), reseal: fullSeal, want: one(cPrereq)},
		{name: "PREREQ/prerequisitesReached absent",
			mutate: remove(pNegObs + "/prerequisitesReached"), reseal: fullSeal, want: one(cPrereq)},
		{name: "PREREQ/prerequisitesReached a string (pre-schema, not a schema error)",
			mutate: set(pNegObs+"/prerequisitesReached", `"SESSION_INITIALIZED"`), reseal: fullSeal, want: one(cPrereq), notCode: cSchema},
		{name: "PREREQ/checked before reachability",
			mutate: all(set(pNegObs+"/prerequisitesReached", `[]`), set(pNegObs+"/propertyReached", "false")),
			reseal: fullSeal, want: one(cPrereq), notCode: cProperty},
		{name: "PREREQ control/duplicate prerequisites pass P3b and fail the schema",
			mutate: set(pNegObs+"/prerequisitesReached", `["TOOL_INVOKED","TOOL_INVOKED"]`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pNegObs + "/prerequisitesReached uniqueItems"}, notCode: cPrereq},

		{name: "PROPERTY control/first control's verdict before second control's reachability",
			mutate: all(secondControl, renameSecond, set(pNegObs+"/observedVerdict", `"PASS"`),
				set(pOps+"/2/negativeObservation/propertyReached", `"UNKNOWN"`)),
			reseal: fullSeal, want: one(cVacuous), notCode: cProperty},
		{name: "PROPERTY control/property not reached, negativeObservation emptied",
			mutate: set(pNegObs, `{}`), reseal: fullSeal, want: one(cVacuous), notCode: cProperty},
		{name: "PROPERTY/propertyReached false",
			mutate: set(pNegObs+"/propertyReached", "false"), reseal: fullSeal, want: one(cProperty)},
		{name: "PROPERTY/propertyReached UNKNOWN",
			mutate: set(pNegObs+"/propertyReached", `"UNKNOWN"`), reseal: fullSeal, want: one(cProperty)},
		{name: "PROPERTY/propertyReached absent",
			mutate: remove(pNegObs + "/propertyReached"), reseal: fullSeal, want: one(cProperty)},
		{name: `PROPERTY/propertyReached "true" is not true (pre-schema)`,
			mutate: set(pNegObs+"/propertyReached", `"true"`), reseal: fullSeal, want: one(cProperty), notCode: cSchema},
		{name: "PROPERTY/checked before the verdict",
			mutate: all(set(pNegObs+"/propertyReached", "false"), set(pNegObs+"/observedVerdict", `"PASS"`)),
			reseal: fullSeal, want: one(cProperty), notCode: cVacuous},
		{name: "PROPERTY/checked before the stop reason",
			mutate: all(set(pNegObs+"/propertyReached", "false"), set(pNegObs+"/observedStopReason", `"TIMEOUT_EXPIRED"`)),
			reseal: fullSeal, want: one(cProperty), notCode: cStop},

		{name: "STOP/observed stop reason differs",
			mutate: set(pNegObs+"/observedStopReason", `"TIMEOUT_EXPIRED"`), reseal: fullSeal, want: one(cStop)},
		{name: "STOP/expected stop reason differs",
			mutate: set(pNegObs+"/expectedStopReason", `"TRUNCATED_CONTENT_IGNORED"`), reseal: fullSeal, want: one(cStop)},
		{name: "STOP/checked before the mutant",
			mutate: all(set(pNegObs+"/observedStopReason", `"TIMEOUT_EXPIRED"`), set(pNegObs+"/mutantKilled", "false")),
			reseal: fullSeal, want: one(cStop), notCode: cMutant},

		{name: "MUTANT/mutantKilled false",
			mutate: set(pNegObs+"/mutantKilled", "false"), reseal: fullSeal, want: one(cMutant)},
		{name: "MUTANT/mutantKilled absent",
			mutate: remove(pNegObs + "/mutantKilled"), reseal: fullSeal, want: one(cMutant)},
		{name: "MUTANT control/no mutantId, mutantKilled false",
			mutate: all(remove(pNegObs+"/mutantId"), set(pNegObs+"/mutantKilled", "false")), reseal: fullSeal, notCode: cMutant},
		{name: "MUTANT control/no mutant at all",
			mutate: all(remove(pNegObs+"/mutantId"), remove(pNegObs+"/mutantKilled")), reseal: fullSeal, notCode: cMutant},
		{name: "MUTANT control/empty mutantId is falsy and fails the schema",
			mutate: all(set(pNegObs+"/mutantId", `""`), set(pNegObs+"/mutantKilled", "false")), reseal: fullSeal,
			want: one(cSchema), schema: []string{pNegObs + "/mutantId minLength"}, notCode: cMutant},

		// Several negative controls: each is checked through P3a–P3f in turn.
		{name: "STOP/second negative control has the wrong reason",
			mutate: all(secondControl, renameSecond, set(pOps+"/2/negativeObservation/observedStopReason", `"TIMEOUT_EXPIRED"`)),
			reseal: fullSeal, want: one(cStop)},
		{name: "STOP/first control's stop reason before second control's verdict",
			mutate: all(secondControl, renameSecond, set(pNegObs+"/observedStopReason", `"TIMEOUT_EXPIRED"`),
				set(pOps+"/2/negativeObservation/observedVerdict", `"PASS"`)),
			reseal: fullSeal, want: one(cStop), notCode: cVacuous},
		{name: "VACUOUS/first control's verdict before second control's prerequisites",
			mutate: all(secondControl, renameSecond, set(pNegObs+"/observedVerdict", `"PASS"`),
				set(pOps+"/2/negativeObservation/prerequisitesReached", `[]`)),
			reseal: fullSeal, want: one(cVacuous), notCode: cPrereq},
	}
}

func schemaCases() []faultCase {
	return []faultCase{
		{name: "SCHEMA/leap second in verifiedAt",
			mutate: set(pStatement+"/verifiedAt", `"2026-03-14T09:31:60.000Z"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{"/statement/verifiedAt format"}},
		{name: "SCHEMA/unknown evidence member",
			mutate: set(pEvidence+"/extra", "1"), reseal: fullSeal,
			want: one(cSchema), schema: []string{"/evidence additionalProperties"}},
		{name: "SCHEMA/missing run.environment",
			mutate: remove(pRun + "/environment"), reseal: fullSeal,
			want: one(cSchema), schema: []string{"/evidence/run required"}},
		{name: "SCHEMA/upper-case digest",
			mutate: set(pDescriptor+"/configurationProfileDigest", `"676FC67AD260D6018142651A59C2020512C4A4BAE513A59A9FA015ABD9A32A55"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pDescriptor + "/configurationProfileDigest pattern"}},
		{name: "SCHEMA/digest with a trailing LF",
			mutate: set(pDescriptor+"/configurationProfileDigest", `"676fc67ad260d6018142651a59c2020512c4a4bae513a59a9fa015abd9a32a55\n"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pDescriptor + "/configurationProfileDigest pattern"}},
		{name: "SCHEMA/attempt as a string",
			mutate: set(pOpClean+"/attempt", `"0"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pOpClean + "/attempt type"}},
		{name: "SCHEMA/boolean is not an integer",
			mutate: set(pRun+"/monotonicDurationMs", "true"), reseal: fullSeal,
			want: one(cSchema), schema: []string{pRun + "/monotonicDurationMs type"}},
		{name: "SCHEMA/unknown surface",
			mutate: set(pSurfaces+"/1/surface", `"NOT_A_SURFACE"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pSurfaces + "/1/surface enum"}},
		{name: "SCHEMA/subject name of 129 code points (non-BMP), in evidence and statement",
			mutate: set(pSubject+"/name", `"`+strings.Repeat("😀", 129)+`"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pSubject + "/name maxLength", "/statement/subjectName maxLength"}},
		{name: "SCHEMA control/subject name of 128 code points (256 UTF-16 units) is valid",
			mutate: set(pSubject+"/name", `"`+strings.Repeat("😀", 128)+`"`), reseal: fullSeal, notCode: cSchema},
	}
}

func scenarioCases() []faultCase {
	return []faultCase{
		{name: "SCENARIO/descriptor.profileId differs",
			mutate: set(pDescriptor+"/profileId", `"mcp-res/other-profile/v1"`), reseal: bundle.StageScenario,
			want: one(cScenario), detail: "profileId"},
		{name: "SCENARIO/evidence.profile.id differs",
			mutate: set(pEvidence+"/profile/id", `"mcp-res/other-profile/v1"`), reseal: fullSeal,
			want: one(cScenario), detail: "profileId"},
		{name: "SCENARIO/descriptor.profileVersion differs",
			mutate: set(pDescriptor+"/profileVersion", `"2.0.1"`), reseal: bundle.StageScenario,
			want: one(cScenario), detail: "profileVersion"},
		{name: "SCENARIO/descriptor.protocolRevision differs",
			mutate: set(pDescriptor+"/protocolRevision", `"2026-07-28"`), reseal: bundle.StageScenario,
			want: one(cScenario), detail: "protocolRevision"},
		{name: "SCENARIO/evidence.protocolRevision NOT_APPLICABLE",
			mutate: set(pEvidence+"/protocolRevision", `"NOT_APPLICABLE"`), reseal: fullSeal,
			want: one(cScenario), detail: "protocolRevision"},
		{name: "SCENARIO/descriptor.subjectIdentityDigest differs",
			mutate: set(pDescriptor+"/subjectIdentityDigest", otherSha), reseal: bundle.StageObservations,
			want: one(cScenario), detail: "subjectIdentityDigest"},
		{name: "SCENARIO/subject.identityDigest differs",
			mutate: set(pSubject+"/identityDigest", otherSha), reseal: bundle.StageObservations,
			want: one(cScenario), detail: "subjectIdentityDigest"},
		{name: "SCENARIO/fingerprint is not the descriptor's digest",
			mutate: set(pScenario+"/fingerprint", otherSha), reseal: bundle.StageEvidence,
			want: one(cScenario), detail: "scenario.fingerprint"},
		{name: "SCENARIO/descriptor changed, fingerprint stale",
			mutate: set(pDescriptor+"/operationClass", `"tools/list"`), reseal: bundle.StageEvidence,
			want: one(cScenario), detail: "scenario.fingerprint"},
		{name: "SCENARIO/descriptor seed changed, fingerprint stale",
			mutate: bump(pDescriptor+"/deterministicSeed", 1), reseal: bundle.StageEvidence,
			want: one(cScenario), detail: "scenario.fingerprint"},
		// descriptor.standardVersion and evidence.standardVersion are both
		// const "0.2.0": the first sub-condition of step a is unreachable
		// for schema-valid input.
		{name: "SCENARIO control/standardVersion mismatch is a schema error",
			mutate: set(pDescriptor+"/standardVersion", `"0.2.1"`), reseal: bundle.StageScenario,
			want: one(cSchema), schema: []string{pDescriptor + "/standardVersion const"}, notCode: cScenario},
		{name: "SCENARIO control/descriptor changed, fingerprint re-sealed",
			mutate: set(pDescriptor+"/operationClass", `"tools/list"`), reseal: bundle.StageScenario, notCode: cScenario},
		{name: "SCENARIO control/fault renamed, fingerprint re-sealed: the operation's fault no longer resolves",
			mutate: set(pDescriptor+"/faults/0/id", `"fault/renamed"`), reseal: bundle.StageScenario,
			want: one(cCausal), detail: "fault", notCode: cScenario},
		{name: "SCENARIO control/policy renamed, fingerprint re-sealed: the operation's policy no longer resolves",
			mutate: set(pDescriptor+"/recoveryPolicies/0/id", `"policy/renamed"`), reseal: bundle.StageScenario,
			want: one(cCausal), detail: "recovery policy", notCode: cScenario},
		{name: "SCENARIO control/statement.scenarioFingerprint differs",
			mutate: set(pStatement+"/scenarioFingerprint", otherSha), reseal: bundle.StageIntegrity,
			want: one(cCausal), detail: "scenarioFingerprint", notCode: cScenario},
		{name: "SCENARIO control/an observation names another subject",
			mutate: set(pObsFixture+"/subjectRef", otherSha), reseal: bundle.StageObservations,
			want: one(cObsCausal), detail: "another subject", notCode: cScenario},
	}
}

func wallClockCases() []faultCase {
	return []faultCase{
		{name: "WALL/finishedAt before startedAt",
			mutate: set(pRun+"/finishedAt", `"2026-03-14T09:29:59.999Z"`), reseal: fullSeal, want: one(cWallClock), detail: "precedes"},
		{name: "WALL/finishedAt before startedAt through its offset",
			mutate: set(pRun+"/finishedAt", `"2026-03-14T09:30:02.500+01:00"`), reseal: fullSeal, want: one(cWallClock), detail: "precedes"},
		{name: "WALL/1001 ms in a 1 s interval",
			mutate: oneSecondRun("2026-03-14T09:30:00.000Z", "2026-03-14T09:30:01.000Z", 1001), reseal: fullSeal,
			want: one(cWallClock), detail: "exceeds"},
		{name: "WALL control/1000 ms in a 1 s interval",
			mutate: oneSecondRun("2026-03-14T09:30:00.000Z", "2026-03-14T09:30:01.000Z", 1000), reseal: fullSeal, notCode: cWallClock},
		{name: "WALL/1000 ms in an interval 1 µs short (finish)",
			mutate: oneSecondRun("2026-03-14T09:30:00.000Z", "2026-03-14T09:30:00.999999Z", 1000), reseal: fullSeal,
			want: one(cWallClock), detail: "999999 µs"},
		{name: "WALL/1000 ms in an interval 1 µs short (start)",
			mutate: oneSecondRun("2026-03-14T09:30:00.000001Z", "2026-03-14T09:30:01Z", 1000), reseal: fullSeal,
			want: one(cWallClock), detail: "999999 µs"},
		{name: "WALL/sub-microsecond digits are truncated, not rounded up",
			mutate: oneSecondRun("2026-03-14T09:30:00.0000001Z", "2026-03-14T09:30:00.9999999Z", 1000), reseal: fullSeal,
			want: one(cWallClock), detail: "999999 µs"},
		{name: "WALL control/sub-microsecond digits are truncated, not compared",
			mutate: oneSecondRun("2026-03-14T09:30:00.0000009Z", "2026-03-14T09:30:01.0000001Z", 1000), reseal: fullSeal, notCode: cWallClock},
		{name: "WALL control/offsets give the same instants",
			mutate: all(set(pRun+"/startedAt", `"2026-03-14T10:30:00.000+01:00"`), set(pRun+"/finishedAt", `"2026-03-14T04:30:02.5-05:00"`)),
			reseal: fullSeal, notCode: cWallClock},
		{name: "WALL/monotonic 2501 ms in the example's 2.5 s",
			mutate: set(pRun+"/monotonicDurationMs", "2501"), reseal: fullSeal, want: one(cWallClock), detail: "exceeds"},
		{name: "WALL control/monotonic 2500 ms in the example's 2.5 s",
			mutate: set(pRun+"/monotonicDurationMs", "2500"), reseal: fullSeal, notCode: cWallClock},
		{name: "WALL control/monotonic duration shorter than an operation",
			mutate: set(pRun+"/monotonicDurationMs", "600"), reseal: fullSeal, want: one(cCausal), detail: "after the run", notCode: cWallClock},
		{name: "WALL control/years 0000 to 9999 with extreme offsets",
			mutate: all(set(pRun+"/startedAt", `"0000-01-01T00:00:00+23:59"`), set(pRun+"/finishedAt", `"9999-12-31T23:59:59.999999-23:59"`)),
			reseal: fullSeal, notCode: cWallClock},
		{name: "WALL control/a leap day crossed at midnight",
			mutate: all(set(pRun+"/startedAt", `"2024-02-28T23:59:59.000Z"`), set(pRun+"/finishedAt", `"2024-02-29T00:00:01.400Z"`)),
			reseal: fullSeal, notCode: cWallClock},
		{name: "WALL/a leap day crossed at midnight, 1 µs short",
			mutate: all(set(pRun+"/startedAt", `"2024-02-28T23:59:59.000Z"`), set(pRun+"/finishedAt", `"2024-02-29T00:00:01.399999Z"`)),
			reseal: fullSeal, want: one(cWallClock), detail: "2399999 µs"},
		{name: "WALL control/leap second in finishedAt is a schema error",
			mutate: set(pRun+"/finishedAt", `"2026-03-14T09:30:60.000Z"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pRun + "/finishedAt format"}, notCode: cWallClock},
	}
}

// dateTimeForms spell the example's run start, 2026-03-14T09:30:00Z, in
// every separator and offset form REFERENCE §1.7 accepts. Each must pass
// the schema and denote the same instant, so the exact 2400 ms interval
// to a finish 2.4 s later holds, and 1 µs less fails.
var dateTimeForms = []string{
	`2026-03-14t09:30:00z`, `2026-03-14 09:30:00Z`, `2026-03-14\t09:30:00Z`, `2026-03-14\n09:30:00Z`,
	`2026-03-14\u000b09:30:00Z`, `2026-03-14\f09:30:00Z`, `2026-03-14\r09:30:00Z`,
	"2026-03-14\u00a009:30:00Z", "2026-03-14\u168009:30:00Z", "2026-03-14\u200a09:30:00Z",
	"2026-03-14\u202809:30:00Z", "2026-03-14\u202909:30:00Z", "2026-03-14\u202f09:30:00Z",
	"2026-03-14\u205f09:30:00Z", "2026-03-14\u300009:30:00Z", "2026-03-14\ufeff09:30:00Z",
	`2026-03-14T10:30:00+01`, `2026-03-14T10:30:00+0100`, `2026-03-14T09:30:00-00:00`,
	`2026-03-14T04:00:00-05:30`, `2026-03-14T09:30:00.000000999Z`, `2026-03-15T09:29:00+23:59`,
}

func dateTimeFormCases() []faultCase {
	var rows []faultCase
	for _, form := range dateTimeForms {
		rows = append(rows,
			faultCase{name: "WALL control/startedAt spelled " + form,
				mutate: all(set(pRun+"/startedAt", `"`+form+`"`), set(pRun+"/finishedAt", `"2026-03-14T09:30:02.400Z"`)),
				reseal: fullSeal, notCode: cWallClock},
			faultCase{name: "WALL/startedAt spelled " + form + ", 1 µs short",
				mutate: all(set(pRun+"/startedAt", `"`+form+`"`), set(pRun+"/finishedAt", `"2026-03-14T09:30:02.399999Z"`)),
				reseal: fullSeal, want: one(cWallClock), detail: "2399999 µs"},
		)
	}
	return rows
}

func operationCases() []faultCase {
	return []faultCase{
		{name: "CAUSAL/duplicate operationId",
			mutate: set(pOpNeg+"/operationId", `"op-list-notes"`), reseal: fullSeal, want: one(cCausal), detail: "not unique"},
		{name: "CAUSAL/operation ends after the run",
			mutate: set(pOpClean+"/durationMs", "2401"), reseal: fullSeal, want: one(cCausal), detail: "after the run"},
		{name: "CAUSAL control/operation ends exactly with the run",
			mutate: set(pOpNeg+"/durationMs", "2000"), reseal: fullSeal, notCode: cCausal},
		{name: "CAUSAL/unknown parent",
			mutate: set(pOpNeg+"/parentOperationId", `"op-ghost"`), reseal: fullSeal, want: one(cCausal), detail: `parent "op-ghost"`},
		{name: "CAUSAL/unknown fault",
			mutate: set(pOpNeg+"/faultId", `"fault/ghost"`), reseal: fullSeal, want: one(cCausal), detail: `fault "fault/ghost"`},
		{name: "CAUSAL/unknown recovery policy",
			mutate: set(pOpNeg+"/recoveryPolicyId", `"policy/ghost"`), reseal: fullSeal, want: one(cCausal), detail: `recovery policy "policy/ghost"`},
		{name: "CAUSAL/empty faultId must resolve",
			mutate: set(pOpClean+"/faultId", `""`), reseal: fullSeal, want: one(cCausal), detail: `fault ""`},
		{name: "CAUSAL/empty recoveryPolicyId must resolve",
			mutate: set(pOpClean+"/recoveryPolicyId", `""`), reseal: fullSeal, want: one(cCausal), detail: `recovery policy ""`},
		{name: "CAUSAL/unknown fault before the same operation's retry limit",
			mutate: all(set(pOpNeg+"/faultId", `"fault/ghost"`), set(pOpNeg+"/attempt", "1")), reseal: fullSeal,
			want: one(cCausal), detail: "fault", notCode: cRetry},
		{name: "CAUSAL/unknown parent before the same operation's unknown fault",
			mutate: all(set(pOpNeg+"/parentOperationId", `"op-ghost"`), set(pOpNeg+"/faultId", `"fault/ghost"`)), reseal: fullSeal,
			want: one(cCausal), detail: "parent"},
		{name: "CAUSAL/unknown policy with a high attempt",
			mutate: all(set(pOpNeg+"/recoveryPolicyId", `"policy/ghost"`), set(pOpNeg+"/attempt", "5")), reseal: fullSeal,
			want: one(cCausal), detail: "recovery policy", notCode: cRetry},
		{name: "CAUSAL control/duplicate fault ids both resolve",
			mutate: appendTo(pDescriptor+"/faults", `{"id":"fault/truncated-content-array","version":"9.9.9","method":"OTHER","seed":1,"targetOperationClass":"tools/call","expectedEffect":"OTHER","reproducibilitySha256":`+otherSha+`}`),
			reseal: fullSeal, notCode: cCausal},

		{name: "CROSSRUN/operation names another run",
			mutate: set(pOpNeg+"/runId", `"run-other-0001"`), reseal: fullSeal, want: one(cCrossRun), detail: "run-other-0001"},
		{name: "CROSSRUN/run renamed, operations not",
			mutate: set(pRun+"/id", `"run-renamed-0001"`), reseal: fullSeal, want: one(cCrossRun), detail: idOpClean},
		{name: "CROSSRUN/checked before the operation's bounds",
			mutate: all(set(pOpNeg+"/runId", `"run-other-0001"`), set(pOpNeg+"/durationMs", "5000")), reseal: fullSeal,
			want: one(cCrossRun), notCode: cCausal},
		{name: "CROSSRUN/first pass before the references of the second",
			mutate: all(set(pOpClean+"/faultId", `"fault/ghost"`), set(pOpNeg+"/runId", `"run-other-0001"`)), reseal: fullSeal,
			want: one(cCrossRun), notCode: cCausal},
		{name: "CROSSRUN control/an earlier operation out of bounds",
			mutate: all(set(pOpClean+"/durationMs", "2401"), set(pOpNeg+"/runId", `"run-other-0001"`)), reseal: fullSeal,
			want: one(cCausal), detail: "after the run", notCode: cCrossRun},
		{name: "CROSSRUN control/a runId that is no runId fails the schema",
			mutate: set(pOpNeg+"/runId", `"run-1"`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pOpNeg + "/runId pattern"}, notCode: cCrossRun},
		{name: "CROSSRUN control/the run id with a trailing space fails the schema",
			mutate: set(pOpNeg+"/runId", `"`+runID+` "`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pOpNeg + "/runId pattern"}, notCode: cCrossRun},
		{name: "CROSSRUN control/run and operations renamed together",
			mutate: all(set(pRun+"/id", `"run-renamed-0001"`), set(pOpClean+"/runId", `"run-renamed-0001"`), set(pOpNeg+"/runId", `"run-renamed-0001"`)),
			reseal: fullSeal, notCode: cCrossRun},

		{name: "RETRY/attempt exceeds retryLimit",
			mutate: set(pOpNeg+"/attempt", "1"), reseal: fullSeal, want: one(cRetry), detail: "attempt 1 exceeds retryLimit 0"},
		{name: "RETRY control/attempt equals retryLimit",
			mutate: all(set(pDescriptor+"/recoveryPolicies/0/retryLimit", "1"), set(pOpNeg+"/attempt", "1")), reseal: fullSeal, notCode: cRetry},
		{name: "RETRY control/duplicate policy id: the last definition (limit 2) wins",
			mutate: all(appendTo(pDescriptor+"/recoveryPolicies", `{"id":"policy/no-retry-read","retryLimit":2,"maxBackoffMs":0,"timeLimitMs":2000,"cancellationBoundary":"request","sideEffectModel":"READ_ONLY","safetyMechanism":null}`),
				set(pOpNeg+"/attempt", "1")),
			reseal: fullSeal, notCode: cRetry},
		{name: "RETRY/duplicate policy id: the last definition (limit 0) wins",
			mutate: all(copyTo(pDescriptor+"/recoveryPolicies/1", pDescriptor+"/recoveryPolicies/0"),
				set(pDescriptor+"/recoveryPolicies/0/retryLimit", "2"), set(pOpNeg+"/attempt", "1")),
			reseal: fullSeal, want: one(cRetry), detail: "retryLimit 0"},
		{name: "RETRY control/an earlier operation's unknown parent",
			mutate: all(set(pOpClean+"/parentOperationId", `"op-ghost"`), set(pOpNeg+"/attempt", "1")), reseal: fullSeal,
			want: one(cCausal), detail: "parent", notCode: cRetry},
		{name: "RETRY/before a later operation's unknown fault",
			mutate: all(set(pOpClean+"/recoveryPolicyId", `"policy/no-retry-read"`), set(pOpClean+"/attempt", "1"), set(pOpNeg+"/faultId", `"fault/ghost"`)),
			reseal: fullSeal, want: one(cRetry), detail: idOpClean, notCode: cCausal},
		{name: "RETRY/before a parent cycle",
			mutate: all(set(pOpClean+"/parentOperationId", `"op-truncated-reply"`), set(pOpNeg+"/attempt", "1")), reseal: fullSeal,
			want: one(cRetry), notCode: cCycle},

		{name: "CYCLE/two operations",
			mutate: set(pOpClean+"/parentOperationId", `"op-truncated-reply"`), reseal: fullSeal, want: one(cCycle)},
		{name: "CYCLE/self-parent root",
			mutate: set(pOpClean+"/parentOperationId", `"op-list-notes"`), reseal: fullSeal, want: one(cCycle)},
		{name: "CYCLE/self-parent leaf",
			mutate: set(pOpNeg+"/parentOperationId", `"op-truncated-reply"`), reseal: fullSeal, want: one(cCycle)},
		{name: "CYCLE/fifty operations",
			mutate: addChain(50, `"op-extra-49"`), reseal: fullSeal, want: one(cCycle)},
		{name: "CYCLE/a tail leading into a cycle",
			mutate: addChain(50, `"op-extra-24"`), reseal: fullSeal, want: one(cCycle)},
		{name: "CYCLE control/a chain of fifty",
			mutate: addChain(50, `"op-list-notes"`), reseal: fullSeal, notCode: cCycle},
		{name: "CYCLE control/a star",
			mutate: all(appendTo(pOps, chainOp("op-a", `"op-list-notes"`, 700)), appendTo(pOps, chainOp("op-b", `"op-list-notes"`, 701)),
				appendTo(pOps, chainOp("op-c", `"op-a"`, 702)), appendTo(pOps, chainOp("op-d", `"op-a"`, 703))),
			reseal: fullSeal, notCode: cCycle},
		{name: "CYCLE control/unknown parent beside a cycle",
			mutate: all(set(pOpClean+"/parentOperationId", `"op-truncated-reply"`), appendTo(pOps, chainOp("op-a", `"op-ghost"`, 700))),
			reseal: fullSeal, want: one(cCausal), detail: `parent "op-ghost"`, notCode: cCycle},
	}
}

// mirrorCases are step k: each statement mirror of REFERENCE §3.1.9,
// changed and re-sealed from StageIntegrity.
func mirrorCases() []faultCase {
	rows := []faultCase{}
	for _, m := range []struct{ member, value string }{
		{"profileId", `"mcp-res/other-profile/v1"`},
		{"profileVersion", `"2.0.1"`},
		{"protocolRevision", `"2026-07-28"`},
		{"subjectType", `"MCP_CLIENT"`},
		{"subjectName", `"ledger-notes-server-2"`},
		{"subjectVersion", `"3.4.2"`},
		{"scenarioFingerprint", otherSha},
		{"stabilityClassification", `"FLAKY"`},
		{"evidenceSha256", otherSha},
		{"validator", `{"name":"mcpres","version":"0.1.1","sha256":"a3ed7bace20613c41dee744d845556fce21d513f1397887aa1af39c2b92088ce"}`},
	} {
		rows = append(rows, faultCase{name: "CAUSAL/statement." + m.member + " differs",
			mutate: set(pStatement+"/"+m.member, m.value), reseal: bundle.StageIntegrity,
			want: one(cCausal), detail: "statement." + m.member})
	}
	return append(rows, []faultCase{
		{name: "CAUSAL/statement.validator name differs",
			mutate: set(pStatement+"/validator/name", `"mcpres-fork"`), reseal: bundle.StageIntegrity, want: one(cCausal), detail: "statement.validator"},
		{name: "CAUSAL/statement.validator sha256 differs",
			mutate: set(pStatement+"/validator/sha256", otherSha), reseal: bundle.StageIntegrity, want: one(cCausal), detail: "statement.validator"},
		{name: "CAUSAL/evidence subject renamed after the statement was made",
			mutate: set(pSubject+"/name", `"ledger-notes-server-2"`), reseal: bundle.StageIntegrity, want: one(cCausal), detail: "statement.subjectName"},
		{name: "CAUSAL/evidence changed after the statement was made",
			mutate: set(pTrials+"/stopRule", `"another rule"`), reseal: bundle.StageIntegrity,
			want: one(cCausal), detail: "statement.evidenceSha256", notCode: cExecution},
		{name: "CAUSAL control/statement.validator members in another order",
			mutate: set(pStatement+"/validator", `{"sha256":"a3ed7bace20613c41dee744d845556fce21d513f1397887aa1af39c2b92088ce","version":"0.1.0","name":"mcpres"}`),
			reseal: bundle.StageIntegrity, notCode: cCausal},
		{name: "CAUSAL control/statement.evidenceClass is checked as a class",
			mutate: set(pStatement+"/evidenceClass", `"FIXTURE_VERIFIED"`), reseal: bundle.StageIntegrity,
			want: one(cPromotion), detail: "statement.evidenceClass", notCode: cCausal},
		{name: "CAUSAL control/statement.standardVersion is const in the schema",
			mutate: set(pStatement+"/standardVersion", `"0.2.1"`), reseal: bundle.StageIntegrity,
			want: one(cSchema), schema: []string{"/statement/standardVersion const"}, notCode: cCausal},
		{name: "CAUSAL control/statement.stabilityClassification claims REPEATED_STABLE",
			mutate: set(pStatement+"/stabilityClassification", `"REPEATED_STABLE"`), reseal: bundle.StageIntegrity,
			want: one(cCausal), detail: "stabilityClassification", notCode: cStability},
	}...)
}

func observationCases() []faultCase {
	return []faultCase{
		{name: "OBSCAUSAL/duplicate observation id",
			mutate: set(pObsWire+"/id", `"obs-proc-spawn"`), reseal: fullSeal, want: one(cObsCausal), detail: "not unique"},
		{name: "OBSCAUSAL/observation of another subject",
			mutate: set(pObsProc+"/subjectRef", otherSha), reseal: bundle.StageObservations, want: one(cObsCausal), detail: "another subject"},
		{name: "OBSCAUSAL/unknown operationRef",
			mutate: set(pObsProc+"/operationRef", `"op-ghost"`), reseal: fullSeal, want: one(cObsCausal), detail: `"op-ghost" does not exist`},
		{name: "OBSCAUSAL/observation ends after the run",
			mutate: set(pObsCleanup+"/durationMs", "751"), reseal: fullSeal, want: one(cObsCausal), detail: "after the run"},
		{name: "OBSCAUSAL control/observation ends exactly with the run",
			mutate: set(pObsCleanup+"/durationMs", "750"), reseal: fullSeal, notCode: cObsCausal},
		{name: "OBSCAUSAL/oracle bound to another operation",
			mutate: set(pObsOracle+"/operationRef", `"op-list-notes"`), reseal: fullSeal, want: one(cObsCausal), detail: "oracle evidence"},
		{name: "OBSCAUSAL/oracle bound to no operation",
			mutate: set(pObsOracle+"/operationRef", "null"), reseal: fullSeal, want: one(cObsCausal), detail: "oracle evidence"},
		{name: "OBSCAUSAL/oracle is not a VALIDATOR_CHECK",
			mutate: set(pObsOracle+"/type", `"FIXTURE_EXECUTION"`), reseal: fullSeal, want: one(cObsCausal), detail: "oracle evidence"},
		{name: "OBSCAUSAL/oracleEvidenceRef names the fixture's artifact",
			mutate: set(pNegObs+"/oracleEvidenceRef", `"observations/obs-fixture-truncation.json"`), reseal: fullSeal,
			want: one(cObsCausal), detail: "oracle evidence", notCode: cMissing},
		{name: "OBSCAUSAL/oracleEvidenceRef names a transcript in the manifest",
			mutate: set(pNegObs+"/oracleEvidenceRef", `"`+pathTranscript+`"`), reseal: fullSeal,
			want: one(cObsCausal), detail: "oracle evidence", notCode: cMissing},
		{name: "OBSCAUSAL/binding checked before artifacts",
			mutate: all(set(pObsProc+"/operationRef", `"op-ghost"`), appendTo(pObsProc+"/artifactRefs", `"observations/ghost.json"`)),
			reseal: fullSeal, want: one(cObsCausal), notCode: cMissing},
		{name: "OBSCAUSAL control/an empty operationRef fails the schema",
			mutate: set(pObsProc+"/operationRef", `""`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pObsProc + "/operationRef minLength"}, notCode: cObsCausal},
		{name: "OBSCAUSAL control/an upper-case subjectRef fails the schema",
			mutate: func(t *testing.T, v *canonjson.Value) {
				put(t, v, pObsProc+"/subjectRef", canonjson.NewString(strings.ToUpper(at(t, v, pObsProc+"/subjectRef").Str)))
			}, reseal: bundle.StageObservations,
			want: one(cSchema), schema: []string{pObsProc + "/subjectRef pattern"}, notCode: cObsCausal},
		{name: "OBSCAUSAL control/a failing oracle still binds",
			mutate: set(pObsOracle+"/outcome", `"FAIL"`), reseal: fullSeal, notCode: cObsCausal},

		{name: "MISSING/artifactRef not in the manifest",
			mutate: set(pObsWire+"/artifactRefs/1", `"transcripts/ghost.jsonl"`), reseal: fullSeal, want: one(cMissing), detail: "transcripts/ghost.jsonl"},
		{name: "MISSING/second artifactRef not in the manifest",
			mutate: appendTo(pObsProc+"/artifactRefs", `"observations/ghost.json"`), reseal: fullSeal, want: one(cMissing), detail: "observations/ghost.json"},
		{name: "MISSING/observation's own entry removed",
			mutate: removeEntry(pathProc), reseal: bundle.StageEvidence, want: one(cMissing), detail: pathProc},
		{name: "MISSING/oracleEvidenceRef not in the manifest",
			mutate: set(pNegObs+"/oracleEvidenceRef", `"observations/ghost.json"`), reseal: fullSeal, want: one(cMissing), detail: "oracle evidence observations/ghost.json"},
		{name: "MISSING/in array order before a later duplicate id",
			mutate: all(appendTo(pObsProc+"/artifactRefs", `"observations/ghost.json"`), set(pObsFixture+"/id", `"obs-proc-spawn"`)),
			reseal: fullSeal, want: one(cMissing), notCode: cObsCausal},
		{name: "MISSING control/referenced entry present with wrong bytes",
			mutate: bumpEntry(pathProc, 1), reseal: bundle.StageScenario, want: one(cHash), detail: "no referenced manifest entry", notCode: cMissing},

		{name: "HASH control/the observation's entry removed is a missing artifact",
			mutate: removeEntry(pathWire), reseal: bundle.StageEvidence, want: one(cMissing), detail: pathWire, notCode: cHash},
		{name: "HASH/wrong observationSha256",
			mutate: set(pObsProc+"/observationSha256", otherSha), reseal: bundle.StageScenario, want: one(cHash), detail: "observationSha256 is"},
		{name: "HASH/observation changed, digest stale",
			mutate: set(pObsProc+"/reasonCode", `"SERVER_PROCESS_EXITED_ONE"`), reseal: bundle.StageScenario, want: one(cHash), detail: "observationSha256 is"},
		{name: "HASH/manifest entry with wrong bytes",
			mutate: bumpEntry(pathProc, -1), reseal: bundle.StageScenario, want: one(cHash), detail: "no referenced manifest entry"},
		{name: "HASH/manifest entry with wrong mediaType",
			mutate: setEntry(pathProc, "mediaType", `"application/json"`), reseal: bundle.StageScenario, want: one(cHash), detail: "no referenced manifest entry"},
		{name: "HASH/manifest entry with wrong sha256",
			mutate: setEntry(pathProc, "sha256", otherSha), reseal: bundle.StageScenario, want: one(cHash), detail: "no referenced manifest entry"},
		{name: "HASH/duplicate path: the last entry is looked up, and it is wrong",
			mutate: all(duplicateEntry(pathProc), bumpEntry(pathProc, 1)), reseal: bundle.StageScenario,
			want: one(cHash), notCode: cDigest},
		{name: "HASH control/duplicate path: the last entry is right, the duplicate is reported later",
			mutate: all(duplicateEntry(pathProc), func(t *testing.T, v *canonjson.Value) {
				put(t, v, firstEntry(t, v, pathProc)+"/bytes", canonjson.NewInt(1))
			}),
			reseal: bundle.StageScenario, want: one(cDigest), detail: "twice", notCode: cHash},
		{name: "HASH control/observation changed and re-sealed",
			mutate: set(pObsProc+"/reasonCode", `"SERVER_PROCESS_EXITED_ONE"`), reseal: fullSeal, notCode: cHash},
		{name: "HASH control/a second referenced entry carries the digest",
			mutate: all(
				appendTo(pObsProc+"/artifactRefs", `"observations/obs-proc-spawn-copy.json"`),
				appendTo(pArtifacts, `{"path":"observations/obs-proc-spawn-copy.json","mediaType":"text/plain","bytes":1,"sha256":`+otherSha+`}`),
				sealFrom(fullSeal),
				func(t *testing.T, v *canonjson.Value) {
					copyEntry := entry(t, v, "observations/obs-proc-spawn-copy.json")
					for _, m := range []string{"mediaType", "bytes", "sha256"} {
						put(t, v, copyEntry+"/"+m, at(t, v, entry(t, v, pathProc)+"/"+m).Clone())
					}
				},
				bumpEntry(pathProc, 1)),
			reseal: bundle.StageEvidence, notCode: cHash},
		{name: "HASH control/a transcript's entry is never checked against a file",
			mutate: setEntry(pathTranscript, "sha256", otherSha), reseal: fullSeal, notCode: cHash},
	}
}

// firstEntry returns the pointer of the first manifest entry with path.
func firstEntry(t testing.TB, v *canonjson.Value, path string) string {
	t.Helper()
	for i, e := range at(t, v, pArtifacts).Items {
		if e.Get("path").Str == path {
			return pArtifacts + "/" + strconv.Itoa(i)
		}
	}
	t.Fatalf("no manifest entry %s", path)
	return ""
}

func coverageCases() []faultCase {
	return []faultCase{
		{name: "SURFACE/required UNINSTRUMENTED",
			mutate: setSurface("MCP_WIRE_MESSAGES", "status", `"UNINSTRUMENTED"`), reseal: fullSeal, want: one(cSurface), detail: "MCP_WIRE_MESSAGES is UNINSTRUMENTED"},
		{name: "SURFACE/required UNKNOWN",
			mutate: setSurface("CACHE_BEHAVIOR", "required", "true"), reseal: fullSeal, want: one(cSurface), detail: "CACHE_BEHAVIOR is UNKNOWN"},
		{name: "SURFACE/required INSTRUMENTED without refs",
			mutate: setSurface("MCP_WIRE_MESSAGES", "observationRefs", `[]`), reseal: fullSeal, want: one(cSurface), detail: "names no observation"},
		{name: "SURFACE/required OBSERVED_INDIRECTLY without refs",
			mutate: setSurface("FILESYSTEM_OUTPUTS", "observationRefs", `[]`), reseal: fullSeal, want: one(cSurface), detail: "names no observation"},
		{name: "SURFACE/required INSTRUMENTED with an unknown ref",
			mutate: setSurface("MCP_WIRE_MESSAGES", "observationRefs", `["obs-wire-exchange","obs-ghost"]`), reseal: fullSeal, want: one(cSurface), detail: "obs-ghost"},
		{name: "SURFACE/observation renamed, coverage not",
			mutate: set(pObsWire+"/id", `"obs-wire-renamed"`), reseal: fullSeal, want: one(cSurface), detail: "obs-wire-exchange"},
		{name: "SURFACE/duplicate surface (14 entries, 13 surfaces)",
			mutate: setSurface("RAW_HTTP_REQUESTS", "surface", `"MCP_WIRE_MESSAGES"`), reseal: fullSeal, want: one(cSurface), detail: "twice"},
		{name: "SURFACE/duplicate surface (15 entries)",
			mutate: copyTo(pSurfaces+"/14", pSurfaces+"/13"), reseal: fullSeal, want: one(cSurface), detail: "twice"},
		{name: "SURFACE control/duplicate refs fail the schema",
			mutate: setSurface("MCP_WIRE_MESSAGES", "observationRefs", `["obs-wire-exchange","obs-wire-exchange"]`), reseal: fullSeal,
			want: one(cSchema), schema: []string{pSurfaces + "/0/observationRefs uniqueItems"}, notCode: cSurface},
		{name: "SURFACE control/a referenced observation with a stale digest",
			mutate: set(pObsWire+"/reasonCode", `"JSONRPC_EXCHANGE_PARTIAL"`), reseal: bundle.StageScenario,
			want: one(cHash), detail: "obs-wire-exchange", notCode: cSurface},
		{name: "SURFACE control/13 surfaces fail the schema",
			mutate: remove(pSurfaces + "/13"), reseal: fullSeal,
			want: one(cSchema), schema: []string{pSurfaces + " minItems"}, notCode: cSurface},
		{name: "SURFACE control/required NOT_APPLICABLE passes",
			mutate: setSurface("RAW_HTTP_REQUESTS", "required", "true"), reseal: fullSeal, notCode: cSurface},
		{name: "SURFACE control/non-required UNINSTRUMENTED passes",
			mutate: all(setSurface("MCP_WIRE_MESSAGES", "required", "false"), setSurface("MCP_WIRE_MESSAGES", "status", `"UNINSTRUMENTED"`)), reseal: fullSeal, notCode: cSurface},
		{name: "SURFACE control/required BYPASSED_INTENTIONALLY refs are not resolved",
			mutate: setSurface("RETRIES", "observationRefs", `["obs-ghost"]`), reseal: fullSeal, notCode: cSurface},
		{name: "SURFACE control/non-required INSTRUMENTED refs are not resolved",
			mutate: all(setSurface("RAW_HTTP_REQUESTS", "status", `"INSTRUMENTED"`), setSurface("RAW_HTTP_REQUESTS", "observationRefs", `["obs-ghost"]`)), reseal: fullSeal, notCode: cSurface},
		{name: "SURFACE control/surfaces in another order",
			mutate: func(t *testing.T, v *canonjson.Value) { slices.Reverse(at(t, v, pSurfaces).Items) }, reseal: fullSeal, notCode: cSurface},
	}
}

// trials returns a mutator setting the trial summary's counts.
func trials(planned, done, success, failure, incomplete int, seeds, hashes, durations, class string) mutator {
	return all(
		set(pTrials+"/plannedTrials", strconv.Itoa(planned)),
		set(pTrials+"/completedTrials", strconv.Itoa(done)),
		set(pTrials+"/counts", `{"success":`+strconv.Itoa(success)+`,"failure":`+strconv.Itoa(failure)+`,"incomplete":`+strconv.Itoa(incomplete)+`}`),
		set(pTrials+"/seeds", seeds),
		set(pTrials+"/distinctOutcomeHashes", hashes),
		set(pTrials+"/durationMs", durations),
		set(pTrials+"/classification", `"`+class+`"`),
	)
}

const (
	hash1   = `["0e3fe031081d56c6c9c6b2626d8648c33d6d2cce626b305273167af71fb0490a"]`
	hash2   = `["0e3fe031081d56c6c9c6b2626d8648c33d6d2cce626b305273167af71fb0490a","0000000000000000000000000000000000000000000000000000000000000002"]`
	noHash  = `[]`
	dur     = `{"minimum":2400,"median":2400,"p95":2400}`
	seeds1  = `[40961]`
	seeds2  = `[40961,40962]`
	noSeeds = `[]`
)

func trialSummaryCases() []faultCase {
	return []faultCase{
		{name: "TRIALS/counts do not add up",
			mutate: set(pTrials+"/counts/failure", "1"), reseal: fullSeal, want: one(cTrials), detail: "counts add up to 2"},
		{name: "TRIALS/more completed than planned",
			mutate: trials(1, 2, 2, 0, 0, seeds2, hash1, dur, "FLAKY"), reseal: fullSeal, want: one(cTrials), detail: "exceeds plannedTrials"},
		{name: "TRIALS/more seeds than trials",
			mutate: set(pTrials+"/seeds", seeds2), reseal: fullSeal, want: one(cTrials), detail: "2 seeds for 1"},
		{name: "TRIALS/no seeds",
			mutate: set(pTrials+"/seeds", noSeeds), reseal: fullSeal, want: one(cTrials), detail: "0 seeds for 1"},
		{name: "TRIALS/no outcome hash",
			mutate: set(pTrials+"/distinctOutcomeHashes", noHash), reseal: fullSeal, want: one(cTrials), detail: "outcome hash"},
		{name: "TRIALS/no duration statistics",
			mutate: set(pTrials+"/durationMs", "null"), reseal: fullSeal, want: one(cTrials), detail: "duration statistics"},
		{name: "TRIALS/minimum above median",
			mutate: set(pTrials+"/durationMs/minimum", "2401"), reseal: fullSeal, want: one(cTrials), detail: "ordered"},
		{name: "TRIALS/median above p95",
			mutate: set(pTrials+"/durationMs/median", "2401"), reseal: fullSeal, want: one(cTrials), detail: "ordered"},
		{name: "TRIALS/unordered durations without completed trials",
			mutate: trials(1, 0, 0, 0, 0, noSeeds, noHash, `{"minimum":5,"median":4,"p95":4}`, "INCOMPLETE"), reseal: fullSeal, want: one(cTrials), detail: "ordered"},
		{name: "TRIALS/SINGLE_OBSERVATION of two trials",
			mutate: trials(2, 2, 2, 0, 0, seeds2, hash1, dur, "SINGLE_OBSERVATION"), reseal: fullSeal, want: one(cTrials), detail: "SINGLE_OBSERVATION with 2"},
		{name: "TRIALS/SINGLE_OBSERVATION of no trial",
			mutate: trials(1, 0, 0, 0, 0, noSeeds, noHash, "null", "SINGLE_OBSERVATION"), reseal: fullSeal, want: one(cTrials), detail: "SINGLE_OBSERVATION with 0"},
		{name: "TRIALS/INCOMPLETE although all planned trials completed",
			mutate: set(pTrials+"/classification", `"INCOMPLETE"`), reseal: fullSeal, want: one(cTrials), detail: "INCOMPLETE although"},
		{name: "TRIALS control/duplicate seeds fail the schema",
			mutate: trials(2, 2, 2, 0, 0, `[40961,40961]`, hash1, dur, "FLAKY"), reseal: fullSeal,
			want: one(cSchema), schema: []string{pTrials + "/seeds uniqueItems"}, notCode: cTrials},
		{name: "TRIALS control/completedTrials beyond 10000 fails the schema",
			mutate: set(pTrials+"/completedTrials", "10001"), reseal: fullSeal,
			want: one(cSchema), schema: []string{pTrials + "/completedTrials maximum"}, notCode: cTrials},
		{name: "TRIALS control/INCOMPLETE with a trial left",
			mutate: trials(2, 1, 1, 0, 0, seeds1, hash1, dur, "INCOMPLETE"), reseal: fullSeal, notCode: cTrials},
		{name: "TRIALS control/INCOMPLETE with an incomplete trial",
			mutate: trials(1, 1, 0, 0, 1, seeds1, hash1, dur, "INCOMPLETE"), reseal: fullSeal, notCode: cTrials},
		{name: "TRIALS control/no trial completed, no statistics",
			mutate: trials(1, 0, 0, 0, 0, noSeeds, noHash, "null", "INCOMPLETE"), reseal: fullSeal, notCode: cTrials},
		{name: "TRIALS control/FLAKY has no further checks",
			mutate: trials(3, 2, 1, 1, 0, seeds2, hash2, dur, "FLAKY"), reseal: fullSeal, notCode: cTrials},
		{name: "TRIALS control/ENVIRONMENT_DEPENDENT has no further checks",
			mutate: set(pTrials+"/classification", `"ENVIRONMENT_DEPENDENT"`), reseal: fullSeal, notCode: cTrials},

		{name: "STABILITY/REPEATED_STABLE of one trial",
			mutate: set(pTrials+"/classification", `"REPEATED_STABLE"`), reseal: fullSeal, want: one(cStability), detail: "got 1 trials"},
		{name: "STABILITY/REPEATED_STABLE with a failure",
			mutate: trials(2, 2, 1, 1, 0, seeds2, hash1, dur, "REPEATED_STABLE"), reseal: fullSeal, want: one(cStability), detail: "1 successful"},
		{name: "STABILITY/REPEATED_STABLE with two outcomes",
			mutate: trials(2, 2, 2, 0, 0, seeds2, hash2, dur, "REPEATED_STABLE"), reseal: fullSeal, want: one(cStability), detail: "2 hashes"},
		{name: "STABILITY control/REPEATED_STABLE of two identical successes",
			mutate: trials(2, 2, 2, 0, 0, seeds2, hash1, dur, "REPEATED_STABLE"), reseal: fullSeal, notCode: cStability},
		{name: "STABILITY control/REPEATED_STABLE without outcome hashes is inconsistent first",
			mutate: trials(2, 2, 2, 0, 0, seeds2, noHash, dur, "REPEATED_STABLE"), reseal: fullSeal,
			want: one(cTrials), detail: "outcome hash", notCode: cStability},
		{name: "TRIALS control/REPEATED_STABLE with counts not adding up",
			mutate: trials(2, 2, 2, 1, 0, seeds2, hash1, dur, "REPEATED_STABLE"), reseal: fullSeal,
			want: one(cTrials), detail: "counts add up", notCode: cStability},
		{name: "STABILITY control/false claim only in the statement",
			mutate: set(pStatement+"/stabilityClassification", `"REPEATED_STABLE"`), reseal: bundle.StageIntegrity,
			want: one(cCausal), notCode: cTrials},
	}
}

func classCases() []faultCase {
	claim := func(class string) mutator { return set(pEvidence+"/evidenceClassClaim", `"`+class+`"`) }
	return []faultCase{
		{name: "CLASS/over-claim GENUINE_RUNTIME without source evidence",
			mutate: claim("GENUINE_RUNTIME"), reseal: fullSeal, want: one(cPromotion), detail: "derive FIXTURE_BACKED_PROTOCOL"},
		{name: "CLASS/under-claim FIXTURE_VERIFIED",
			mutate: claim("FIXTURE_VERIFIED"), reseal: fullSeal, want: one(cPromotion), detail: "evidenceClassClaim is FIXTURE_VERIFIED"},
		{name: "CLASS/under-claim DOCUMENTED_ONLY",
			mutate: claim("DOCUMENTED_ONLY"), reseal: fullSeal, want: one(cPromotion), detail: "evidenceClassClaim"},
		{name: "CLASS/statement class differs",
			mutate: set(pStatement+"/evidenceClass", `"FIXTURE_VERIFIED"`), reseal: bundle.StageIntegrity, want: one(cPromotion), detail: "statement.evidenceClass"},
		{name: "CLASS/source evidence not in the manifest",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `["source/ghost.json"]`), claim("GENUINE_RUNTIME")), reseal: fullSeal,
			want: one(cPromotion), detail: "derive FIXTURE_BACKED_PROTOCOL"},
		{name: "CLASS/one of two source refs not in the manifest",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `["`+pathTranscript+`","source/ghost.json"]`), claim("GENUINE_RUNTIME")), reseal: fullSeal,
			want: one(cPromotion), detail: "derive FIXTURE_BACKED_PROTOCOL"},
		{name: "CLASS/empty source refs",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `[]`), claim("GENUINE_RUNTIME")), reseal: fullSeal,
			want: one(cPromotion), detail: "derive FIXTURE_BACKED_PROTOCOL"},
		{name: "CLASS/under-claim of a GENUINE_RUNTIME derivation",
			mutate: set(pEvidence+"/sourceEvidenceRefs", `["`+pathTranscript+`"]`), reseal: fullSeal,
			want: one(cPromotion), detail: "derive GENUINE_RUNTIME"},
		{name: "CLASS/self-asserted fixture observation does not count",
			mutate: set(pObsFixture+"/strength", `"LEGACY_SELF_ASSERTED"`), reseal: fullSeal, want: one(cPromotion), detail: "derive DOCUMENTED_ONLY"},
		{name: "CLASS/failed fixture observation does not count",
			mutate: set(pObsFixture+"/outcome", `"FAIL"`), reseal: fullSeal, want: one(cPromotion), detail: "derive DOCUMENTED_ONLY"},
		{name: "CLASS/self-asserted process observation blocks GENUINE_RUNTIME",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `["`+pathTranscript+`"]`), claim("GENUINE_RUNTIME"), set(pObsProc+"/strength", `"LEGACY_SELF_ASSERTED"`)),
			reseal: fullSeal, want: one(cPromotion), detail: "derive FIXTURE_BACKED_PROTOCOL"},
		{name: "CLASS/checked before completion",
			mutate: all(claim("GENUINE_RUNTIME"), set(pObsCleanup+"/outcome", `"FAIL"`)), reseal: fullSeal,
			want: one(cPromotion), notCode: cCompletion},
		{name: "CLASS control/a class-changing observation edit left unsealed is a hash mismatch",
			mutate: set(pObsFixture+"/strength", `"LEGACY_SELF_ASSERTED"`), reseal: bundle.StageScenario,
			want: one(cHash), detail: "obs-fixture-truncation", notCode: cPromotion},
		{name: "CLASS control/duplicate source refs fail the schema",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `["`+pathTranscript+`","`+pathTranscript+`"]`), claim("GENUINE_RUNTIME")), reseal: fullSeal,
			want: one(cSchema), schema: []string{"/evidence/sourceEvidenceRefs uniqueItems"}, notCode: cPromotion},
		{name: "CLASS control/a source ref that is no artifact path fails the schema",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `["/etc/passwd"]`), claim("GENUINE_RUNTIME")), reseal: fullSeal,
			want: one(cSchema), schema: []string{"/evidence/sourceEvidenceRefs/0 pattern"}, notCode: cPromotion},
		{name: "CLASS control/GENUINE_RUNTIME derived from bound source evidence",
			mutate: all(set(pEvidence+"/sourceEvidenceRefs", `["`+pathTranscript+`"]`), claim("GENUINE_RUNTIME")), reseal: fullSeal, notCode: cPromotion},
		{name: "CLASS control/DOCUMENTED_ONLY derived without a fixture",
			mutate: all(set(pObsFixture+"/strength", `"LEGACY_SELF_ASSERTED"`), claim("DOCUMENTED_ONLY")), reseal: fullSeal, notCode: cPromotion},
		{name: "CLASS control/INSTALLATION_VERIFIED derived",
			mutate: all(set(pObsFixture+"/type", `"INSTALLATION_EXECUTION"`), claim("INSTALLATION_VERIFIED")), reseal: fullSeal, notCode: cPromotion},
		{name: "CLASS control/FIXTURE_VERIFIED derived without a protocol exchange",
			mutate: all(set(pObsWire+"/type", `"TRANSPORT_EVENT"`), claim("FIXTURE_VERIFIED")), reseal: fullSeal, notCode: cPromotion},
		{name: "CLASS control/legacyAssertions are ignored",
			mutate: set(pEvidence+"/legacyAssertions", `[{"name":"sourceEvidenceBound","value":true,"strength":"LEGACY_SELF_ASSERTED"}]`), reseal: fullSeal, notCode: cPromotion},
	}
}

func completionCases() []faultCase {
	return []faultCase{
		{name: "COMPLETION/cleanup check failed",
			mutate: set(pObsCleanup+"/outcome", `"FAIL"`), reseal: fullSeal, want: one(cCompletion), detail: "CLEANUP_CHECK false, PRIVACY_SCAN true"},
		{name: "COMPLETION/privacy scan not observed",
			mutate: set(pObsPrivacy+"/outcome", `"NOT_OBSERVED"`), reseal: fullSeal, want: one(cCompletion), detail: "CLEANUP_CHECK true, PRIVACY_SCAN false"},
		{name: "COMPLETION/self-asserted cleanup check",
			mutate: set(pObsCleanup+"/strength", `"LEGACY_SELF_ASSERTED"`), reseal: fullSeal, want: one(cCompletion), detail: "CLEANUP_CHECK false"},
		{name: "COMPLETION/no CLEANUP_CHECK observation",
			mutate: set(pObsCleanup+"/type", `"FILESYSTEM_EFFECT"`), reseal: fullSeal, want: one(cCompletion), detail: "CLEANUP_CHECK false"},
		{name: "COMPLETION/checked before the digests",
			mutate: all(set(pObsPrivacy+"/outcome", `"FAIL"`), sealFrom(fullSeal), thenRehash(setEntry(bundle.StatementPath, "sha256", otherSha))),
			reseal: noReseal, want: one(cCompletion), notCode: cDigest},
		{name: "COMPLETION control/cleanup outcome changed but left unsealed is a hash mismatch",
			mutate: set(pObsCleanup+"/outcome", `"FAIL"`), reseal: bundle.StageScenario,
			want: one(cHash), detail: "obs-cleanup-verify", notCode: cCompletion},
		{name: "COMPLETION control/result FAIL without a cleanup check",
			mutate: all(set(pObsCleanup+"/outcome", `"FAIL"`), set(pStatement+"/result", `"FAIL"`)), reseal: fullSeal, notCode: cCompletion},
		{name: "COMPLETION control/result INCOMPLETE without a privacy scan",
			mutate: all(set(pObsPrivacy+"/outcome", `"FAIL"`), set(pStatement+"/result", `"INCOMPLETE"`)), reseal: fullSeal, notCode: cCompletion},
	}
}

func digestCases() []faultCase {
	return []faultCase{
		{name: "DIGEST/duplicate supporting path",
			mutate: duplicateEntry(pathTranscript), reseal: fullSeal, want: one(cDigest), detail: pathTranscript + " twice"},
		{name: "DIGEST/duplicate evidence entry",
			mutate: thenRehash(duplicateEntry(bundle.EvidencePath)), reseal: noReseal, want: one(cDigest), detail: bundle.EvidencePath + " twice"},
		{name: "DIGEST/supporting digest wrong",
			mutate: set(pEvidence+"/supportingArtifactManifestDigest", otherSha), reseal: bundle.StageStatement, want: one(cDigest), detail: "supportingArtifactManifestDigest"},
		{name: "DIGEST/supporting entry changed, supporting digest stale",
			mutate: setEntry(pathTranscript, "sha256", otherSha), reseal: bundle.StageStatement, want: one(cDigest), detail: "supportingArtifactManifestDigest"},
		{name: "DIGEST/evidence entry missing",
			mutate: thenRehash(removeEntry(bundle.EvidencePath)), reseal: noReseal, want: one(cDigest), detail: "no " + bundle.EvidencePath},
		{name: "DIGEST/evidence entry sha256 wrong",
			mutate: thenRehash(setEntry(bundle.EvidencePath, "sha256", otherSha)), reseal: noReseal, want: one(cDigest), detail: bundle.EvidencePath + " entry"},
		{name: "DIGEST/evidence entry bytes wrong",
			mutate: thenRehash(bumpEntry(bundle.EvidencePath, 1)), reseal: noReseal, want: one(cDigest), detail: bundle.EvidencePath + " entry"},
		{name: "DIGEST/evidence changed after sealing",
			mutate: set(pTrials+"/stopRule", `"another rule"`), reseal: noReseal, want: one(cDigest), detail: bundle.EvidencePath + " entry"},
		{name: "DIGEST/statement entry missing",
			mutate: thenRehash(removeEntry(bundle.StatementPath)), reseal: noReseal, want: one(cDigest), detail: "no " + bundle.StatementPath},
		{name: "DIGEST/statement entry sha256 wrong",
			mutate: thenRehash(setEntry(bundle.StatementPath, "sha256", otherSha)), reseal: noReseal, want: one(cDigest), detail: bundle.StatementPath + " entry"},
		{name: "DIGEST/statement entry bytes wrong",
			mutate: thenRehash(bumpEntry(bundle.StatementPath, -1)), reseal: noReseal, want: one(cDigest), detail: bundle.StatementPath + " entry"},
		{name: "DIGEST/statement changed after sealing",
			mutate: set(pStatement+"/verifiedAt", `"2026-03-14T09:31:16.000Z"`), reseal: noReseal, want: one(cDigest), detail: bundle.StatementPath + " entry"},
		{name: "DIGEST/bundleDigest wrong",
			mutate: set("/integrity/bundleDigest", otherSha), reseal: noReseal, want: one(cDigest), detail: "bundleDigest"},
		{name: "DIGEST/checked before the execution digest",
			mutate: all(set(pStatement+"/executionInstanceDigest", otherSha), sealFrom(bundle.StageIntegrity), set("/integrity/bundleDigest", otherSha)),
			reseal: noReseal, want: one(cDigest), notCode: cExecution},
		{name: "DIGEST control/mediaType of the evidence and statement entries is not checked",
			mutate: thenRehash(all(setEntry(bundle.EvidencePath, "mediaType", `"text/plain"`), setEntry(bundle.StatementPath, "mediaType", `"application/octet-stream"`))),
			reseal: noReseal, notCode: cDigest},
		{name: "DIGEST control/stored entry order is not checked",
			mutate: func(t *testing.T, v *canonjson.Value) { slices.Reverse(at(t, v, pArtifacts).Items) }, reseal: noReseal, notCode: cDigest},
		{name: "DIGEST control/verifiedAt changed and re-sealed",
			mutate: set(pStatement+"/verifiedAt", `"2026-03-14T09:31:16.000Z"`), reseal: bundle.StageIntegrity, notCode: cDigest},
		{name: "DIGEST control/statement.evidenceSha256 is a mirror",
			mutate: set(pStatement+"/evidenceSha256", otherSha), reseal: bundle.StageIntegrity, want: one(cCausal), detail: "evidenceSha256", notCode: cDigest},
	}
}

func executionCases() []faultCase {
	swapPrivacyCleanup := func(t *testing.T, v *canonjson.Value) {
		items := at(t, v, pObs).Items
		items[4], items[5] = items[5], items[4]
	}
	return []faultCase{
		{name: "EXEC/executionInstanceDigest wrong",
			mutate: set(pStatement+"/executionInstanceDigest", otherSha), reseal: bundle.StageIntegrity, want: one(cExecution)},
		{name: "EXEC/run changed after the statement was made",
			mutate: set(pRun+"/environment/os", `"darwin"`), reseal: bundle.StageIntegrity, want: one(cExecution), notCode: cCausal},
		{name: "EXEC/result changed after the statement was made",
			mutate: set(pStatement+"/result", `"FAIL"`), reseal: bundle.StageIntegrity, want: one(cExecution)},
		{name: "EXEC/observations reordered after the statement was made",
			mutate: swapPrivacyCleanup, reseal: bundle.StageIntegrity, want: one(cExecution)},
		{name: "EXEC control/result changed and re-sealed",
			mutate: set(pStatement+"/result", `"FAIL"`), reseal: fullSeal, notCode: cExecution},
		{name: "EXEC control/observations reordered and re-sealed",
			mutate: swapPrivacyCleanup, reseal: fullSeal, notCode: cExecution},
		{name: "EXEC control/run changed and re-sealed from the statement",
			mutate: set(pRun+"/environment/os", `"darwin"`), reseal: bundle.StageStatement, notCode: cExecution},
	}
}
