package migration_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/migrate"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/migration"
	"github.com/mcpres/mcpres/validator/v01"
	"github.com/mcpres/mcpres/validator/validatortest"
)

// Diagnostic codes of the migration-result validator, shortened.
const (
	mSchema    = migration.CodeSchemaInvalid
	mSource    = migration.CodeSourceInvalid
	mDigest    = migration.CodeDigestMismatch
	mPromotion = migration.CodeClassPromotion
	mFabricate = migration.CodeFabrication
)

var migrationCodes = []string{mSchema, mSource, mDigest, mPromotion, mFabricate}

// corpusToolSHA256 stands in for migration.tool.sha256 in the committed
// migration corpus: sha256("mcp-res-migrate@0.2.0\n") (REFERENCE §2.3
// convention). A real migration records the digest of the executable that
// ran, which no fixture can know (REFERENCE §10 row 30).
var corpusToolSHA256 = canonjson.TextDigest(migrate.ToolName + "@" + migrate.ToolVersion + "\n")

// migrationOf builds the migration result of a committed v0.1 example, as
// `mcpres migrate` writes it with the corpus tool digest.
func migrationOf(t testing.TB, file string) *canonjson.Value {
	t.Helper()
	raw, v, err := canonjson.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return migrate.JSOrder(migrate.Build(raw, v, corpusToolSHA256))
}

// The migration corpus of REFERENCE §9.5 (upstream generates it and names
// only its cases): each case is the migration of the fixture-backed v0.1
// example with at most one fault.
var migrationCorpus = []struct {
	id     string
	mutate mutator
	want   string
}{
	{"valid-migration", nil, ""},
	{"digest-substitution", all(set("/source/evidenceSha256", otherSha), set("/report/preservedEvidenceSha256", otherSha)), mDigest},
	{"evidence-class-promotion", all(set("/target/evidenceClass", `"GENUINE_RUNTIME"`), set("/report/preservedEvidenceClass", `"GENUINE_RUNTIME"`)), mPromotion},
	// Claims every requirement but one resolved, while target keeps the list.
	{"fabricated-completion", set("/report/unresolvedRequirements", `["AUTHENTICITY_EVIDENCE"]`), mFabricate},
	{"invalid-embedded-source", set("/originalBundle/evidence/cleanup/complete", `false`), mSource},
}

var migrationCorpusDir = "testdata"

// TestMigrationCorpus writes (under -update) and checks the committed
// corpus: each file is exactly its construction, the catalog (REFERENCE
// §3.8 shape) pins every file's raw SHA-256 and expected diagnostics, and
// every case gives exactly those diagnostics through package migration and
// package document.
func TestMigrationCorpus(t *testing.T) {
	catalog := lit(t, `{"schemaVersion":"mcp-res.migration-test-corpus/0.2.0","canonicalizationAlgorithm":"mcp-res-json-utf16-v1","valid":[],"invalid":[]}`)
	for _, c := range migrationCorpus {
		v := migrationOf(t, v01FixtureBackedFile)
		if c.mutate != nil {
			c.mutate(t, v)
		}
		data := pretty(t, v)
		group, diags := "valid", "[]"
		if c.want != "" {
			group, diags = "invalid", `["`+c.want+`"]`
		}
		path := group + "/" + c.id + ".json"
		syncFile(t, filepath.Join(migrationCorpusDir, filepath.FromSlash(path)), data)
		entry := lit(t, `{"id":"`+c.id+`","path":"`+path+`","expectedDiagnostics":`+diags+`}`)
		entry.Set("fileSha256", canonjson.NewString(canonjson.BytesDigest(data)))
		arr := catalog.Get(group)
		arr.Items = append(arr.Items, entry)
	}
	syncFile(t, filepath.Join(migrationCorpusDir, "catalog.json"), pretty(t, catalog))

	_, cat, err := canonjson.ReadFile(filepath.Join(migrationCorpusDir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	val := validator.New()
	n := 0
	for _, group := range []string{"valid", "invalid"} {
		for _, e := range cat.Get(group).Items {
			n++
			t.Run(e.Get("id").Str, func(t *testing.T) {
				raw, doc, err := canonjson.ReadFile(filepath.Join(migrationCorpusDir, filepath.FromSlash(e.Get("path").Str)))
				if err != nil {
					t.Fatal(err)
				}
				if got := canonjson.BytesDigest(raw); got != e.Get("fileSha256").Str {
					t.Fatalf("file SHA-256 %s, catalog says %s", got, e.Get("fileSha256").Str)
				}
				var want []string
				for _, d := range e.Get("expectedDiagnostics").Items {
					want = append(want, d.Str)
				}
				for _, f := range []func(*canonjson.Value) (validator.Result, error){migration.New(val).Validate, documentOf(val)} {
					r, err := f(doc)
					checkResult(t, r, err, want, nil, "")
				}
			})
		}
	}
	if n != len(migrationCorpus) {
		t.Errorf("catalog lists %d cases, want %d", n, len(migrationCorpus))
	}
}

// A migCase applies one fault to the migration of a v0.1 example.
type migCase struct {
	name   string
	base   string // the v0.1 example file migrated; "" means the full example
	mutate mutator
	want   string // "" valid; v1Abort an *InputError
	schema []string
	detail string
	// notCode marks a wrong-reason control.
	notCode string
}

func migCases() []migCase {
	const ob = "/originalBundle"
	insertNull := func(at int) mutator {
		return func(t *testing.T, v *canonjson.Value) {
			ops := v.Path("originalBundle", "evidence", "operations")
			ops.Items = slices.Insert(ops.Items, at, canonjson.NewNull())
		}
	}
	return []migCase{
		{name: "full example", want: ""},
		{name: "fixture-backed example", base: v01FixtureBackedFile, want: ""},

		// 1. schema
		{name: "report missing", mutate: remove("/report"), want: mSchema, schema: []string{" required"}},
		{name: "unknown top-level member", mutate: set("/signature", `"x"`), want: mSchema, schema: []string{" additionalProperties"}},
		{name: "status completed", mutate: set("/target/status", `"COMPLETE"`), want: mSchema, notCode: mFabricate, schema: []string{"/target/status const"}},
		{name: "fabricated evidence admitted", mutate: set("/migration/fabricatedEvidence", `true`), want: mSchema, notCode: mFabricate, schema: []string{"/migration/fabricatedEvidence const"}},
		{name: "input overwritten", mutate: set("/migration/inputOverwritten", `true`), want: mSchema, schema: []string{"/migration/inputOverwritten const"}},
		{name: "legacy assertion promoted", mutate: set("/target/legacyAssertions/0/strength", `"INTEGRITY_BOUND"`), want: mSchema, notCode: mFabricate, schema: []string{"/target/legacyAssertions/0/strength const"}},
		{name: "signed classification", mutate: set("/target/authenticityClassification", `"SIGNED"`), want: mSchema, schema: []string{"/target/authenticityClassification const"}},
		{name: "no legacy assertions", mutate: set("/target/legacyAssertions", `[]`), want: mSchema, schema: []string{"/target/legacyAssertions minItems"}},
		{name: "duplicate requirement", mutate: set("/target/unresolvedRequirements/1", `"AUTHENTICITY_EVIDENCE"`), want: mSchema, schema: []string{"/target/unresolvedRequirements uniqueItems"}},
		{name: "original is a v0.2 bundle", mutate: set(ob+"/schemaVersion", `"mcp-res.conformance-bundle/0.2.0"`), want: mSchema, notCode: mSource, schema: []string{ob + "/schemaVersion const"}},
		{name: "original evidence not an object", mutate: set(ob+"/evidence", `[]`), want: mSchema, notCode: mSource, schema: []string{ob + "/evidence type"}},
		{name: "tool renamed", mutate: set("/migration/tool/name", `"mcpres"`), want: mSchema, schema: []string{"/migration/tool/name const"}},
		{name: "control: original has an unknown member", mutate: set(ob+"/note", `"x"`), want: mSource, notCode: mSchema},

		// 2. original bundle
		{name: "original cleanup incomplete", mutate: set(ob+"/evidence/cleanup/complete", `false`), want: mSource, detail: v01.CodeCleanupIncomplete},
		{name: "original evidence edited", mutate: set(ob+"/evidence/cleanup/durationMs", `91`), want: mSource, detail: validator.CodeDigestMismatch},
		{name: "original statement digest substituted", mutate: set(ob+"/statement/evidenceSha256", otherSha), want: mSource, notCode: mDigest},
		{name: "original class promoted", mutate: set(ob+"/evidence/evidenceClass", `"DOCUMENTED_ONLY"`), want: mSource, notCode: mPromotion},
		{name: "original operations empty object: only JS aborts", mutate: set(ob+"/evidence/operations", `{}`), want: mSource, detail: "cannot be evaluated"},
		{name: "original recoveryPolicies object: only JS aborts", mutate: set(ob+"/evidence/recoveryPolicies", `{}`), want: mSource, detail: "cannot be evaluated"},
		{name: "original operations empty string: only JS aborts", mutate: set(ob+"/evidence/operations", `""`), want: mSource},
		{name: "original operations null: only Python aborts", mutate: set(ob+"/evidence/operations", `null`), want: mSource, detail: v01.CodeMissingCleanControl},
		{name: "original non-object before clean control: only Python aborts", mutate: func(t *testing.T, v *canonjson.Value) {
			ops := v.Path("originalBundle", "evidence", "operations")
			ops.Items = slices.Insert(ops.Items, 0, canonjson.NewInt(5))
		}, want: mSource, detail: validator.CodeSchemaInvalid},
		{name: "original operations absent", mutate: remove(ob + "/evidence/operations"), want: mSource, detail: v01.CodeMissingCleanControl},
		{name: "original null before clean control: both abort", mutate: insertNull(0), want: v1Abort},
		{name: "original null before negative control: both abort", mutate: insertNull(1), want: v1Abort},
		{name: "original operations string: both abort", mutate: set(ob+"/evidence/operations", `"abc"`), want: v1Abort},
		{name: "original operations number: both abort", mutate: set(ob+"/evidence/operations", `5`), want: v1Abort},
		{name: "original operations object: both abort", mutate: set(ob+"/evidence/operations", `{"a":1}`), want: v1Abort},
		{name: "original null after negative control", mutate: func(t *testing.T, v *canonjson.Value) {
			ops := v.Path("originalBundle", "evidence", "operations")
			ops.Items = append(ops.Items, canonjson.NewNull())
		}, want: mSource, detail: validator.CodeSchemaInvalid},

		// 3. digests
		{name: "source digest substituted", mutate: set("/source/evidenceSha256", otherSha), want: mDigest, detail: "source.evidenceSha256"},
		{name: "preserved digest substituted", mutate: set("/report/preservedEvidenceSha256", otherSha), want: mDigest, detail: "preservedEvidenceSha256"},
		{name: "bundle file digest is not checked", mutate: set("/source/bundleFileSha256", otherSha), notCode: mDigest},
		{name: "tool digest is not checked", mutate: set("/migration/tool/sha256", otherSha), notCode: mDigest},
		{name: "control: malformed source digest", mutate: set("/source/evidenceSha256", `"XYZ"`), want: mSchema, notCode: mDigest, schema: []string{"/source/evidenceSha256 pattern"}},

		// 4. class
		{name: "target class promoted", base: v01FixtureBackedFile, mutate: set("/target/evidenceClass", `"GENUINE_RUNTIME"`), want: mPromotion, detail: "target.evidenceClass"},
		{name: "preserved class changed", mutate: set("/report/preservedEvidenceClass", `"FIXTURE_VERIFIED"`), want: mPromotion, detail: "report.preservedEvidenceClass"},
		{name: "control: unknown target class", mutate: set("/target/evidenceClass", `"RUNTIME"`), want: mSchema, notCode: mPromotion, schema: []string{"/target/evidenceClass enum"}},

		// 5. fabrication
		{name: "assertion count inflated", mutate: set("/report/legacyAssertionCount", `23`), want: mFabricate, detail: "legacyAssertionCount"},
		{name: "assertion dropped", mutate: remove("/target/legacyAssertions/0"), want: mFabricate, detail: "legacyAssertionCount"},
		{name: "report requirements fewer", mutate: remove("/report/unresolvedRequirements/0"), want: mFabricate, detail: "unresolvedRequirements"},
		{name: "report requirements reordered", mutate: all(
			set("/report/unresolvedRequirements/0", `"EXECUTION_INSTANCE_DIGEST"`), set("/report/unresolvedRequirements/1", `"AUTHENTICITY_EVIDENCE"`),
		), want: mFabricate, detail: "unresolvedRequirements"},
		{name: "both requirement lists shortened alike", mutate: all(remove("/report/unresolvedRequirements/0"), remove("/target/unresolvedRequirements/0")), notCode: mFabricate},
		{name: "assertion value flipped is not checked", mutate: set("/target/legacyAssertions/0/value", `false`), notCode: mFabricate},
		{name: "warnings are not checked", mutate: set("/report/warnings", `["fine"]`), notCode: mFabricate},
		{name: "control: count out of range", mutate: set("/report/legacyAssertionCount", `65`), want: mSchema, notCode: mFabricate, schema: []string{"/report/legacyAssertionCount maximum"}},
	}
}

// TestMigrationDiagnostics runs every row through package migration and
// package document, directly and after a write/read round trip.
func TestMigrationDiagnostics(t *testing.T) {
	val := validator.New()
	for _, c := range migCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.notCode != "" && c.want == c.notCode {
				t.Fatalf("table error: control for %s expects it", c.notCode)
			}
			if (c.want == mSchema) != (c.schema != nil) {
				t.Fatalf("table error: schema errors %q with %q", c.schema, c.want)
			}
			base := c.base
			if base == "" {
				base = v01ExampleFile
			}
			v := migrationOf(t, base)
			v = v.Clone()
			if c.mutate != nil {
				c.mutate(t, v)
			}
			validatortest.CheckCase(t, v, []func(*canonjson.Value) (validator.Result, error){migration.New(val).Validate, documentOf(val)},
				c.want == v1Abort, c.want, c.schema, c.detail)
		})
	}
}

func TestEveryMigrationCodeHasCaseAndControl(t *testing.T) {
	fires, controls := map[string]int{}, map[string]int{}
	for _, c := range migCases() {
		if c.want != "" && c.want != v1Abort {
			fires[c.want]++
			if c.notCode != "" {
				controls[c.notCode]++
			}
		}
	}
	for _, code := range migrationCodes {
		if fires[code] == 0 {
			t.Errorf("%s: no row fires it", code)
		}
		if controls[code] == 0 {
			t.Errorf("%s: no wrong-reason control", code)
		}
	}
}

// Every valid upstream v0.1 vector migrates to a result that validates.
func TestMigratedUpstreamVectorsValidate(t *testing.T) {
	dir := upstreamV01Dir(t)
	val := validator.New()
	for _, name := range upstreamV01Valid(t, dir) {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "valid", name))
			if err != nil {
				t.Fatal(err)
			}
			v, err := canonjson.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			res := reread(t, migrate.JSOrder(migrate.Build(raw, v, corpusToolSHA256)))
			r, err := documentOf(val)(res)
			checkResult(t, r, err, nil, nil, "")
		})
	}
}
