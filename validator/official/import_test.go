package official_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/official"
)

func strs(v *canonjson.Value) []string {
	out := []string{}
	for _, it := range v.Items {
		out = append(out, it.Str)
	}
	return out
}

func digestOf(t testing.TB, s string) string {
	t.Helper()
	sum, _, err := canonjson.Digest(parse(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// validateImported checks that an imported attachment validates, with the
// output as its original result, and returns the result.
func validateImported(t testing.TB, out []byte, doc *canonjson.Value) official.Result {
	t.Helper()
	r, err := testValidator(t).Validate(doc, official.Options{OriginalResult: &official.OriginalResult{Bytes: out}})
	if err != nil || !r.Valid {
		t.Fatalf("imported attachment: %v %v (%s)", err, r.Diagnostics, r.Detail)
	}
	return r
}

// TestImportPreservesOutcomes: every official status is copied verbatim and
// never rewritten; an unexpected failure makes the record INVALID but the
// attachment itself valid.
func TestImportPreservesOutcomes(t *testing.T) {
	out := toolOutput(t,
		toolCheck{id: "a-success", status: "SUCCESS"},
		toolCheck{id: "b-failure", status: "FAILURE", errorMessage: "boom"},
		toolCheck{id: "c-warning", status: "WARNING"},
		toolCheck{id: "d-skipped", status: "SKIPPED"},
		toolCheck{id: "e-info", status: "INFO"},
	)
	doc := importDoc(t, out, parse(t, baseConfigText()))
	var got []string
	for _, c := range doc.Get("checks").Items {
		got = append(got, c.Get("checkId").Str+"="+c.Get("outcome").Str)
		if c.Get("baselineExpected").Bool {
			t.Errorf("%s marked expected without a baseline", c.Get("checkId").Str)
		}
	}
	want := []string{"a-success=SUCCESS", "b-failure=FAILURE", "c-warning=WARNING", "d-skipped=SKIPPED", "e-info=INFO"}
	if !slices.Equal(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if s := doc.Get("importStatus").Str; s != official.StatusInvalid {
		t.Errorf("importStatus %s, want INVALID", s)
	}
	if w := strs(doc.Path("inventories", "warnings")); !slices.Equal(w, []string{"tools-call:c-warning"}) {
		t.Errorf("warnings %v", w)
	}
	if s := strs(doc.Path("inventories", "skipped")); !slices.Equal(s, []string{"tools-call:d-skipped"}) {
		t.Errorf("skipped %v", s)
	}
	r := validateImported(t, out, doc)
	if r.ImportStatus != official.StatusInvalid {
		t.Errorf("result importStatus %s", r.ImportStatus)
	}
}

// TestImportCheckFields covers the per-check rules of REFERENCE §8.1.
func TestImportCheckFields(t *testing.T) {
	out := toolOutput(t,
		toolCheck{id: "wire-schema-request", status: "SUCCESS"},
		toolCheck{id: "wire-schemas-not-a-prefix", status: "SUCCESS"},
		toolCheck{id: "untestable-true", status: "SKIPPED", details: `{"untestable":true,"why":"no stdio"}`},
		toolCheck{id: "untestable-string", status: "SKIPPED", details: `{"untestable":"true"}`},
		toolCheck{id: "untestable-false", status: "SKIPPED", details: `{"untestable":false}`},
		toolCheck{id: "null-details", status: "SUCCESS", details: `null`},
		toolCheck{id: "array-details", status: "SUCCESS", details: `[1,2]`},
		toolCheck{id: "other-scenario", status: "SUCCESS", scenario: "prompts-get"},
	)
	// A non-string errorMessage and a non-string metadata.scenario are
	// ignored: patch them in directly.
	raw := parse(t, string(out))
	raw.Items[0].Set("errorMessage", canonjson.NewInt(7))
	raw.Items[1].Set("metadata", parse(t, `{"scenario":42}`))
	out, err := canonjson.Pretty(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc := importDoc(t, out, parse(t, baseConfigText()))
	checks := map[string]*canonjson.Value{}
	for _, c := range doc.Get("checks").Items {
		checks[c.Get("checkId").Str] = c
	}
	for id, want := range map[string]bool{"wire-schema-request": true, "wire-schemas-not-a-prefix": false} {
		if got := checks[id].Get("wireSchema").Bool; got != want {
			t.Errorf("%s wireSchema %t", id, got)
		}
	}
	for id, want := range map[string]bool{"untestable-true": true, "untestable-string": false, "untestable-false": false} {
		if got := checks[id].Has("untestable"); got != want {
			t.Errorf("%s has untestable: %t, want %t", id, got, want)
		}
	}
	if checks["untestable-true"].Get("untestable").Bool != true {
		t.Error("untestable is not true")
	}
	if checks["wire-schema-request"].Has("errorMessage") {
		t.Error("non-string errorMessage copied")
	}
	if got := checks["wire-schema-request"].Get("detailsSha256").Str; got != digestOf(t, `{}`) {
		t.Errorf("absent details digest %s, want sha256({})", got)
	}
	if got := checks["null-details"].Get("detailsSha256").Str; got != digestOf(t, `{}`) {
		t.Errorf("null details digest %s, want sha256({})", got)
	}
	if got := checks["array-details"].Get("detailsSha256").Str; got != digestOf(t, `[1,2]`) {
		t.Errorf("array details digest %s", got)
	}
	if got := checks["untestable-true"].Get("detailsSha256").Str; got != digestOf(t, `{"why":"no stdio","untestable":true}`) {
		t.Errorf("details digest %s is not canonical", got)
	}
	if got := checks["wire-schemas-not-a-prefix"].Get("scenarioId").Str; got != "tools-call" {
		t.Errorf("non-string metadata.scenario gave scenario %q", got)
	}
	if got := checks["other-scenario"].Get("scenarioId").Str; got != "prompts-get" {
		t.Errorf("metadata.scenario gave %q", got)
	}
	if got := strs(doc.Get("scenarios")); !slices.Equal(got, []string{"prompts-get", "tools-call"}) {
		t.Errorf("scenarios %v", got)
	}
	if got := strs(doc.Path("inventories", "untestable")); !slices.Equal(got, []string{"tools-call:untestable-true"}) {
		t.Errorf("untestable inventory %v", got)
	}
	if got := strs(doc.Path("inventories", "wireSchema")); !slices.Equal(got, []string{"tools-call:wire-schema-request"}) {
		t.Errorf("wireSchema inventory %v", got)
	}
	r := validateImported(t, out, doc)
	if r.ImportStatus != official.StatusIncomplete {
		t.Errorf("importStatus %s, want INCOMPLETE (skipped and untestable checks)", r.ImportStatus)
	}
}

// TestImportInventories: declared, pending, not-scored and baseline lists
// are sorted, de-duplicated and merged as REFERENCE §8.1 says.
func TestImportInventories(t *testing.T) {
	out := toolOutput(t,
		toolCheck{id: "b", status: "SUCCESS"},
		toolCheck{id: "a", status: "FAILURE"},
		toolCheck{id: "c", status: "WARNING"},
	)
	cfg := edit(t, parse(t, baseConfigText()),
		"/expectedChecks", `["tools-call:z-never","tools-call:c","tools-call:a","tools-call:b","tools-call:a","tools-call:y-never"]`,
		"/pending", `["tools-call:x-later","tools-call:z-never"]`,
		"/notScored", `["tools-call:c","tools-call:c"]`,
		"/expectedFailureBaseline", `["tools-call:c","tools-call:a","tools-call:stale","tools-call:b","tools-call:a"]`,
		"/scenarios", `["zeta","tools-call"]`,
	)
	doc := importDoc(t, out, cfg)
	for ptr, want := range map[string][]string{
		"declared":  {"tools-call:a", "tools-call:b", "tools-call:c", "tools-call:y-never", "tools-call:z-never"},
		"executed":  {"tools-call:a", "tools-call:b", "tools-call:c"},
		"pending":   {"tools-call:x-later", "tools-call:y-never", "tools-call:z-never"},
		"notScored": {"tools-call:c"},
		"warnings":  {"tools-call:c"},
	} {
		if got := strs(doc.Path("inventories", ptr)); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", ptr, got, want)
		}
	}
	entries := []string{"tools-call:a", "tools-call:b", "tools-call:c", "tools-call:stale"}
	if got := strs(doc.Path("expectedFailureBaseline", "entries")); !slices.Equal(got, entries) {
		t.Errorf("baseline %v", got)
	}
	if got := doc.Path("expectedFailureBaseline", "sha256").Str; got != digestOf(t, `["tools-call:a","tools-call:b","tools-call:c","tools-call:stale"]`) {
		t.Errorf("baseline digest %s", got)
	}
	if got := strs(doc.Get("staleExpectedFailures")); !slices.Equal(got, []string{"tools-call:b", "tools-call:stale"}) {
		t.Errorf("stale %v", got)
	}
	expected := map[string]bool{}
	for _, c := range doc.Get("checks").Items {
		expected[c.Get("checkId").Str] = c.Get("baselineExpected").Bool
	}
	if !expected["a"] || expected["b"] || !expected["c"] {
		t.Errorf("baselineExpected %v: only the baselined FAILURE and WARNING may be expected", expected)
	}
	if got := strs(doc.Get("scenarios")); !slices.Equal(got, []string{"tools-call", "zeta"}) {
		t.Errorf("scenarios %v", got)
	}
	// A configured pending check that was executed makes the attachment
	// dishonest: Import builds it, validation refuses it.
	r, err := testValidator(t).Validate(doc, official.Options{})
	if err != nil || !slices.Equal(r.Diagnostics, []string{cInventory}) {
		t.Errorf("x-later is pending but never declared: got %v %v (%s), want %s", err, r.Diagnostics, r.Detail, cInventory)
	}
	cfg = edit(t, cfg, "/pending", `["tools-call:z-never"]`)
	r = validateImported(t, out, importDoc(t, out, cfg))
	if r.ImportStatus != official.StatusIncomplete {
		t.Errorf("importStatus %s, want INCOMPLETE", r.ImportStatus)
	}
}

// TestImportArtifact: the original result defaults to the raw output's
// digest and length; configuration may override both and the sanitization.
func TestImportArtifact(t *testing.T) {
	out, doc := base(t)
	art := doc.Get("originalResultArtifact")
	if got := compact(t, art); got != `{"sha256":"`+canonjson.BytesDigest(out)+`","bytes":`+itoa(len(out))+`,"sanitization":{"applied":false,"fields":[]}}` {
		t.Errorf("default artifact %s", got)
	}
	cfg := edit(t, parse(t, baseConfigText()),
		"/originalResultArtifact", `{"sha256":"`+text("unsanitized original")+`","bytes":4096}`,
		"/sanitization", `{"applied":true,"fields":["details.serverInfo.name"]}`)
	doc = importDoc(t, out, cfg)
	if got := compact(t, doc.Get("originalResultArtifact")); got != `{"sha256":"`+text("unsanitized original")+`","bytes":4096,"sanitization":{"applied":true,"fields":["details.serverInfo.name"]}}` {
		t.Errorf("configured artifact %s", got)
	}
	r, err := testValidator(t).Validate(doc, official.Options{OriginalResult: &official.OriginalResult{Bytes: out}})
	if err != nil || !slices.Equal(r.Diagnostics, []string{cDigest}) {
		t.Errorf("sanitized output checked against the unsanitized digest: %v %v", err, r.Diagnostics)
	}
	if got := compact(t, doc.Get("mappingBoundary")); got != `{"officialResultPreserved":true,"explicitMapping":false,"mcpResEvidenceClass":null,"officialCertificationClaim":false}` {
		t.Errorf("mappingBoundary %s", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestImportMemberOrder: members follow REFERENCE §3.4.
func TestImportMemberOrder(t *testing.T) {
	_, doc := base(t)
	var got []string
	for _, m := range doc.Members {
		got = append(got, m.Key)
	}
	want := []string{"schemaVersion", "source", "protocolRevision", "requirementSet", "mode", "suite", "legs",
		"scenarios", "checks", "inventories", "expectedFailureBaseline", "staleExpectedFailures",
		"observationCoverage", "originalResultArtifact", "harness", "mappingBoundary", "importStatus"}
	if !slices.Equal(got, want) {
		t.Errorf("members %v\nwant    %v", got, want)
	}
	var keys []string
	for _, m := range doc.Get("checks").Items[0].Members {
		keys = append(keys, m.Key)
	}
	if !slices.Equal(keys, []string{"scenarioId", "checkId", "outcome", "wireSchema", "baselineExpected", "detailsSha256"}) {
		t.Errorf("check members %v", keys)
	}
}

// TestImportRefusals: malformed output is MCP_RES_OFFICIAL_INPUT_INVALID,
// an undeclared emitted check MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE.
func TestImportRefusals(t *testing.T) {
	cfg, err := testValidator(t).ParseImportConfig(parse(t, baseConfigText()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range official.MaxImportChecks + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":"c` + itoa(i) + `","status":"SUCCESS"}`)
	}
	b.WriteString("]")
	for _, tc := range []struct {
		name, output, code, detail string
	}{
		{"object, not array", `{"checks":[]}`, official.CodeImportInputInvalid, "not an array"},
		{"element not an object", `[{"id":"a","status":"SUCCESS"},"b"]`, official.CodeImportInputInvalid, "check 1 is not an object"},
		{"missing id", `[{"status":"SUCCESS"}]`, official.CodeImportInputInvalid, "no string id"},
		{"numeric id", `[{"id":1,"status":"SUCCESS"}]`, official.CodeImportInputInvalid, "no string id"},
		{"lowercase status", `[{"id":"a","status":"success"}]`, official.CodeImportInputInvalid, "no status"},
		{"status PASS", `[{"id":"a","status":"PASS"}]`, official.CodeImportInputInvalid, "no status"},
		{"missing status", `[{"id":"a"}]`, official.CodeImportInputInvalid, "no status"},
		{"duplicate reference", `[{"id":"a","status":"SUCCESS"},{"id":"a","status":"FAILURE"}]`, official.CodeImportInputInvalid, "appears twice"},
		{"duplicate via metadata", `[{"id":"a","status":"SUCCESS"},{"id":"a","status":"SUCCESS","metadata":{"scenario":"tools-call"}}]`, official.CodeImportInputInvalid, "appears twice"},
		{"float in details", `[{"id":"a","status":"SUCCESS","details":{"ms":1.5}}]`, official.CodeImportInputInvalid, "not strict JSON"},
		{"duplicate key", `[{"id":"a","id":"b","status":"SUCCESS"}]`, official.CodeImportInputInvalid, "not strict JSON"},
		{"too many checks", b.String(), official.CodeImportInputInvalid, "more than 4096"},
		{"not JSON", "PK\x03\x04", official.CodeImportInputInvalid, "not strict JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := official.Import([]byte(tc.output), cfg)
			var ie *official.ImportError
			if !errors.As(err, &ie) || ie.Code != tc.code || !strings.Contains(ie.Reason, tc.detail) {
				t.Fatalf("got %v, want %s (%s)", err, tc.code, tc.detail)
			}
		})
	}
	// Same check id in two scenarios is two checks.
	if _, err := official.Import([]byte(`[{"id":"a","status":"SUCCESS"},{"id":"a","status":"SUCCESS","metadata":{"scenario":"other"}}]`), cfg); err != nil {
		t.Errorf("same id, two scenarios: %v", err)
	}
	declared := *cfg
	declared.ExpectedChecks = []string{"tools-call:a"}
	_, err = official.Import([]byte(`[{"id":"a","status":"SUCCESS"},{"id":"b","status":"SUCCESS"}]`), &declared)
	var ie *official.ImportError
	if !errors.As(err, &ie) || ie.Code != official.CodeCoverageIncomplete || !strings.Contains(ie.Reason, `"tools-call:b"`) {
		t.Errorf("undeclared emitted check: got %v, want %s", err, official.CodeCoverageIncomplete)
	}
	// An empty output imports, but the attachment needs at least one check.
	doc, err := official.Import([]byte(`[]`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := testValidator(t).Validate(doc, official.Options{})
	if err != nil || !slices.Equal(r.Diagnostics, []string{cSchema}) {
		t.Errorf("empty output: %v %v", err, r.Diagnostics)
	}
}

// TestImportConfigSchema: the configuration is checked before use.
func TestImportConfigSchema(t *testing.T) {
	for _, tc := range []struct{ name, ptr, val, detail string }{
		{"missing harness", "/harness", "", "harness"},
		{"unknown member", "/importStatus", `"COMPLETE"`, "importStatus"},
		{"status configured", "/mappingBoundary", `{}`, "mappingBoundary"},
		{"bad reference", "/pending", `["no-colon"]`, "/pending/0"},
		{"wrong version", "/schemaVersion", `"mcpres.official-import-config/v2"`, "/schemaVersion"},
		{"one-sided override", "/originalResultArtifact", `{"sha256":"` + text("x") + `"}`, "/originalResultArtifact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testValidator(t).ParseImportConfig(edit(t, parse(t, baseConfigText()), tc.ptr, tc.val))
			var ie *validator.InputError
			if !errors.As(err, &ie) || !strings.Contains(ie.Reason, tc.detail) {
				t.Fatalf("got %v, want an InputError naming %s", err, tc.detail)
			}
		})
	}
}

// TestImportedAttachmentsValidate: the two base runs import to valid,
// COMPLETE attachments that name their outcomes verbatim.
func TestImportedAttachmentsValidate(t *testing.T) {
	for name, f := range map[string]func(testing.TB) ([]byte, *canonjson.Value){"base": base, "baselined": baselined} {
		out, doc := f(t)
		if r := validateImported(t, out, doc); r.ImportStatus != official.StatusComplete {
			t.Errorf("%s: importStatus %s", name, r.ImportStatus)
		}
	}
}

// TestReadOriginalResult: the file rules of REFERENCE §5.5 for
// --original-result: any bytes, but a regular file within 64 MiB.
func TestReadOriginalResult(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(p, []byte("\xff\xfe not JSON"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := official.ReadOriginalResult(p)
	if err != nil || string(o.Bytes) != "\xff\xfe not JSON" {
		t.Fatalf("raw bytes: %v %q", err, o)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := official.ReadOriginalResult(empty); err != nil || o == nil || len(o.Bytes) != 0 {
		t.Errorf("empty file: %v %v", o, err)
	}
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(official.MaxOriginalResultBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"too large": big, "symbolic link": link, "directory": dir, "missing": filepath.Join(dir, "nope")} {
		_, err := official.ReadOriginalResult(path)
		var ie *validator.InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(ie.Reason, "original result: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := os.Truncate(big, official.MaxOriginalResultBytes); err != nil {
		t.Fatal(err)
	}
	if o, err := official.ReadOriginalResult(big); err != nil || len(o.Bytes) != official.MaxOriginalResultBytes {
		t.Errorf("64 MiB exactly: %v", err)
	}
}
