package migrate_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/upstreamtest"
	"github.com/mcpres/mcpres/migrate"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/migration"
	"github.com/mcpres/mcpres/validator/v01"
)

// Fixtures: mcpres's own v0.1 examples and migration corpus (kept by the
// validator package's tests), and its own v0.2 example bundle.
var (
	exampleV01      = filepath.Join("..", "validator", "v01", "testdata", "example.json")
	fixtureV01      = filepath.Join("..", "validator", "v01", "testdata", "fixture-backed.json")
	goldenMigration = filepath.Join("..", "validator", "migration", "testdata", "valid", "valid-migration.json")
	exampleV02      = filepath.Join("..", "testdata", "bundles", "example.json")
)

// toolSHA256 is the stand-in tool digest of the committed corpus,
// sha256("mcp-res-migrate@0.2.0\n"); the CLI records its executable's.
var toolSHA256 = canonjson.TextDigest("mcp-res-migrate@0.2.0\n")

func fixedTool() (string, error) { return toolSHA256, nil }

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// workspace returns a fresh working directory holding a copy of src as
// in.json.
func workspace(t testing.TB, src string) (dir, in string) {
	t.Helper()
	dir = t.TempDir()
	in = filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, readFile(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, in
}

func options(dir, in, out string) migrate.Options {
	return migrate.Options{From: "0.1.0", To: "0.2.0", Input: in, Output: out, WorkDir: dir, ToolSHA256: fixedTool}
}

// A snapshot of every file under a directory: content and modification
// time, to show that a refusal changed nothing.
type fileState struct {
	data  []byte
	mtime time.Time
	mode  os.FileMode
}

func snapshot(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		st := fileState{mtime: info.ModTime(), mode: info.Mode()}
		if info.Mode().IsRegular() {
			st.data = readFile(t, p)
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertUnchanged(t testing.TB, dir string, before map[string]fileState) {
	t.Helper()
	after := snapshot(t, dir)
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			t.Errorf("%s was created", p)
		case !bytes.Equal(a.data, b.data) || !a.mtime.Equal(b.mtime) || a.mode != b.mode:
			t.Errorf("%s was modified", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		}
	}
}

func wantRefusal(t testing.TB, err error, code string) *migrate.RefusalError {
	t.Helper()
	var re *migrate.RefusalError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v (%T), want refusal %s", err, err, code)
	}
	if re.Code != code {
		t.Fatalf("refusal %s (%v), want %s", re.Code, re, code)
	}
	return re
}

// The migration of the fixture-backed example is byte for byte the
// committed corpus case valid-migration (the golden output).
func TestGolden(t *testing.T) {
	dir, in := workspace(t, fixtureV01)
	o, err := migrate.Run(options(dir, in, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := readFile(t, goldenMigration)
	if got := readFile(t, filepath.Join(dir, "out.json")); !bytes.Equal(got, want) {
		t.Errorf("written result differs from %s", goldenMigration)
	}
	if !bytes.Equal(o.Bytes, want) || o.OutputSHA256 != canonjson.BytesDigest(want) {
		t.Error("Outcome.Bytes/OutputSHA256 differ from the file written")
	}
	if o.Output != filepath.Join(dir, "out.json") || o.DryRun || o.Unchanged {
		t.Errorf("outcome %+v", o)
	}
	got := string(mustCompact(t, o.Value()))
	wantPrefix := `{"dryRun":false,"output":"` + filepath.Join(dir, "out.json") + `","outputSha256":"` + canonjson.BytesDigest(want) + `","report":{"status":"INCOMPLETE",`
	if !strings.HasPrefix(got, wantPrefix) {
		t.Errorf("printed %s\nwant prefix %s", got, wantPrefix)
	}
}

func mustCompact(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Result construction (REFERENCE §7.2) on the full example: the original
// is preserved byte for byte in meaning and member order, the digests and
// class are carried over, nothing is fabricated.
func TestBuildFullExample(t *testing.T) {
	raw := readFile(t, exampleV01)
	orig, err := canonjson.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	res := migrate.Build(raw, orig.Clone(), toolSHA256)
	var keys []string
	for _, m := range res.Members {
		keys = append(keys, m.Key)
	}
	if want := []string{"schemaVersion", "source", "target", "migration", "report", "originalBundle"}; !slices.Equal(keys, want) {
		t.Errorf("members %v, want %v", keys, want)
	}
	if a, b := mustCompact(t, res.Get("originalBundle")), mustCompact(t, orig); !bytes.Equal(a, b) {
		t.Error("originalBundle differs from the input (content or member order)")
	}
	evSha := orig.Path("statement", "evidenceSha256").Str
	for path, want := range map[string]string{
		"source/evidenceSha256":          evSha,
		"source/bundleFileSha256":        canonjson.BytesDigest(raw),
		"report/preservedEvidenceSha256": evSha,
		"target/evidenceClass":           "GENUINE_RUNTIME",
		"report/preservedEvidenceClass":  "GENUINE_RUNTIME",
		"migration/tool/sha256":          toolSHA256,
		"migration/tool/name":            "mcp-res-migrate",
		"migration/tool/version":         "0.2.0",
		"target/status":                  "INCOMPLETE",
		"report/status":                  "INCOMPLETE",
	} {
		if got := res.Path(strings.Split(path, "/")...).Str; got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if n := res.Path("report", "legacyAssertionCount").Int; n != 22 {
		t.Errorf("legacyAssertionCount %d, want 22 (with a regression)", n)
	}
	if reqs := strings.Join(stringsOf(res.Path("target", "unresolvedRequirements")), ","); strings.Contains(reqs, "SOURCE_EVIDENCE") {
		t.Errorf("requirements %s include SOURCE_EVIDENCE, but the example has source evidence", reqs)
	}
	if r, err := migration.New(nil).Validate(res); err != nil || !r.Valid {
		t.Errorf("the result does not validate: %+v %v", r, err)
	}
}

func stringsOf(v *canonjson.Value) []string {
	var out []string
	for _, it := range v.Items {
		out = append(out, it.Str)
	}
	return out
}

// The documented order of the legacy assertions (REFERENCE §7.2), with and
// without a regression object, and their values.
func TestLegacyAssertionOrder(t *testing.T) {
	all := []string{
		"actualRuntime", "cleanup.complete", "fixtureUsed", "installationExecuted",
		"privacy.authorizationHeadersOmitted", "privacy.credentialsOmitted",
		"privacy.environmentValuesOmitted", "privacy.oneWayIdentities", "privacy.personalPathsOmitted",
		"privacy.promptsOmitted", "privacy.scanPassed", "privacy.summariesBounded",
		"privacy.toolBodiesOmitted", "protocolMessagesExchanged", "regression.brokenConditionFails",
		"regression.containedOutput", "regression.deterministicDependencies",
		"regression.fixedConditionPasses", "regression.generatedWithoutExecution", "regression.provided",
		"regression.secretScanPassed", "regressionExecuted",
	}
	withoutRegression := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return strings.HasPrefix(s, "regression.") })
	for _, c := range []struct {
		file string
		want []string
	}{{exampleV01, all}, {fixtureV01, withoutRegression}} {
		_, v, err := canonjson.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		ev := v.Get("evidence")
		as := migrate.LegacyAssertions(ev)
		var names []string
		for _, a := range as.Items {
			names = append(names, a.Get("name").Str)
			if len(a.Members) != 3 || a.Members[0].Key != "name" || a.Members[1].Key != "value" || a.Members[2].Key != "strength" ||
				a.Get("strength").Str != migrate.LegacyStrength {
				t.Errorf("%s: assertion %s", c.file, mustCompact(t, a))
			}
			// The value is the producer's boolean, unchanged.
			name := a.Get("name").Str
			var src *canonjson.Value
			if before, after, ok := strings.Cut(name, "."); ok {
				src = ev.Path(before, after)
			} else {
				src = ev.Path("execution", name)
			}
			if !canonjson.Equal(src, a.Get("value")) {
				t.Errorf("%s: %s = %s, evidence says %s", c.file, name, mustCompact(t, a.Get("value")), mustCompact(t, src))
			}
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("%s: order\n%q\nwant\n%q", c.file, names, c.want)
		}
	}
	if len(withoutRegression) != 15 || len(all) != 22 {
		t.Fatalf("table: %d and %d names", len(withoutRegression), len(all))
	}
}

func TestUnresolvedRequirements(t *testing.T) {
	base := []string{"AUTHENTICITY_EVIDENCE", "EXECUTION_INSTANCE_DIGEST", "OBSERVATION_BINDINGS", "OBSERVATION_COVERAGE",
		"REASON_BOUND_NEGATIVE_OBSERVATION", "SCENARIO_FINGERPRINT"}
	withSource := append(slices.Clone(base), "TRIAL_REPETITION_EVIDENCE")
	without := append(slices.Clone(base), "SOURCE_EVIDENCE", "TRIAL_REPETITION_EVIDENCE")
	for file, want := range map[string][]string{exampleV01: withSource, fixtureV01: without} {
		_, v, err := canonjson.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := migrate.UnresolvedRequirements(v.Get("evidence")); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
	if !slices.Equal(migrate.Warnings, []string{
		"Producer booleans remain LEGACY_SELF_ASSERTED.",
		"No reason-bound negative evidence was fabricated.",
		"No signature or signer identity was fabricated.",
		"No repeated-trial evidence was fabricated.",
		"A fresh v0.2 run is required to resolve incomplete requirements.",
	}) {
		t.Error("warnings differ from REFERENCE §7.2")
	}
}

// upstreamV01Valid lists the valid v0.1 vectors, skipping without ../shared.
func upstreamV01Valid(t *testing.T) []string {
	t.Helper()
	dir := upstreamtest.Dir(t, "..", "v0.1.0/valid")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	if len(out) != 7 {
		t.Fatalf("%d valid v0.1 vectors, want 7", len(out))
	}
	return out
}

// Every valid v0.1 vector (upstream's and ours) migrates; the result
// validates; migrating the result again returns identical bytes.
func TestMigrateValidVectorsTwice(t *testing.T) {
	files := []string{exampleV01, fixtureV01}
	if _, err := os.Stat(upstreamtest.Path(t, "..", "v0.1.0")); err == nil {
		files = append(files, upstreamV01Valid(t)...)
	}
	val := document.New(nil)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir, in := workspace(t, f)
			first, err := migrate.Run(options(dir, in, "first.json"))
			if err != nil {
				t.Fatal(err)
			}
			_, doc, err := canonjson.ReadFile(filepath.Join(dir, "first.json"))
			if err != nil {
				t.Fatal(err)
			}
			if r, err := val.Validate(doc, document.Options{}); err != nil || !r.Valid {
				t.Fatalf("migrated result: %+v %v", r, err)
			}
			opts := options(dir, "first.json", "second.json")
			opts.ToolSHA256 = func() (string, error) { t.Error("the tool digest was needed for a migration result"); return "", nil }
			second, err := migrate.Run(opts)
			if err != nil {
				t.Fatal(err)
			}
			if !second.Unchanged || !bytes.Equal(readFile(t, filepath.Join(dir, "second.json")), first.Bytes) || second.OutputSHA256 != first.OutputSHA256 {
				t.Error("migrating the result again changed its bytes")
			}
			if !bytes.Equal(mustCompact(t, second.Value().Get("report")), mustCompact(t, first.Value().Get("report"))) {
				t.Error("the printed report differs")
			}
		})
	}
}

// A migration result is returned unchanged, unvalidated, with members in
// JavaScript object order (integer-like keys first).
func TestIdempotencyReordersLikeJavaScript(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	os.WriteFile(in, []byte(`{"schemaVersion":"mcp-res.migration-result/0.2.0","b":1,"10":2,"2":{"x":[{"01":1,"4294967295":2,"4294967294":3,"0":4}]},"report":{"z":true,"1":false}}`), 0o644)
	o, err := migrate.Run(options(dir, in, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "2": {
    "x": [
      {
        "0": 4,
        "4294967294": 3,
        "01": 1,
        "4294967295": 2
      }
    ]
  },
  "10": 2,
  "schemaVersion": "mcp-res.migration-result/0.2.0",
  "b": 1,
  "report": {
    "1": false,
    "z": true
  }
}
`
	if got := string(readFile(t, filepath.Join(dir, "out.json"))); got != want {
		t.Errorf("written\n%s\nwant\n%s", got, want)
	}
	if got := string(mustCompact(t, o.Value())); !strings.HasSuffix(got, `"report":{"1":false,"z":true}}`) {
		t.Errorf("printed %s", got)
	}
	// No report member: none printed.
	in2 := filepath.Join(dir, "in2.json")
	os.WriteFile(in2, []byte(`{"schemaVersion":"mcp-res.migration-result/0.2.0"}`), 0o644)
	o, err = migrate.Run(options(dir, in2, "out2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustCompact(t, o.Value())); got != `{"dryRun":false,"output":"`+filepath.Join(dir, "out2.json")+`","outputSha256":"`+o.OutputSHA256+`"}` {
		t.Errorf("printed %s", got)
	}
}

func TestDryRun(t *testing.T) {
	dir, in := workspace(t, fixtureV01)
	before := snapshot(t, dir)
	for _, out := range []string{"", "would.json"} {
		opts := options(dir, in, out)
		opts.DryRun = true
		o, err := migrate.Run(opts)
		if err != nil {
			t.Fatal(err)
		}
		assertUnchanged(t, dir, before)
		want := readFile(t, goldenMigration)
		if !bytes.Equal(o.Bytes, want) || o.OutputSHA256 != canonjson.BytesDigest(want) {
			t.Error("dry run serialized other bytes than a real run writes")
		}
		printed := string(mustCompact(t, o.Value()))
		wantWould := `null`
		if out != "" {
			wantWould = `"` + filepath.Join(dir, out) + `"`
		}
		if !strings.HasPrefix(printed, `{"dryRun":true,"wouldWrite":`+wantWould+`,"outputSha256":"`+o.OutputSHA256+`","report":{`) {
			t.Errorf("printed %s", printed)
		}
	}
	// The output checks run in a dry run too.
	os.WriteFile(filepath.Join(dir, "exists.json"), []byte("x"), 0o644)
	opts := options(dir, in, "exists.json")
	opts.DryRun = true
	_, err := migrate.Run(opts)
	wantRefusal(t, err, migrate.CodeOutputConflict)
}

// Each refusal (REFERENCE §7.1) has its code and leaves every file —
// above all the input — untouched (content and modification time).
func TestRefusalsLeaveInputUntouched(t *testing.T) {
	outside := t.TempDir()
	type setup func(t *testing.T, dir, in string) (input, output string)
	plain := func(out string) setup {
		return func(t *testing.T, dir, in string) (string, string) { return in, out }
	}
	cases := []struct {
		name  string
		src   string
		setup setup
		code  string
		diags []string
	}{
		{"output is the input", fixtureV01, plain("in.json"), migrate.CodeInputOverwriteForbidden, nil},
		{"output is the input, absolute", fixtureV01, func(t *testing.T, dir, in string) (string, string) { return "in.json", in }, migrate.CodeInputOverwriteForbidden, nil},
		{"output is the input, lexically", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			return in, "sub/../in.json"
		}, migrate.CodeInputOverwriteForbidden, nil},
		{"output is the input through a symlinked directory", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.Symlink(".", filepath.Join(dir, "same"))
			return in, "same/in.json"
		}, migrate.CodeOutputConflict, nil},
		{"output outside the workspace", fixtureV01, plain(filepath.Join(outside, "out.json")), migrate.CodeOutputOutsideWorkspace, nil},
		{"output in the parent directory", fixtureV01, plain("../out.json"), migrate.CodeOutputOutsideWorkspace, nil},
		{"output under a symlinked parent", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
				t.Fatal(err)
			}
			return in, "escape/out.json"
		}, migrate.CodeOutputOutsideWorkspace, nil},
		{"output under a symlinked grandparent", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.Mkdir(filepath.Join(outside, "deep"), 0o755)
			os.Symlink(outside, filepath.Join(dir, "escape2"))
			return in, "escape2/deep/out.json"
		}, migrate.CodeOutputOutsideWorkspace, nil},
		{"output parent missing", fixtureV01, plain("missing/out.json"), migrate.CodeOutputOutsideWorkspace, nil},
		{"output parent is a file", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
			return in, "file/out.json"
		}, migrate.CodeOutputOutsideWorkspace, nil},
		{"output is the workspace", fixtureV01, plain("."), migrate.CodeOutputOutsideWorkspace, nil},
		{"output exists", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(filepath.Join(dir, "out.json"), []byte("keep me"), 0o644)
			return in, "out.json"
		}, migrate.CodeOutputConflict, nil},
		{"output is a dangling symlink", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.Symlink(filepath.Join(outside, "nowhere.json"), filepath.Join(dir, "out.json"))
			return in, "out.json"
		}, migrate.CodeOutputConflict, nil},
		{"output is a directory", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.Mkdir(filepath.Join(dir, "outdir"), 0o755)
			return in, "outdir"
		}, migrate.CodeOutputConflict, nil},
		{"v0.2 input", exampleV02, plain("out.json"), migrate.CodeAlreadyV02, nil},
		{"invalid v0.1 input", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			_, v, _ := canonjson.ReadFile(in)
			v.Path("evidence", "cleanup").Set("complete", canonjson.NewBool(false))
			b, _ := canonjson.Pretty(v)
			os.WriteFile(in, b, 0o644)
			return in, "out.json"
		}, migrate.CodeSourceInvalid, []string{v01.CodeCleanupIncomplete}},
		{"v0.1 input with an encoded secret", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			_, v, _ := canonjson.ReadFile(in)
			v.Path("evidence", "subject").Set("name", canonjson.NewString("QXV0aG9yaXphdGlvbjogQmVhcmVyIGFiYzEyMw=="))
			b, _ := canonjson.Pretty(v)
			os.WriteFile(in, b, 0o644)
			return in, "out.json"
		}, migrate.CodeSourceInvalid, []string{v01.CodeSecretDetected}},
		{"v0.1 input the v0.1 validator cannot evaluate", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(in, []byte(`{"schemaVersion":"mcp-res.conformance-bundle/0.1.0","evidence":{"operations":{}}}`), 0o644)
			return in, "out.json"
		}, migrate.CodeSourceInvalid, []string{validator.CodeInputInvalid}},
		{"other document", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(in, []byte(`{"schemaVersion":"mcp-res.trust-policy/0.2.0"}`), 0o644)
			return in, "out.json"
		}, migrate.CodeSourceVersionUnsupported, nil},
		{"array input", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(in, []byte(`[]`), 0o644)
			return in, "out.json"
		}, migrate.CodeSourceVersionUnsupported, nil},
		{"malformed JSON", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(in, []byte(`{"schemaVersion":"mcp-res.conformance-bundle/0.1.0",}`), 0o644)
			return in, "out.json"
		}, migrate.CodeInputJSONInvalid, nil},
		{"float in the input", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.WriteFile(in, []byte(`{"schemaVersion":"mcp-res.conformance-bundle/0.1.0","n":1.0}`), 0o644)
			return in, "out.json"
		}, migrate.CodeInputJSONInvalid, nil},
		{"missing input", fixtureV01, plain("out.json"), migrate.CodeInputJSONInvalid, nil},
		{"symlinked input", fixtureV01, func(t *testing.T, dir, in string) (string, string) {
			os.Symlink(in, filepath.Join(dir, "link.json"))
			return "link.json", "out.json"
		}, migrate.CodeInputJSONInvalid, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, in := workspace(t, c.src)
			input, output := c.setup(t, dir, in)
			if c.name == "missing input" {
				input = "absent.json"
			}
			before, beforeOutside := snapshot(t, dir), snapshot(t, outside)
			opts := options(dir, input, output)
			opts.ToolSHA256 = func() (string, error) { t.Error("the tool digest was computed for a refusal"); return toolSHA256, nil }
			o, err := migrate.Run(opts)
			if o != nil {
				t.Errorf("outcome %+v with a refusal", o)
			}
			re := wantRefusal(t, err, c.code)
			if !slices.Equal(re.Diagnostics, c.diags) {
				t.Errorf("diagnostics %v, want %v", re.Diagnostics, c.diags)
			}
			if !strings.HasPrefix(re.Error(), re.Message()) || !strings.HasPrefix(re.Message(), c.code) {
				t.Errorf("message %q / error %q", re.Message(), re.Error())
			}
			assertUnchanged(t, dir, before)
			assertUnchanged(t, outside, beforeOutside)
		})
	}
}

// The message of a source refusal is upstream's code list.
func TestRefusalMessage(t *testing.T) {
	e := &migrate.RefusalError{Code: migrate.CodeSourceInvalid, Diagnostics: []string{"MCP_RES_SECRET_DETECTED"}, Detail: "why"}
	if e.Message() != "MCP_RES_MIGRATION_SOURCE_INVALID:MCP_RES_SECRET_DETECTED" || e.Error() != e.Message()+": why" {
		t.Errorf("%q / %q", e.Message(), e.Error())
	}
}

// An output that appears between the checks and the write is not
// replaced (exclusive create).
func TestExclusiveCreate(t *testing.T) {
	dir, in := workspace(t, fixtureV01)
	out := filepath.Join(dir, "out.json")
	opts := options(dir, in, "out.json")
	opts.ToolSHA256 = func() (string, error) {
		// Runs after the output checks, before the write: another process
		// creates the output now.
		return toolSHA256, os.WriteFile(out, []byte("theirs"), 0o644)
	}
	_, err := migrate.Run(opts)
	wantRefusal(t, err, migrate.CodeOutputConflict)
	if got := string(readFile(t, out)); got != "theirs" {
		t.Errorf("output now holds %q", got)
	}
}

func TestUsageErrors(t *testing.T) {
	dir, in := workspace(t, fixtureV01)
	for _, c := range []struct {
		name   string
		mutate func(*migrate.Options)
		option string
		reason string
	}{
		{"from", func(o *migrate.Options) { o.From = "0.2.0" }, "From", `the from version must be 0.1.0, not "0.2.0"`},
		{"to", func(o *migrate.Options) { o.To = "0.3.0" }, "To", `the to version must be 0.2.0, not "0.3.0"`},
		{"no from", func(o *migrate.Options) { o.From = "" }, "From", "no from version given (it must be 0.1.0)"},
		{"no to", func(o *migrate.Options) { o.To = "" }, "To", "no to version given (it must be 0.2.0)"},
		{"no input", func(o *migrate.Options) { o.Input = "" }, "Input", "no input bundle given"},
		{"no output", func(o *migrate.Options) { o.Output = "" }, "Output", "no output file given, and not a dry run"},
		{"relative workspace", func(o *migrate.Options) { o.WorkDir = "." }, "WorkDir", "the working directory must be an absolute path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, dir)
			opts := options(dir, in, "out.json")
			c.mutate(&opts)
			_, err := migrate.Run(opts)
			var ue *migrate.UsageError
			if !errors.As(err, &ue) || ue.Error() != c.reason || ue.Option != c.option {
				t.Errorf("err = %v, want a usage error of %s: %q", err, c.option, c.reason)
			}
			// A library names no flag: the command words its own.
			if strings.Contains(ue.Error(), "--") {
				t.Errorf("%q names a flag", ue.Error())
			}
			assertUnchanged(t, dir, before)
		})
	}
}

func TestToolDigestErrors(t *testing.T) {
	dir, in := workspace(t, fixtureV01)
	before := snapshot(t, dir)
	for _, f := range []func() (string, error){
		func() (string, error) { return "", errors.New("no executable") },
		func() (string, error) { return "ABC", nil },
		nil,
	} {
		opts := options(dir, in, "out.json")
		opts.ToolSHA256 = f
		_, err := migrate.Run(opts)
		var re *migrate.RefusalError
		if err == nil || errors.As(err, &re) {
			t.Errorf("err = %v, want a plain error", err)
		}
	}
	assertUnchanged(t, dir, before)
}

func TestJSOrder(t *testing.T) {
	v, err := canonjson.Parse([]byte(`{"b":1,"10":2,"2":3,"-1":4,"1.5":5,"007":6,"4294967294":7,"4294967295":8,"a":[{"9":0,"x":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	before := mustCompact(t, v)
	got := string(mustCompact(t, migrate.JSOrder(v)))
	if want := `{"2":3,"10":2,"4294967294":7,"b":1,"-1":4,"1.5":5,"007":6,"4294967295":8,"a":[{"9":0,"x":1}]}`; got != want {
		t.Errorf("JSOrder = %s\nwant      %s", got, want)
	}
	if !bytes.Equal(mustCompact(t, v), before) {
		t.Error("JSOrder modified its argument")
	}
	plain, _ := canonjson.Parse([]byte(`{"b":[1,{"c":2}],"a":3}`))
	if migrate.JSOrder(plain) != plain {
		t.Error("JSOrder copied a value without integer-like keys")
	}
}
