package official_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/official"
)

const (
	cSchema    = official.CodeSchemaInvalid
	cRevision  = official.CodeRequirementRevisionMismatch
	cLeg       = official.CodeLegNotExecuted
	cInventory = official.CodeInventoryMismatch
	cRewritten = official.CodeExpectedFailureRewritten
	cStale     = official.CodeStaleBaselineMismatch
	cDigest    = official.CodeResultDigestMismatch
	cMapping   = official.CodeMappingOverclaim
	cStatus    = official.CodeStatusMismatch
)

// officialCodes is the validator's registry of REFERENCE §5.8, in check order.
var officialCodes = []string{cSchema, cRevision, cLeg, cInventory, cRewritten, cStale, cDigest, cMapping, cStatus}

// A faultCase changes one attachment and names the single code it must
// produce ("" = valid).
type faultCase struct {
	name  string
	start func(t testing.TB) ([]byte, *canonjson.Value) // base or baselined
	edits []string                                      // pointer/JSON pairs for edit
	// reseal recomputes expectedFailureBaseline.sha256 after the edits.
	reseal bool
	// original replaces the output bytes given as the original result:
	// nil gives the real output, noOriginal gives none.
	original func([]byte) []byte
	want     string
	// detail must appear in Result.Detail (several conditions share a code).
	detail string
	// notCode marks a wrong-reason control: a nearby fault that must not
	// produce this code.
	notCode string
}

func noOriginal([]byte) []byte { return nil }

func faultCases() []faultCase {
	b, bl := base, baselined
	return []faultCase{
		{name: "clean run is valid", start: b},
		{name: "baselined failure and warning are valid", start: bl},

		// 1. Schema.
		{name: "certification claimed", start: b, edits: []string{"/mappingBoundary/officialCertificationClaim", `true`}, want: cSchema},
		{name: "official result not preserved", start: b, edits: []string{"/mappingBoundary/officialResultPreserved", `false`}, want: cSchema},
		{name: "registry-only class SIMULATED", start: b, edits: []string{"/mappingBoundary/mcpResEvidenceClass", `"SIMULATED"`}, want: cSchema, notCode: cMapping},
		{name: "unknown member", start: b, edits: []string{"/verdict", `"PASS"`}, want: cSchema},
		{name: "check reference without a colon", start: b, edits: []string{"/inventories/notScored", `["tools-call"]`}, want: cSchema},
		{name: "revision NOT_APPLICABLE", start: b, edits: []string{"/protocolRevision", `"NOT_APPLICABLE"`}, want: cSchema},
		{name: "original result of 1 byte", start: b, edits: []string{"/originalResultArtifact/bytes", `1`}, want: cSchema},
		{name: "error message of 2049 characters", start: b, edits: []string{"/checks/0/errorMessage", `"` + strings.Repeat("e", 2049) + `"`}, want: cSchema},
		{name: "duplicate scenario", start: b, edits: []string{"/scenarios/-", `"tools-call"`}, want: cSchema},

		// 2. Requirement revision.
		{name: "requirement set for another revision", start: b, edits: []string{"/requirementSet/revision", `"2026-07-28"`}, want: cRevision, notCode: cLeg},
		{name: "both moved to 2026-07-28", start: b, edits: []string{"/requirementSet/revision", `"2026-07-28"`, "/protocolRevision", `"2026-07-28"`}},

		// 3. Active leg.
		{name: "server leg not executed", start: b, edits: []string{"/legs/server", `"NOT_EXECUTED"`}, want: cLeg, notCode: cRevision},
		{name: "server leg untestable", start: b, edits: []string{"/legs/server", `"UNTESTABLE"`}, want: cLeg},
		{name: "client mode, client leg not executed", start: b, edits: []string{"/mode", `"client"`}, want: cLeg, detail: "legs.client"},
		{name: "inactive leg untestable", start: b, edits: []string{"/legs/client", `"UNTESTABLE"`}},

		// 4–5. Inventories and the baseline digest.
		{name: "duplicate check", start: b, edits: []string{"/checks/-", `{"scenarioId":"tools-call","checkId":"tools-list-schema","outcome":"SUCCESS","wireSchema":false,"baselineExpected":false,"detailsSha256":"` + text("x") + `"}`}, want: cInventory, detail: "appears twice"},
		{name: "executed inventory unsorted", start: b, edits: []string{"/inventories/executed", `["tools-call:wire-schema-tools-call-request","tools-call:initialize-handshake","tools-call:tools-call-error-shape","tools-call:tools-list-schema"]`}, want: cInventory, detail: "inventories.executed"},
		{name: "executed inventory misses a check", start: b, edits: []string{"/inventories/executed/3", ""}, want: cInventory, detail: "inventories.executed"},
		{name: "executed check not declared", start: b, edits: []string{"/inventories/declared/0", ""}, want: cInventory, detail: "not declared"},
		{name: "wire-schema inventory empty", start: b, edits: []string{"/inventories/wireSchema", `[]`}, want: cInventory, detail: "inventories.wireSchema"},
		{name: "warning-inventory mutant", start: bl, edits: []string{"/inventories/warnings", `[]`}, want: cInventory, detail: "inventories.warnings"},
		{name: "skipped check hidden", start: b, edits: []string{"/checks/1/outcome", `"SKIPPED"`}, want: cInventory, detail: "inventories.skipped"},
		{name: "untestable check hidden", start: b, edits: []string{"/checks/1/untestable", `true`}, want: cInventory, detail: "inventories.untestable"},
		{name: "explicit untestable false needs no entry", start: b, edits: []string{"/checks/1/untestable", `false`}},
		{name: "declared check missing from pending", start: b, edits: []string{"/inventories/declared/-", `"tools-call:zz-declared-only"`, "/importStatus", `"INCOMPLETE"`}, want: cInventory, detail: "inventories.pending"},
		{name: "pending in declared order, not sorted", start: b,
			edits: []string{"/inventories/declared", `["tools-call:initialize-handshake","tools-call:tools-call-error-shape","tools-call:tools-list-schema","tools-call:wire-schema-tools-call-request","tools-call:zz-b","tools-call:zz-a"]`,
				"/inventories/pending", `["tools-call:zz-b","tools-call:zz-a"]`, "/importStatus", `"INCOMPLETE"`},
			want: cInventory, detail: "inventories.pending"},
		{name: "pending sorted while declared is not", start: b,
			edits: []string{"/inventories/declared", `["tools-call:initialize-handshake","tools-call:tools-call-error-shape","tools-call:tools-list-schema","tools-call:wire-schema-tools-call-request","tools-call:zz-b","tools-call:zz-a"]`,
				"/inventories/pending", `["tools-call:zz-a","tools-call:zz-b"]`, "/importStatus", `"INCOMPLETE"`}},
		{name: "pending sorted by UTF-16 code units", start: b,
			edits: []string{"/inventories/declared/-", `"tools-call:\ue000"`, "/inventories/declared/-", `"tools-call:😀"`,
				"/inventories/pending", `["tools-call:😀","tools-call:\ue000"]`, "/importStatus", `"INCOMPLETE"`}},
		{name: "pending sorted by code points", start: b,
			edits: []string{"/inventories/declared/-", `"tools-call:\ue000"`, "/inventories/declared/-", `"tools-call:😀"`,
				"/inventories/pending", `["tools-call:\ue000","tools-call:😀"]`, "/importStatus", `"INCOMPLETE"`},
			want: cInventory, detail: "inventories.pending"},
		{name: "baseline digest stale", start: bl, edits: []string{"/expectedFailureBaseline/entries/1", ""}, want: cInventory, detail: "expectedFailureBaseline.sha256", notCode: cRewritten},
		{name: "baseline digest of zeros", start: b, edits: []string{"/expectedFailureBaseline/sha256", `"` + strings.Repeat("0", 64) + `"`}, want: cInventory, detail: "expectedFailureBaseline.sha256"},

		// 6. Expected failures are never rewritten.
		{name: "expected failure rewritten as success", start: bl, edits: []string{"/checks/4/outcome", `"SUCCESS"`}, want: cRewritten, detail: "its outcome is SUCCESS", notCode: cStale},
		{name: "unbaselined failure marked expected", start: b, edits: []string{"/checks/0/outcome", `"FAILURE"`, "/checks/0/baselineExpected", `true`}, want: cRewritten, detail: "not in the expected-failure baseline"},
		{name: "baselined failure not marked expected", start: bl, edits: []string{"/checks/4/baselineExpected", `false`}, want: cRewritten, detail: "it is a baselined FAILURE"},
		{name: "baselined check passing, baseline not stale-listed", start: bl,
			edits: []string{"/checks/4/outcome", `"SUCCESS"`, "/checks/4/baselineExpected", `false`}, want: cStale, notCode: cRewritten},

		// 7. Stale baseline entries.
		{name: "stale entry listed in stale order", start: bl,
			edits: []string{"/checks/4/outcome", `"SUCCESS"`, "/checks/4/baselineExpected", `false`, "/staleExpectedFailures", `["tools-call:tools-call-cancellation"]`, "/importStatus", `"INCOMPLETE"`}},
		{name: "stale entry listed, status claims complete", start: bl,
			edits: []string{"/checks/4/outcome", `"SUCCESS"`, "/checks/4/baselineExpected", `false`, "/staleExpectedFailures", `["tools-call:tools-call-cancellation"]`},
			want:  cStatus, notCode: cStale},
		{name: "failing entry listed as stale", start: bl, edits: []string{"/staleExpectedFailures", `["tools-call:tools-call-cancellation"]`}, want: cStale},
		{name: "baseline entry never emitted is stale", start: b,
			edits: []string{"/expectedFailureBaseline/entries", `["tools-call:not-emitted"]`}, reseal: true, want: cStale, notCode: cStatus},
		{name: "two stale entries out of baseline order", start: b,
			edits:  []string{"/expectedFailureBaseline/entries", `["tools-call:a","tools-call:b"]`, "/staleExpectedFailures", `["tools-call:b","tools-call:a"]`, "/importStatus", `"INCOMPLETE"`},
			reseal: true, want: cStale},
		{name: "two stale entries in baseline order", start: b,
			edits:  []string{"/expectedFailureBaseline/entries", `["tools-call:a","tools-call:b"]`, "/staleExpectedFailures", `["tools-call:a","tools-call:b"]`, "/importStatus", `"INCOMPLETE"`},
			reseal: true},

		// 8. Original result bytes.
		{name: "altered output", start: b, original: func(o []byte) []byte { return append(append([]byte{}, o[:len(o)-2]...), ' ', o[len(o)-1]) }, want: cDigest, detail: "digests to"},
		{name: "output with a trailing byte", start: b, original: func(o []byte) []byte { return append(append([]byte{}, o...), '\n') }, want: cDigest},
		{name: "recorded length wrong", start: b, edits: []string{"/originalResultArtifact/bytes", `2`}, want: cDigest, detail: "bytes"},
		{name: "recorded length wrong, no original given", start: b, edits: []string{"/originalResultArtifact/bytes", `2`}, original: noOriginal},
		{name: "original fine, class overclaimed", start: b, edits: []string{"/mappingBoundary/mcpResEvidenceClass", `"FIXTURE_VERIFIED"`}, want: cMapping, notCode: cDigest},

		// 9. Mapping.
		{name: "class without explicit mapping", start: b, edits: []string{"/mappingBoundary/mcpResEvidenceClass", `"GENUINE_RUNTIME"`}, want: cMapping, notCode: cSchema},
		{name: "class with explicit mapping (upstream accepts)", start: b, edits: []string{"/mappingBoundary/explicitMapping", `true`, "/mappingBoundary/mcpResEvidenceClass", `"GENUINE_RUNTIME"`}},
		{name: "explicit mapping without a class", start: b, edits: []string{"/mappingBoundary/explicitMapping", `true`}},

		// 10. Derived status.
		{name: "complete claimed with pending checks", start: b,
			edits: []string{"/inventories/declared/-", `"tools-call:zz-pending"`, "/inventories/pending", `["tools-call:zz-pending"]`}, want: cStatus, detail: "pending is not empty", notCode: cInventory},
		{name: "complete claimed after harness crash", start: b, edits: []string{"/harness/exitCode", `-1`}, want: cStatus, detail: "exited with -1"},
		{name: "incomplete after harness crash", start: b, edits: []string{"/harness/exitCode", `139`, "/importStatus", `"INCOMPLETE"`}},
		{name: "complete claimed with an unknown surface", start: b, edits: []string{"/observationCoverage/1/status", `"UNKNOWN"`}, want: cStatus, detail: "UNKNOWN"},
		{name: "complete claimed with an uninstrumented surface", start: b, edits: []string{"/observationCoverage/0/status", `"UNINSTRUMENTED"`}, want: cStatus},
		{name: "bypassed surface stays complete", start: b, edits: []string{"/observationCoverage/0/status", `"BYPASSED_INTENTIONALLY"`}},
		{name: "complete claimed with not-scored checks", start: b, edits: []string{"/inventories/notScored", `["tools-call:tools-call-error-shape"]`}, want: cStatus},
		{name: "incomplete claimed on a complete run", start: b, edits: []string{"/importStatus", `"INCOMPLETE"`}, want: cStatus, detail: "derived status is COMPLETE"},
		{name: "unexpected failure claimed complete", start: b,
			edits: []string{"/checks/0/outcome", `"FAILURE"`}, want: cStatus, detail: "unexpected FAILURE"},
		{name: "unexpected warning recorded as INVALID", start: b,
			edits: []string{"/checks/0/outcome", `"WARNING"`, "/inventories/warnings", `["tools-call:initialize-handshake"]`, "/importStatus", `"INVALID"`}},
		{name: "invalid outranks incomplete", start: b,
			edits: []string{"/checks/0/outcome", `"FAILURE"`, "/harness/exitCode", `1`, "/importStatus", `"INCOMPLETE"`}, want: cStatus, detail: "derived status is INVALID"},
	}
}

func resealBaseline(t testing.TB, doc *canonjson.Value) {
	t.Helper()
	sum, _, err := canonjson.Digest(doc.Path("expectedFailureBaseline", "entries"))
	if err != nil {
		t.Fatal(err)
	}
	doc.Get("expectedFailureBaseline").Set("sha256", canonjson.NewString(sum))
}

func checkResult(t testing.TB, r official.Result, err error, want, detail string) {
	t.Helper()
	if err != nil {
		t.Fatalf("aborted: %v", err)
	}
	if want == "" {
		if !r.Valid || len(r.Diagnostics) != 0 || len(r.SchemaErrors) != 0 {
			t.Fatalf("got %v (%s), want valid", r.Diagnostics, r.Detail)
		}
		return
	}
	if r.Valid || !slices.Equal(r.Diagnostics, []string{want}) {
		t.Fatalf("got valid=%t %v (%s), want %s", r.Valid, r.Diagnostics, r.Detail, want)
	}
	if (want == cSchema) != (len(r.SchemaErrors) > 0) {
		t.Errorf("schema errors %v with %s", r.SchemaErrors, want)
	}
	if !strings.Contains(r.Detail, detail) {
		t.Errorf("detail %q does not name %q", r.Detail, detail)
	}
	if r.Extra != nil {
		t.Errorf("invalid result carries mode members %v", r.Extra)
	}
}

// TestDiagnostics runs every row, directly and after a round trip through
// the pretty layout and the strict reader.
func TestDiagnostics(t *testing.T) {
	val := testValidator(t)
	for _, c := range faultCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.notCode != "" && c.notCode == c.want {
				t.Fatalf("table error: control for %s expects it", c.notCode)
			}
			out, doc := c.start(t)
			doc = edit(t, doc, c.edits...)
			if c.reseal {
				resealBaseline(t, doc)
			}
			orig := out
			if c.original != nil {
				orig = c.original(out)
			}
			opts := official.Options{}
			if orig != nil {
				opts.OriginalResult = &official.OriginalResult{Bytes: orig}
			}
			r, err := val.Validate(doc, opts)
			checkResult(t, r, err, c.want, c.detail)

			pretty, err := canonjson.Pretty(doc)
			if err != nil {
				t.Fatal(err)
			}
			r, err = val.Validate(parse(t, string(pretty)), opts)
			checkResult(t, r, err, c.want, c.detail)
		})
	}
}

// TestEveryCodeHasCaseAndControl: every official diagnostic has a row that
// fires it and a wrong-reason control (a nearby fault that must produce a
// different code).
func TestEveryCodeHasCaseAndControl(t *testing.T) {
	fires, controls := map[string]int{}, map[string]int{}
	for _, c := range faultCases() {
		if c.want != "" {
			fires[c.want]++
			if c.notCode != "" {
				controls[c.notCode]++
			}
		}
	}
	for _, code := range officialCodes {
		if fires[code] == 0 {
			t.Errorf("%s: no row fires it", code)
		}
		if controls[code] == 0 {
			t.Errorf("%s: no wrong-reason control", code)
		}
	}
}

// TestValidResultObject checks the result object of REFERENCE §5.5, member
// by member and in order.
func TestValidResultObject(t *testing.T) {
	_, doc := base(t)
	r, err := testValidator(t).Validate(doc, official.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"valid":true,"diagnostics":[],"schemaErrors":[],"importStatus":"COMPLETE","officialCertificationClaim":false}`
	if got := compact(t, r.Value()); got != want {
		t.Errorf("result %s\nwant   %s", got, want)
	}
	r, err = testValidator(t).Validate(edit(t, doc, "/suite", `""`), official.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"valid":false,"diagnostics":["MCP_RES_OFFICIAL_ATTACHMENT_SCHEMA_INVALID"],"schemaErrors":[{"instancePath":"/suite","keyword":"minLength",`
	if got := compact(t, r.Value()); !strings.HasPrefix(got, want) {
		t.Errorf("result %s\nwant prefix %s", got, want)
	}
}

// TestSchemaErrorsAreAllReported: the schema step reports every violation
// in document order, not only the first.
func TestSchemaErrorsAreAllReported(t *testing.T) {
	_, doc := base(t)
	doc = edit(t, doc, "/mode", `"both"`, "/mappingBoundary/officialCertificationClaim", `true`)
	r, err := testValidator(t).Validate(doc, official.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range r.SchemaErrors {
		got = append(got, e.InstancePath+" "+e.Keyword)
	}
	want := []string{"/mode enum", "/mappingBoundary/officialCertificationClaim const"}
	if !slices.Equal(got, want) {
		t.Errorf("schema errors %q, want %q", got, want)
	}
}

// TestNonObjectInputs never abort: every shape is a schema diagnostic.
func TestNonObjectInputs(t *testing.T) {
	for _, s := range []string{`null`, `[]`, `"x"`, `1`, `{}`, `{"schemaVersion":"mcp-res.official-conformance-attachment/0.2.0"}`} {
		r, err := testValidator(t).Validate(parse(t, s), official.Options{})
		checkResult(t, r, err, cSchema, "")
	}
	r, err := testValidator(t).Validate(nil, official.Options{})
	checkResult(t, r, err, cSchema, "")
}
