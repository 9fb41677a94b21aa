package v01_test

import (
	"encoding/base64"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/v01"
	"github.com/mcpres/mcpres/validator/validatortest"
)

// Diagnostic codes of the v0.1 validator, shortened for the tables.
const (
	v1Missing    = v01.CodeMissingCleanControl
	v1Vacuous    = validator.CodeVacuousNegativeControl
	v1Unbounded  = v01.CodeUnboundedRetry
	v1CleanupInc = v01.CodeCleanupIncomplete
	v1Partial    = v01.CodePartialManifest
	v1Ambiguous  = v01.CodeSubjectAmbiguous
	v1Nondet     = v01.CodeNondeterministicIdentity
	v1TooLarge   = v01.CodeEvidenceTooLarge
	v1AuthHeader = v01.CodeAuthHeaderForbidden
	v1Secret     = v01.CodeSecretDetected
	v1Schema     = validator.CodeSchemaInvalid
	v1Profile    = v01.CodeProfileUnsupported
	v1Promotion  = validator.CodeEvidenceClassPromotion
	v1Causal     = validator.CodeCausalMismatch
	v1SideEffect = v01.CodeSideEffectRetryUnsafe
	v1Regression = v01.CodeRegressionInvalid
	v1Digest     = validator.CodeDigestMismatch
	// v1Abort marks a row that must abort with an *InputError.
	v1Abort = validator.CodeInputInvalid
)

// v01Codes is the v0.1 registry of REFERENCE §5.8, in check order.
var v01Codes = []string{
	v1Missing, v1Vacuous, v1Unbounded, v1CleanupInc, v1Partial, v1Ambiguous, v1Nondet, v1TooLarge,
	v1AuthHeader, v1Secret, v1Schema, v1Profile, v1Promotion, v1Causal, v1SideEffect, v1Regression, v1Digest,
}

// JSON Pointers into the v0.1 example (TestV01ExampleLayout keeps them true).
const (
	v1Ev        = "/evidence"
	v1Subject   = "/evidence/subject"
	v1Exec      = "/evidence/execution"
	v1Source    = "/evidence/sourceEvidence"
	v1Limits    = "/evidence/limits"
	v1Ops       = "/evidence/operations"
	v1OpClean   = "/evidence/operations/0" // op-list-notes, CLEAN_CONTROL
	v1OpFault   = "/evidence/operations/1" // op-append-note, FAULT_CASE, fault 0, policy 0
	v1OpRetry   = "/evidence/operations/2" // op-append-note-retry, RECOVERY_ATTEMPT, parent op-append-note
	v1OpNeg     = "/evidence/operations/3" // op-truncated-reply, NEGATIVE_CONTROL, fault 1
	v1Faults    = "/evidence/faults"
	v1Policies  = "/evidence/recoveryPolicies"
	v1Policy    = "/evidence/recoveryPolicies/0" // SIDE_EFFECTING, retryLimit 1, IDEMPOTENCY_KEY
	v1Cleanup   = "/evidence/cleanup"
	v1Reg       = "/evidence/regression"
	v1Req       = "/evidence/regression/runtimeRequirements/0" // a free string member
	v1Stmt      = "/statement"
	v1Integrity = "/integrity"
	v1Arts      = "/integrity/artifacts"
	v1ArtStmt   = "/integrity/artifacts/0" // conformance-statement.json
	v1ArtEv     = "/integrity/artifacts/1" // evidence-envelope.json
	v1ArtSource = "/integrity/artifacts/2" // source-evidence/wire-session.json
)

// A v01Case applies one fault to the v0.1 example.
type v01Case struct {
	name   string
	mutate mutator
	// reseal recomputes the digests after mutate (sealV01), so that only
	// the intended check can fire; without it the digests are stale, as in
	// upstream's vectors, and only the check order protects the code.
	reseal bool
	want   string // the one expected code; "" means valid; v1Abort an *InputError
	// schema lists "instancePath keyword" of every schema error (SCHEMA rows).
	schema []string
	// detail is a substring of Result.Detail naming the sub-condition.
	detail string
	// notCode marks a wrong-reason control: a nearby fault that must not
	// produce this code.
	notCode string
}

// setStr returns a mutator writing the string s at ptr.
func setStr(ptr, s string) mutator {
	return func(t *testing.T, v *canonjson.Value) { put(t, v, ptr, canonjson.NewString(s)) }
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// sizedTo returns a mutator that sets the string at ptr so that the compact
// serialization of the whole bundle is exactly n bytes. The filler "!" is
// neither escaped nor a base64 character.
func sizedTo(ptr string, n int) mutator {
	return func(t *testing.T, v *canonjson.Value) {
		t.Helper()
		put(t, v, ptr, canonjson.NewString(""))
		b, err := canonjson.Compact(v)
		if err != nil {
			t.Fatal(err)
		}
		put(t, v, ptr, canonjson.NewString(strings.Repeat("!", n-len(b))))
	}
}

func v01Cases() []v01Case {
	return slices.Concat(v01PrecheckCases(), v01ScanCases(), v01SchemaCases(), v01SemanticCases())
}

func v01PrecheckCases() []v01Case {
	negAt0 := func(t *testing.T, v *canonjson.Value) {
		ops := at(t, v, v1Ops)
		ops.Items = append([]*canonjson.Value{ops.Items[3]}, ops.Items[:3]...)
	}
	return []v01Case{
		// 1. clean control
		{name: "clean control kind changed", mutate: set(v1OpClean+"/kind", `"FAULT_CASE"`), reseal: true, want: v1Missing, detail: "no CLEAN_CONTROL"},
		{name: "clean control kind lower case", mutate: set(v1OpClean+"/kind", `"clean_control"`), reseal: true, want: v1Missing},
		{name: "operations absent", mutate: remove(v1Ops), want: v1Missing, detail: "absent"},
		{name: "operations null", mutate: set(v1Ops, `null`), want: v1Missing, detail: "absent"},
		{name: "evidence is an array", mutate: set(v1Ev, `[]`), want: v1Missing},
		{name: "evidence is null", mutate: set(v1Ev, `null`), want: v1Missing},
		{name: "no evidence", mutate: remove(v1Ev), want: v1Missing},
		{name: "operations empty object aborts", mutate: set(v1Ops, `{}`), want: v1Abort},
		{name: "operations string aborts", mutate: set(v1Ops, `"abc"`), want: v1Abort},
		{name: "operations empty string aborts", mutate: set(v1Ops, `""`), want: v1Abort},
		{name: "null before clean control aborts", mutate: func(t *testing.T, v *canonjson.Value) {
			ops := at(t, v, v1Ops)
			ops.Items = append([]*canonjson.Value{canonjson.NewNull()}, ops.Items...)
		}, want: v1Abort},
		{name: "non-object before clean control is skipped", mutate: func(t *testing.T, v *canonjson.Value) {
			ops := at(t, v, v1Ops)
			ops.Items = append([]*canonjson.Value{canonjson.NewInt(5)}, ops.Items...)
		}, want: v1Schema, schema: []string{v1Ops + "/0 type"}},
		{name: "control: clean control moved last", mutate: func(t *testing.T, v *canonjson.Value) {
			ops := at(t, v, v1Ops)
			ops.Items = append(ops.Items[1:], ops.Items[0])
		}, reseal: true, notCode: v1Missing},
		{name: "control: negative control turned clean", mutate: set(v1OpNeg+"/kind", `"CLEAN_CONTROL"`), reseal: true, want: v1Vacuous, notCode: v1Missing},

		// 2. negative control
		{name: "negative control outcome FAIL", mutate: set(v1OpNeg+"/outcome", `"FAIL"`), reseal: true, want: v1Vacuous, detail: "EXPECTED_FAILURE"},
		{name: "negative control faultId null", mutate: set(v1OpNeg+"/faultId", `null`), reseal: true, want: v1Vacuous, detail: "no faultId"},
		{name: "negative control faultId empty", mutate: set(v1OpNeg+"/faultId", `""`), reseal: true, want: v1Vacuous, detail: "no faultId"},
		{name: "no negative control", mutate: set(v1OpNeg+"/kind", `"FAULT_CASE"`), reseal: true, want: v1Vacuous, detail: "no NEGATIVE_CONTROL"},
		{name: "null after clean, before negative aborts", mutate: func(t *testing.T, v *canonjson.Value) {
			ops := at(t, v, v1Ops)
			ops.Items = slices.Insert(ops.Items, 1, canonjson.NewNull())
		}, want: v1Abort},
		{name: "null after the negative control is not reached", mutate: appendTo(v1Ops, `null`), want: v1Schema, schema: []string{v1Ops + "/4 type"}},
		{name: "only the first negative control counts", mutate: all(
			appendTo(v1Ops, `{"runId":"run-mcpres-legacy-2c91","operationId":"op-second-negative","parentOperationId":null,"kind":"NEGATIVE_CONTROL","faultId":null,"recoveryPolicyId":null,"attempt":0,"outcome":"PASS","startedOffsetMs":3000,"durationMs":10}`),
		), reseal: true, notCode: v1Vacuous},
		{name: "negative control first is fine", mutate: negAt0, reseal: true},
		{name: "control: negative control names an unknown fault", mutate: set(v1OpNeg+"/faultId", `"fault/unknown"`), reseal: true, want: v1Causal, notCode: v1Vacuous, detail: "not defined"},

		// 3. unbounded retry
		{name: "retryLimit null", mutate: set(v1Policy+"/retryLimit", `null`), reseal: true, want: v1Unbounded},
		{name: "retryLimit unbounded", mutate: set(v1Policy+"/retryLimit", `"unbounded"`), reseal: true, want: v1Unbounded},
		{name: "unbounded policy before a null policy", mutate: all(set(v1Policy+"/retryLimit", `null`), appendTo(v1Policies, `null`)), want: v1Unbounded},
		{name: "null policy aborts", mutate: set(v1Policies, `[null]`), want: v1Abort},
		{name: "recoveryPolicies object aborts", mutate: set(v1Policies, `{}`), want: v1Abort},
		{name: "recoveryPolicies absent passes step 3", mutate: remove(v1Policies), reseal: true, want: v1Schema, schema: []string{v1Ev + " required"}},
		{name: "control: retryLimit 33", mutate: set(v1Policy+"/retryLimit", `33`), reseal: true, want: v1Schema, notCode: v1Unbounded,
			schema: []string{v1Policy + "/retryLimit maximum"}},
		{name: "control: retryLimit UNBOUNDED", mutate: set(v1Policy+"/retryLimit", `"UNBOUNDED"`), reseal: true, want: v1Schema, notCode: v1Unbounded,
			schema: []string{v1Policy + "/retryLimit type"}},

		// 4. cleanup
		{name: "cleanup absent", mutate: remove(v1Cleanup), want: v1CleanupInc, detail: "missing"},
		{name: "cleanup null", mutate: set(v1Cleanup, `null`), want: v1CleanupInc, detail: "missing"},
		{name: "cleanup a string", mutate: set(v1Cleanup, `"done"`), want: v1CleanupInc, detail: "complete"},
		{name: "cleanup incomplete", mutate: set(v1Cleanup+"/complete", `false`), reseal: true, want: v1CleanupInc, detail: "complete"},
		{name: "cleanup complete as a string", mutate: set(v1Cleanup+"/complete", `"true"`), reseal: true, want: v1CleanupInc, detail: "complete"},
		{name: "child process remains", mutate: set(v1Cleanup+"/childProcessesRemaining", `1`), reseal: true, want: v1CleanupInc, detail: "child processes"},
		{name: "listeners remain", mutate: set(v1Cleanup+"/listenersRemaining", `2`), reseal: true, want: v1CleanupInc, detail: "listeners"},
		{name: "unapproved change", mutate: set(v1Cleanup+"/targetState", `"UNAPPROVED_CHANGE"`), reseal: true, want: v1CleanupInc, detail: "unapproved"},
		{name: "control: child processes as a string", mutate: set(v1Cleanup+"/childProcessesRemaining", `"1"`), reseal: true, want: v1Schema, notCode: v1CleanupInc,
			schema: []string{v1Cleanup + "/childProcessesRemaining type"}},
		{name: "control: negative listeners", mutate: set(v1Cleanup+"/listenersRemaining", `-1`), reseal: true, want: v1Schema, notCode: v1CleanupInc,
			schema: []string{v1Cleanup + "/listenersRemaining minimum"}},
		{name: "retained temporary artifacts are not checked", mutate: set(v1Cleanup+"/temporaryArtifacts", `"RETAINED_INCOMPLETE"`), reseal: true, notCode: v1CleanupInc},

		// 5. manifest completeness
		{name: "manifest incomplete", mutate: set(v1Integrity+"/complete", `false`), want: v1Partial, detail: "complete"},
		{name: "manifest published first", mutate: set(v1Integrity+"/publication", `"MANIFEST_FIRST"`), want: v1Partial, detail: "MANIFEST_LAST"},
		{name: "integrity absent", mutate: remove(v1Integrity), want: v1Partial, detail: "missing"},
		{name: "integrity empty string", mutate: set(v1Integrity, `""`), want: v1Partial, detail: "missing"},
		{name: "control: other hash algorithm", mutate: set(v1Integrity+"/hashAlgorithm", `"SHA-512"`), want: v1Schema, notCode: v1Partial,
			schema: []string{v1Integrity + "/hashAlgorithm const"}},

		// 6. subject identity
		{name: "subject name empty", mutate: set(v1Subject+"/name", `""`), reseal: true, want: v1Ambiguous, detail: "subject.name"},
		{name: "subject version absent", mutate: remove(v1Subject + "/version"), reseal: true, want: v1Ambiguous, detail: "subject.version"},
		{name: "subject version zero", mutate: set(v1Subject+"/version", `0`), reseal: true, want: v1Ambiguous, detail: "subject.version"},
		{name: "artifact digest empty", mutate: set(v1Subject+"/artifact/sha256", `""`), reseal: true, want: v1Ambiguous, detail: "artifact.sha256"},
		{name: "subject absent", mutate: remove(v1Subject), want: v1Ambiguous, detail: "subject.name"},
		{name: "control: subject name with a bad character", mutate: set(v1Subject+"/name", `"ledger!notes"`), want: v1Schema, notCode: v1Ambiguous,
			schema: []string{v1Subject + "/name pattern"}},

		// 7. host-specific identity
		{name: "absolutePath", mutate: set(v1Subject+"/absolutePath", `"/home/dev/ledger"`), want: v1Nondet, detail: "absolutePath"},
		{name: "workingDirectory", mutate: set(v1Subject+"/workingDirectory", `"."`), want: v1Nondet, detail: "workingDirectory"},
		{name: "hostName null still counts", mutate: set(v1Subject+"/hostName", `null`), want: v1Nondet, detail: "hostName"},
		{name: "control: hostname in lower case", mutate: set(v1Subject+"/hostname", `"build-7"`), want: v1Schema, notCode: v1Nondet,
			schema: []string{v1Subject + " additionalProperties"}},
		{name: "control: absolutePath outside the subject", mutate: set(v1Ev+"/absolutePath", `"/x"`), want: v1Schema, notCode: v1Nondet,
			schema: []string{v1Ev + " additionalProperties"}},
		{name: "control: schema fault masked by an earlier check", mutate: set(v1Subject+"/absolutePath", `"/x"`), want: v1Nondet, notCode: v1Schema},

		// 8. size
		{name: "stringBytes over 1 MiB", mutate: set(v1Limits+"/stringBytes", `1048577`), reseal: true, want: v1TooLarge, detail: "stringBytes"},
		{name: "inputBytes over 16 MiB", mutate: set(v1Limits+"/inputBytes", `16777217`), reseal: true, want: v1TooLarge, detail: "inputBytes"},
		{name: "bundle one byte over 1 MiB", mutate: sizedTo(v1Req, 1<<20+1), want: v1TooLarge, detail: "compact bundle"},
		{name: "stringBytes at the bound", mutate: set(v1Limits+"/stringBytes", `1048576`), reseal: true, notCode: v1TooLarge},
		{name: "control: bundle exactly 1 MiB", mutate: sizedTo(v1Req, 1<<20), want: v1Schema, notCode: v1TooLarge,
			schema: []string{v1Req + " maxLength"}},
		{name: "control: inputBytes as a string", mutate: set(v1Limits+"/inputBytes", `"16777217"`), reseal: true, want: v1Schema, notCode: v1TooLarge,
			schema: []string{v1Limits + "/inputBytes type"}},
	}
}

// v01ScanCases are steps 9 and 10. The text goes into a free string member
// (a regression runtime requirement), so that nothing else is wrong.
func v01ScanCases() []v01Case {
	secret := b64("Authorization: Bearer abc123")
	return []v01Case{
		// 9. raw authorization header
		{name: "bearer header", mutate: setStr(v1Req, "Authorization: Bearer abc.def-ghi"), reseal: true, want: v1AuthHeader},
		{name: "basic header with =", mutate: setStr(v1Req, "authorization=basic dXNlcjpwYXNz"), reseal: true, want: v1AuthHeader},
		{name: "header with no-break spaces", mutate: setStr(v1Req, "AUTHORIZATION\u00a0:\u00a0BEARER tok"), reseal: true, want: v1AuthHeader},
		{name: "header with U+2028 (raw in the serialization)", mutate: setStr(v1Req, "authorization:\u2028bearer tok"), reseal: true, want: v1AuthHeader},
		{name: "header with U+FEFF", mutate: setStr(v1Req, "authorization:\ufeffbasic tok"), reseal: true, want: v1AuthHeader},
		{name: "Unicode case folding: long s", mutate: setStr(v1Req, "authorization: ba\u017fic tok"), reseal: true, want: v1AuthHeader},
		{name: "Unicode case folding: Kelvin sign token", mutate: setStr(v1Req, "authorization: bearer \u212a"), reseal: true, want: v1AuthHeader},
		{name: "header in a member name", mutate: set(v1Subject+"/authorization: bearer x", `1`), want: v1AuthHeader},
		{name: "control: header without credentials", mutate: setStr(v1Req, "authorization: bearer"), reseal: true, notCode: v1AuthHeader},
		{name: "control: header split across strings", mutate: set(v1Reg+"/runtimeRequirements", `["authorization:", "bearer abc"]`), reseal: true, notCode: v1AuthHeader},
		{name: "control: escaped newline is not whitespace", mutate: setStr(v1Req, "authorization:\nbearer abc"), reseal: true, notCode: v1AuthHeader},
		{name: "control: escaped vertical tab is not whitespace", mutate: setStr(v1Req, "authorization:\vbearer abc"), reseal: true, notCode: v1AuthHeader},
		{name: "control: other scheme", mutate: setStr(v1Req, "authorization: token abc"), reseal: true, notCode: v1AuthHeader},
		{name: "control: encoded header is a secret", mutate: setStr(v1Req, secret), reseal: true, want: v1Secret, notCode: v1AuthHeader},

		// 10. encoded secret
		{name: "base64 bearer header", mutate: setStr(v1Req, secret), reseal: true, want: v1Secret},
		{name: "base64 api key", mutate: setStr(v1Req, b64("x-api-key= 0123456789abcdef")), reseal: true, want: v1Secret},
		{name: "base64 apikey without separator", mutate: setStr(v1Req, b64("APIKEY:0123456789abcdef")), reseal: true, want: v1Secret},
		{name: "base64 token", mutate: setStr(v1Req, b64("refresh_token = 0123456789")), reseal: true, want: v1Secret},
		{name: "base64 without padding", mutate: setStr(v1Req, strings.TrimRight(b64("token:0123456789abcdefg"), "=")), reseal: true, want: v1Secret},
		{name: "base64 among other text", mutate: setStr(v1Req, "see "+secret+" here"), reseal: true, want: v1Secret},
		{name: "base64 in a member name", mutate: set(v1Subject+"/"+secret, `1`), want: v1Secret},
		{name: "base64 with a trailing single character", mutate: setStr(v1Req, b64("token=0123456789abcdefgh")+"Q"), reseal: true, want: v1Secret},
		{name: "control: secret in plain text", mutate: setStr(v1Req, "api_key=abcdefghijklmnopqrstuvwxyz"), reseal: true, notCode: v1Secret},
		{name: "control: run shorter than 24", mutate: setStr(v1Req, b64("token=0123456789a")), reseal: true, notCode: v1Secret},
		{name: "control: misaligned run", mutate: setStr(v1Req, "A"+secret), reseal: true, notCode: v1Secret},
		{name: "control: authorization with = is not a decoded header", mutate: setStr(v1Req, b64("Authorization=Bearer abcdef")), reseal: true, notCode: v1Secret},
		{name: "control: raw header before an encoded one", mutate: setStr(v1Req, "Authorization: Bearer "+secret), reseal: true, want: v1AuthHeader, notCode: v1Secret},
	}
}

func v01SchemaCases() []v01Case {
	return []v01Case{
		{name: "unknown run member", mutate: set(v1Ev+"/run/host", `"x"`), reseal: true, want: v1Schema,
			schema: []string{v1Ev + "/run additionalProperties"}},
		{name: "absolute artifact path", mutate: setStr(v1ArtSource+"/path", "/source-evidence/wire-session.json"), reseal: true, want: v1Schema,
			schema: []string{v1ArtSource + "/path pattern"}},
		{name: "dot-dot segment", mutate: setStr(v1ArtSource+"/path", "source-evidence/../wire-session.json"), reseal: true, want: v1Schema,
			schema: []string{v1ArtSource + "/path pattern"}},
		{name: "trailing dot-dot segment", mutate: setStr(v1ArtSource+"/path", "source-evidence/.."), reseal: true, want: v1Schema,
			schema: []string{v1ArtSource + "/path pattern"}},
		{name: "path that is only dot-dot", mutate: setStr(v1ArtSource+"/path", ".."), reseal: true, want: v1Schema,
			schema: []string{v1ArtSource + "/path pattern"}},
		{name: "path with a space is reported once", mutate: setStr(v1ArtSource+"/path", "../a b"), reseal: true, want: v1Schema,
			schema: []string{v1ArtSource + "/path pattern"}},
		{name: "long dot-dot path: maxLength then pattern", mutate: setStr(v1ArtSource+"/path", strings.Repeat("a/", 128)+".."), reseal: true, want: v1Schema,
			schema: []string{v1ArtSource + "/path maxLength", v1ArtSource + "/path pattern"}},
		{name: "path errors in document order", mutate: all(
			setStr(v1ArtStmt+"/path", "../conformance-statement.json"),
			setStr(v1ArtEv+"/mediaType", "JSON"),
			setStr(v1ArtSource+"/path", "/x"),
			set(v1Integrity+"/bundleDigest", `"zz"`),
			set(v1Ev+"/run/id", `"short"`),
		), want: v1Schema, schema: []string{
			v1Ev + "/run/id minLength",
			v1ArtStmt + "/path pattern",
			v1ArtEv + "/mediaType pattern",
			v1ArtSource + "/path pattern",
			v1Integrity + "/bundleDigest pattern",
		}},
		{name: "triple dot and empty segments are fine", mutate: appendTo(v1Arts, `{"path":"notes//.../x.json","mediaType":"application/json","bytes":0,"sha256":"`+strings.Repeat("0", 64)+`"}`),
			reseal: true, notCode: v1Schema},
		{name: "safety mechanism neither null nor complete", mutate: set(v1Policy+"/safetyMechanism", `{}`), reseal: true, want: v1Schema, notCode: v1SideEffect,
			schema: []string{v1Policy + "/safetyMechanism oneOf"}},
		{name: "privacy flag false", mutate: set(v1Ev+"/privacy/scanPassed", `false`), reseal: true, want: v1Schema,
			schema: []string{v1Ev + "/privacy/scanPassed const"}},
		{name: "duplicate runtimes", mutate: copyTo(v1Subject+"/runtimes/1", v1Subject+"/runtimes/0"), reseal: true, want: v1Schema,
			schema: []string{v1Subject + "/runtimes uniqueItems"}},
		{name: "leap second", mutate: setStr(v1Stmt+"/verifiedAt", "2026-12-31T23:59:60Z"), reseal: true, want: v1Schema,
			schema: []string{v1Stmt + "/verifiedAt format"}},
	}
}

func v01SemanticCases() []v01Case {
	dupSource := func(first bool) mutator {
		return func(t *testing.T, v *canonjson.Value) {
			arts := at(t, v, v1Arts)
			bad := at(t, v, v1ArtSource).Clone()
			bad.Set("bytes", canonjson.NewInt(1))
			if first {
				arts.Items = slices.Insert(arts.Items, 2, bad)
			} else {
				arts.Items = append(arts.Items, bad)
			}
		}
	}
	return []v01Case{
		// a. profile
		{name: "profile version 1.0.1", mutate: all(set(v1Ev+"/profile/version", `"1.0.1"`), set(v1Stmt+"/profileVersion", `"1.0.1"`)), reseal: true, want: v1Profile, detail: "not a v0.1.0 profile"},
		{name: "profile does not admit the subject type", mutate: all(set(v1Subject+"/subjectType", `"ADAPTER"`), set(v1Stmt+"/subjectType", `"ADAPTER"`)), reseal: true, want: v1Profile, detail: "does not admit"},
		{name: "client profile with a server", mutate: all(set(v1Ev+"/profile/id", `"mcp-res/client-config-source/v1"`), set(v1Stmt+"/profileId", `"mcp-res/client-config-source/v1"`)), reseal: true, want: v1Profile, detail: "does not admit"},
		{name: "client profile with a test harness", mutate: all(
			set(v1Ev+"/profile/id", `"mcp-res/client-config-source/v1"`), set(v1Stmt+"/profileId", `"mcp-res/client-config-source/v1"`),
			set(v1Subject+"/subjectType", `"TEST_HARNESS"`), set(v1Stmt+"/subjectType", `"TEST_HARNESS"`)), reseal: true, notCode: v1Profile},
		{name: "control: profile version 1.0", mutate: set(v1Ev+"/profile/version", `"1.0"`), reseal: true, want: v1Schema, notCode: v1Profile,
			schema: []string{v1Ev + "/profile/version pattern"}},

		// b. evidence class (REFERENCE §4.2)
		{name: "GENUINE_RUNTIME without a runtime", mutate: set(v1Exec+"/actualRuntime", `false`), reseal: true, want: v1Promotion, detail: "GENUINE_RUNTIME"},
		{name: "GENUINE_RUNTIME without source evidence", mutate: remove(v1Source), reseal: true, want: v1Promotion},
		{name: "source projection size differs", mutate: set(v1ArtSource+"/bytes", `6121`), reseal: true, want: v1Promotion},
		{name: "source projection digest differs", mutate: set(v1ArtSource+"/sha256", otherSha), reseal: true, want: v1Promotion},
		{name: "source projection not in the manifest", mutate: setStr(v1ArtSource+"/path", "source-evidence/other.json"), reseal: true, want: v1Promotion},
		{name: "first of duplicate source entries is wrong", mutate: dupSource(true), reseal: true, want: v1Promotion},
		{name: "FIXTURE_VERIFIED without a fixture", mutate: all(set(v1Ev+"/evidenceClass", `"FIXTURE_VERIFIED"`), set(v1Stmt+"/evidenceClass", `"FIXTURE_VERIFIED"`)), reseal: true, want: v1Promotion},
		{name: "DOCUMENTED_ONLY with a runtime", mutate: all(set(v1Ev+"/evidenceClass", `"DOCUMENTED_ONLY"`), set(v1Stmt+"/evidenceClass", `"DOCUMENTED_ONLY"`)), reseal: true, want: v1Promotion, detail: "every execution boolean false"},
		{name: "INSTALLATION_VERIFIED without installation", mutate: all(set(v1Ev+"/evidenceClass", `"INSTALLATION_VERIFIED"`), set(v1Stmt+"/evidenceClass", `"INSTALLATION_VERIFIED"`)), reseal: true, want: v1Promotion},
		{name: "under-claim is allowed", mutate: all(set(v1Exec+"/fixtureUsed", `true`), set(v1Ev+"/evidenceClass", `"FIXTURE_BACKED_PROTOCOL"`), set(v1Stmt+"/evidenceClass", `"FIXTURE_BACKED_PROTOCOL"`)), reseal: true, notCode: v1Promotion},
		{name: "DOCUMENTED_ONLY with every boolean false", mutate: all(
			set(v1Exec, `{"actualRuntime":false,"protocolMessagesExchanged":false,"fixtureUsed":false,"installationExecuted":false,"regressionExecuted":false}`),
			remove(v1Reg), set(v1Ev+"/evidenceClass", `"DOCUMENTED_ONLY"`), set(v1Stmt+"/evidenceClass", `"DOCUMENTED_ONLY"`)), reseal: true, notCode: v1Promotion},
		{name: "control: second of duplicate source entries is wrong", mutate: dupSource(false), reseal: true, want: v1Partial, notCode: v1Promotion},
		{name: "control: unknown class", mutate: set(v1Ev+"/evidenceClass", `"RUNTIME"`), reseal: true, want: v1Schema, notCode: v1Promotion,
			schema: []string{v1Ev + "/evidenceClass enum"}},

		// c. causality
		{name: "operation of another run", mutate: set(v1OpRetry+"/runId", `"run-mcpres-legacy-0000"`), reseal: true, want: v1Causal, detail: "is not the run"},
		{name: "unknown parent", mutate: set(v1OpRetry+"/parentOperationId", `"op-missing"`), reseal: true, want: v1Causal, detail: "parent"},
		{name: "unknown fault", mutate: set(v1OpFault+"/faultId", `"fault/unknown"`), reseal: true, want: v1Causal, detail: "not defined"},
		{name: "fault targets another operation", mutate: set(v1Faults+"/0/targetOperationId", `"op-list-notes"`), reseal: true, want: v1Causal, detail: "targets operation op-list-notes"},
		{name: "last fault definition wins (wrong)", mutate: func(t *testing.T, v *canonjson.Value) {
			f := at(t, v, v1Faults+"/0").Clone()
			f.Set("targetOperationId", canonjson.NewString("op-list-notes"))
			appendTo(v1Faults, `{}`)(t, v)
			put(t, v, v1Faults+"/2", f)
		}, reseal: true, want: v1Causal, detail: "targets operation op-list-notes"},
		{name: "last fault definition wins (right)", mutate: func(t *testing.T, v *canonjson.Value) {
			f := at(t, v, v1Faults+"/0").Clone()
			put(t, v, v1Faults+"/0/targetOperationId", canonjson.NewString("op-list-notes"))
			appendTo(v1Faults, `{}`)(t, v)
			put(t, v, v1Faults+"/2", f)
		}, reseal: true, notCode: v1Causal},
		{name: "unknown recovery policy", mutate: set(v1OpRetry+"/recoveryPolicyId", `"policy/unknown"`), reseal: true, want: v1Causal, detail: "recovery policy"},
		{name: "parent defined later is fine", mutate: set(v1OpClean+"/parentOperationId", `"op-truncated-reply"`), reseal: true, notCode: v1Causal},
		{name: "empty faultId is not a reference", mutate: set(v1OpRetry+"/faultId", `""`), reseal: true, notCode: v1Causal},
		{name: "control: malformed run id", mutate: set(v1OpRetry+"/runId", `"bad run id!"`), reseal: true, want: v1Schema, notCode: v1Causal,
			schema: []string{v1OpRetry + "/runId pattern"}},

		// d. side effects
		{name: "side-effecting retry without safety", mutate: set(v1Policy+"/safetyMechanism", `null`), reseal: true, want: v1SideEffect},
		{name: "unknown side effects without safety", mutate: all(set(v1Policy+"/safetyMechanism", `null`), set(v1Policy+"/sideEffectModel", `"UNKNOWN"`)), reseal: true, want: v1SideEffect},
		{name: "idempotent retry without safety", mutate: all(set(v1Policy+"/safetyMechanism", `null`), set(v1Policy+"/sideEffectModel", `"IDEMPOTENT"`)), reseal: true, notCode: v1SideEffect},
		{name: "no retry without safety", mutate: all(set(v1Policy+"/safetyMechanism", `null`), set(v1Policy+"/retryLimit", `0`)), reseal: true, notCode: v1SideEffect},
		{name: "control: unbounded retry without safety", mutate: all(set(v1Policy+"/safetyMechanism", `null`), set(v1Policy+"/retryLimit", `null`)), reseal: true, want: v1Unbounded, notCode: v1SideEffect},

		// e. regression
		{name: "regression not generated without execution", mutate: set(v1Reg+"/generatedWithoutExecution", `false`), reseal: true, want: v1Regression, detail: "generatedWithoutExecution"},
		{name: "regression output not contained", mutate: set(v1Reg+"/containedOutput", `false`), reseal: true, want: v1Regression, detail: "containedOutput"},
		{name: "regression dependencies not deterministic", mutate: set(v1Reg+"/deterministicDependencies", `false`), reseal: true, want: v1Regression, detail: "deterministicDependencies"},
		{name: "broken condition passes", mutate: set(v1Reg+"/brokenConditionFails", `false`), reseal: true, want: v1Regression, detail: "brokenConditionFails"},
		{name: "fixed condition fails", mutate: set(v1Reg+"/fixedConditionPasses", `false`), reseal: true, want: v1Regression, detail: "fixedConditionPasses"},
		{name: "regression secret scan failed", mutate: set(v1Reg+"/secretScanPassed", `false`), reseal: true, want: v1Regression, detail: "secretScanPassed"},
		{name: "regression not executed", mutate: set(v1Exec+"/regressionExecuted", `false`), reseal: true, want: v1Regression, detail: "regressionExecuted"},
		{name: "regression not provided", mutate: all(set(v1Reg+"/provided", `false`), set(v1Reg+"/brokenConditionFails", `false`)), reseal: true, notCode: v1Regression},
		{name: "no regression", mutate: remove(v1Reg), reseal: true, notCode: v1Regression},
		{name: "control: provided as a string", mutate: set(v1Reg+"/provided", `"true"`), reseal: true, want: v1Schema, notCode: v1Regression,
			schema: []string{v1Reg + "/provided type"}},

		// f. duplicate manifest paths
		{name: "duplicate statement entry", mutate: appendTo(v1Arts, `{"path":"conformance-statement.json","mediaType":"application/json","bytes":1,"sha256":`+otherSha+`}`), reseal: true, want: v1Partial, detail: "twice"},
		{name: "paths differing in case are distinct", mutate: appendTo(v1Arts, `{"path":"Conformance-statement.json","mediaType":"application/json","bytes":1,"sha256":`+otherSha+`}`), reseal: true, notCode: v1Partial},

		// g. digests
		{name: "statement evidence digest altered", mutate: set(v1Stmt+"/evidenceSha256", otherSha), want: v1Digest, detail: "statement.evidenceSha256"},
		{name: "evidence changed after sealing", mutate: set(v1Cleanup+"/durationMs", `91`), want: v1Digest, detail: "statement.evidenceSha256"},
		{name: "evidence entry digest altered", mutate: set(v1ArtEv+"/sha256", otherSha), want: v1Digest, detail: "evidence-envelope.json"},
		{name: "evidence entry size altered", mutate: set(v1ArtEv+"/bytes", `4501`), want: v1Digest, detail: "evidence-envelope.json"},
		{name: "statement entry digest altered", mutate: set(v1ArtStmt+"/sha256", otherSha), want: v1Digest, detail: "conformance-statement.json"},
		{name: "statement changed after sealing", mutate: setStr(v1Stmt+"/verifiedAt", "2026-03-14T09:32:00.000Z"), want: v1Digest, detail: "conformance-statement.json"},
		{name: "statement entry missing", mutate: remove(v1ArtStmt), reseal: true, want: v1Digest, detail: "no entry conformance-statement.json"},
		{name: "bundle digest altered", mutate: set(v1Integrity+"/bundleDigest", otherSha), want: v1Digest, detail: "bundleDigest"},
		{name: "entry media type is not checked", mutate: setStr(v1ArtEv+"/mediaType", "text/plain"), reseal: true, notCode: v1Digest},
		{name: "control: mirror fault after resealing", mutate: setStr(v1Stmt+"/subjectVersion", "3.2.1"), reseal: true, want: v1Causal, notCode: v1Digest},

		// h. mirrors
		{name: "statement subject name differs", mutate: setStr(v1Stmt+"/subjectName", "ledger-notes"), reseal: true, want: v1Causal, detail: "subjectName"},
		{name: "statement validator version differs", mutate: setStr(v1Stmt+"/validatorVersion", "0.1.1"), reseal: true, want: v1Causal, detail: "validatorVersion"},
		{name: "statement class differs", mutate: setStr(v1Stmt+"/evidenceClass", "FIXTURE_VERIFIED"), reseal: true, want: v1Causal, detail: "evidenceClass"},
		{name: "statement validator digest differs", mutate: set(v1Stmt+"/validatorSha256", otherSha), reseal: true, want: v1Causal, detail: "validatorSha256"},
		{name: "control: mirror fault without resealing", mutate: setStr(v1Stmt+"/subjectName", "ledger-notes"), want: v1Digest, notCode: v1Causal},
	}
}

func v01Build(t *testing.T, c v01Case) *canonjson.Value {
	t.Helper()
	v := v01Example(t)
	if c.mutate != nil {
		c.mutate(t, v)
	}
	if c.reseal {
		sealV01(t, v)
	}
	return v
}

// TestV01Diagnostics runs every row through package v01 and package document, and
// again after writing the bundle with Pretty and reading it back with the
// strict reader (the fault must survive a file).
func TestV01Diagnostics(t *testing.T) {
	val := validator.New()
	for _, c := range v01Cases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.notCode != "" && c.want == c.notCode {
				t.Fatalf("table error: control for %s expects it", c.notCode)
			}
			if (c.want == v1Schema) != (c.schema != nil) {
				t.Fatalf("table error: schema errors %q with %q", c.schema, c.want)
			}
			v := v01Build(t, c)
			validatortest.CheckCase(t, v, []func(*canonjson.Value) (validator.Result, error){v01.New(val).Validate, documentOf(val)},
				c.want == v1Abort, c.want, c.schema, c.detail)
		})
	}
}

// TestEveryV01CodeHasCaseAndControl: every v0.1 diagnostic has a row that
// fires it and a wrong-reason control (a nearby fault that gives another
// specific code).
func TestEveryV01CodeHasCaseAndControl(t *testing.T) {
	fires, controls, passes := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range v01Cases() {
		switch {
		case c.want != "" && c.want != v1Abort:
			fires[c.want]++
			if c.notCode != "" {
				controls[c.notCode]++
			}
		case c.notCode != "":
			passes[c.notCode]++
		}
	}
	for _, code := range v01Codes {
		if fires[code] == 0 {
			t.Errorf("%s: no row fires it", code)
		}
		if controls[code] == 0 {
			t.Errorf("%s: no wrong-reason control", code)
		}
		t.Logf("%-38s fires %2d; wrong-reason controls %2d; valid near misses %2d", code, fires[code], controls[code], passes[code])
	}
}

// TestV01ExampleLayout pins the example positions the tables address.
func TestV01ExampleLayout(t *testing.T) {
	v := v01Example(t)
	for ptr, want := range map[string]string{
		v1OpClean + "/kind":           "CLEAN_CONTROL",
		v1OpFault + "/kind":           "FAULT_CASE",
		v1OpFault + "/faultId":        "fault/append-timeout",
		v1OpRetry + "/kind":           "RECOVERY_ATTEMPT",
		v1OpRetry + "/operationId":    "op-append-note-retry",
		v1OpNeg + "/kind":             "NEGATIVE_CONTROL",
		v1Faults + "/0/id":            "fault/append-timeout",
		v1Policy + "/id":              "policy/append-retry",
		v1Policy + "/sideEffectModel": "SIDE_EFFECTING",
		v1ArtStmt + "/path":           "conformance-statement.json",
		v1ArtEv + "/path":             "evidence-envelope.json",
		v1ArtSource + "/path":         "source-evidence/wire-session.json",
		v1Req:                         "Node.js 22",
	} {
		if got := at(t, v, ptr).Str; got != want {
			t.Errorf("%s = %q, want %q", ptr, got, want)
		}
	}
	if n := len(at(t, v, v1Ops).Items); n != 4 {
		t.Errorf("%d operations, want 4", n)
	}
}

// sealV01 reproduces the digests of every valid upstream v0.1 vector, so
// the example is sealed by the same rules as upstream's.
func TestSealV01ReproducesUpstream(t *testing.T) {
	dir := upstreamV01Dir(t)
	for _, name := range upstreamV01Valid(t, dir) {
		t.Run(name, func(t *testing.T) {
			_, want, err := canonjson.ReadFile(filepath.Join(dir, "valid", name))
			if err != nil {
				t.Fatal(err)
			}
			got := want.Clone()
			zero := canonjson.NewString(strings.Repeat("0", 64))
			got.Get("statement").Set("evidenceSha256", zero)
			got.Get("integrity").Set("bundleDigest", zero)
			for _, a := range got.Path("integrity", "artifacts").Items {
				a.Set("sha256", zero)
				a.Set("bytes", canonjson.NewInt(0))
			}
			sealV01(t, got)
			if !canonjson.Equal(got, want) {
				t.Error("resealed vector differs from the upstream vector")
			}
		})
	}
}

// upstreamV01Dir returns ../shared/conformance/upstream/v0.1.0, skipping
// the test when the shared folder is absent.
func upstreamV01Dir(t testing.TB) string {
	t.Helper()
	return upstreamDir(t, "v0.1.0")
}

var upstreamV01Valid = validatortest.UpstreamV01Valid
