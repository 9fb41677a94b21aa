package official_test

import (
	"flag"
	"github.com/mcpres/mcpres/canonjson/canonjsontest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/official"
)

var update = flag.Bool("update", false, "rewrite testdata/official from the corpus builder")

// corpusDir is the committed official-conformance corpus (REFERENCE §9.5).
var corpusDir = filepath.Join("..", "..", "testdata", "official")

// A corpusCase is one catalogued attachment. Cases built by Import carry
// the output and configuration they were imported from.
type corpusCase struct {
	id         string
	output     []byte           // written to outputs/<id>.output.json; nil: none
	config     *canonjson.Value // written to configs/<id>.import.json; nil: not an import
	attachment *canonjson.Value
	original   string // outputs/<file> checked with --original-result; "" none
	want       string // "" valid
	status     string // importStatus when valid
}

// sanitizedChecks imitates a sanitized server-initialize run: three
// successful checks whose server identity was replaced by a placeholder.
var sanitizedChecks = []toolCheck{
	{id: "server-initialize-response", status: "SUCCESS", scenario: "server-initialize", details: `{"serverInfo":{"name":"[sanitized]","version":"[sanitized]"}}`},
	{id: "server-initialize-capabilities", status: "SUCCESS", scenario: "server-initialize", details: `{"capabilities":["tools","resources"]}`},
	{id: "wire-schema-initialize-result", status: "SUCCESS", scenario: "server-initialize"},
}

// corpus builds every case deterministically from the fixtures of this
// package.
func corpus(t testing.TB) []corpusCase {
	t.Helper()
	cfg := parse(t, baseConfigText())
	var cases []corpusCase
	add := func(c corpusCase) { cases = append(cases, c) }
	imp := func(id string, checks []toolCheck, cfg *canonjson.Value, status string) corpusCase {
		out := toolOutput(t, checks...)
		c := corpusCase{id: id, output: out, config: cfg, attachment: importDoc(t, out, cfg), status: status,
			original: "outputs/" + id + ".output.json"}
		add(c)
		return c
	}
	clean := imp("clean", baseChecks, cfg, official.StatusComplete)
	baseline := append(append([]toolCheck{}, baseChecks...),
		toolCheck{id: "tools-call-cancellation", status: "FAILURE", errorMessage: "cancellation notification was not honoured within 2000 ms"},
		toolCheck{id: "resources-subscribe-ordering", status: "WARNING", details: `{"outOfOrder":1}`},
	)
	blCfg := edit(t, cfg, "/expectedFailureBaseline", `["tools-call:tools-call-cancellation","tools-call:resources-subscribe-ordering"]`)
	bl := imp("baselined-failure-preserved", baseline, blCfg, official.StatusComplete)
	imp("absent-check-incomplete", baseChecks,
		edit(t, cfg, "/expectedChecks", `["tools-call:initialize-handshake","tools-call:tools-list-schema","tools-call:wire-schema-tools-call-request","tools-call:tools-call-error-shape","tools-call:tools-call-progress"]`),
		official.StatusIncomplete)
	imp("sanitized-real-output", sanitizedChecks,
		edit(t, cfg, "/scenarioId", `"server-initialize"`, "/suite", `"server-initialize"`,
			"/sanitization", `{"applied":true,"fields":["details.serverInfo.name","details.serverInfo.version"]}`,
			"/harness", `{"exitCode":1,"warnings":["the harness exited with status 1 after writing its results"]}`),
		official.StatusIncomplete)
	imp("unexpected-failure-recorded", append(append([]toolCheck{}, baseChecks...),
		toolCheck{id: "tools-call-timeout", status: "FAILURE", errorMessage: "no response within 5000 ms"}),
		cfg, official.StatusInvalid)

	mut := func(id string, from corpusCase, want string, edits ...string) {
		add(corpusCase{id: id, attachment: edit(t, from.attachment, edits...), original: from.original, want: want})
	}
	mut("expected-failure-rewritten", bl, cRewritten, "/checks/4/outcome", `"SUCCESS"`)
	mut("stale-baseline", bl, cStale, "/checks/4/outcome", `"SUCCESS"`, "/checks/4/baselineExpected", `false`)
	altered := append([]byte{}, clean.output...)
	altered[len(altered)-2] = ' '
	add(corpusCase{id: "altered-output", output: altered, attachment: clean.attachment, original: "outputs/altered-output.output.json", want: cDigest})
	mut("revision-mismatch", clean, cRevision, "/requirementSet/revision", `"2026-07-28"`)
	mut("leg-not-executed", clean, cLeg, "/legs/server", `"NOT_EXECUTED"`)
	mut("warning-inventory-mutant", bl, cInventory, "/inventories/warnings", `[]`)
	mut("mapping-overclaim", clean, cMapping, "/mappingBoundary/mcpResEvidenceClass", `"GENUINE_RUNTIME"`)
	mut("certification-claim", clean, cSchema, "/mappingBoundary/officialCertificationClaim", `true`)
	mut("baseline-digest-mismatch", bl, cInventory, "/expectedFailureBaseline/sha256", `"`+text("another baseline")+`"`)
	mut("incomplete-claimed-complete", clean, cStatus, "/harness/exitCode", `1`)
	return cases
}

// corpusFiles renders the cases and their catalog as files.
func corpusFiles(t testing.TB, cases []corpusCase) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	var entries []*canonjson.Value
	for _, c := range cases {
		files[c.id+".json"] = prettyOf(t, c.attachment)
		e := canonjson.NewObject(
			canonjson.Member{Key: "id", Value: canonjson.NewString(c.id)},
			canonjson.Member{Key: "attachment", Value: canonjson.NewString(c.id + ".json")},
			canonjson.Member{Key: "originalResult", Value: nullOr(c.original)},
			canonjson.Member{Key: "importConfig", Value: canonjson.NewNull()},
			canonjson.Member{Key: "expectedDiagnostics", Value: canonjson.NewArray()},
		)
		if c.output != nil {
			files["outputs/"+c.id+".output.json"] = c.output
		}
		if c.config != nil {
			files["configs/"+c.id+".import.json"] = prettyOf(t, c.config)
			e.Set("importConfig", canonjson.NewString("configs/"+c.id+".import.json"))
		}
		if c.want != "" {
			e.Set("expectedDiagnostics", canonjson.NewArray(canonjson.NewString(c.want)))
		} else {
			e.Set("importStatus", canonjson.NewString(c.status))
		}
		entries = append(entries, e)
	}
	files["catalog.json"] = prettyOf(t, canonjson.NewObject(
		canonjson.Member{Key: "schemaVersion", Value: canonjson.NewString("mcp-res.official-conformance-test-catalog/0.2.0")},
		canonjson.Member{Key: "cases", Value: canonjson.NewArray(entries...)},
	))
	return files
}

func nullOr(s string) *canonjson.Value {
	if s == "" {
		return canonjson.NewNull()
	}
	return canonjson.NewString(s)
}

func prettyOf(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorpusFiles: the committed corpus is exactly what the builder makes.
func TestCorpusFiles(t *testing.T) {
	canonjsontest.SyncCorpus(t, corpusDir, corpusFiles(t, corpus(t)), *update, "go test ./validator/official -run TestCorpusFiles -update")
}

// TestCorpus validates every committed case as its catalog entry says,
// reading files from disk, and checks the REFERENCE §9.5 case names.
func TestCorpus(t *testing.T) {
	_, cat, err := canonjson.ReadFile(filepath.Join(corpusDir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	val := testValidator(t)
	var ids []string
	for _, e := range cat.Get("cases").Items {
		id := e.Get("id").Str
		ids = append(ids, id)
		t.Run(id, func(t *testing.T) {
			_, doc, err := canonjson.ReadFile(filepath.Join(corpusDir, e.Get("attachment").Str))
			if err != nil {
				t.Fatal(err)
			}
			opts := official.Options{}
			if o := e.Get("originalResult"); o.Is(canonjson.String) {
				orig, err := official.ReadOriginalResult(filepath.Join(corpusDir, o.Str))
				if err != nil {
					t.Fatal(err)
				}
				opts.OriginalResult = orig
			}
			r, err := val.Validate(doc, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := strs(e.Get("expectedDiagnostics"))
			if r.Valid != (len(want) == 0) || !slices.Equal(r.Diagnostics, want) {
				t.Fatalf("got %v (%s), want %v", r.Diagnostics, r.Detail, want)
			}
			if r.Valid && r.ImportStatus != e.Get("importStatus").Str {
				t.Errorf("importStatus %s, catalog says %s", r.ImportStatus, e.Get("importStatus").Str)
			}
			if c := e.Get("importConfig"); c.Is(canonjson.String) {
				raw, err := os.ReadFile(filepath.Join(corpusDir, e.Get("originalResult").Str))
				if err != nil {
					t.Fatal(err)
				}
				_, cfg, err := canonjson.ReadFile(filepath.Join(corpusDir, c.Str))
				if err != nil {
					t.Fatal(err)
				}
				if got := prettyOf(t, importDoc(t, raw, cfg)); string(got) != string(prettyOf(t, doc)) {
					t.Error("re-importing the committed output does not give the committed attachment")
				}
			}
		})
	}
	for _, name := range []string{"clean", "baselined-failure-preserved", "absent-check-incomplete", "sanitized-real-output",
		"expected-failure-rewritten", "stale-baseline", "altered-output", "revision-mismatch", "leg-not-executed",
		"warning-inventory-mutant", "mapping-overclaim"} {
		if !slices.Contains(ids, name) {
			t.Errorf("catalog lacks the REFERENCE §9.5 case %s", name)
		}
	}
	codes := map[string]bool{}
	for _, e := range cat.Get("cases").Items {
		for _, d := range strs(e.Get("expectedDiagnostics")) {
			codes[d] = true
		}
	}
	for _, code := range officialCodes {
		if !codes[code] {
			t.Errorf("no corpus case for %s", code)
		}
	}
}
