package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// officialDir is the committed official-conformance corpus.
var officialDir = filepath.Join("..", "..", "testdata", "official")

// runOfficialCLI runs a command line like runCLI.
func runOfficialCLI(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLI(t, args...)
}

type officialEntry struct {
	id, attachment, original, config, status string
	want                                     []string
}

func officialCatalog(t testing.TB) []officialEntry {
	t.Helper()
	_, cat, err := canonjson.ReadFile(filepath.Join(officialDir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []officialEntry
	for _, e := range cat.Get("cases").Items {
		out = append(out, officialEntry{
			id: strOf(e.Get("id")), attachment: strOf(e.Get("attachment")), original: strOf(e.Get("originalResult")),
			config: strOf(e.Get("importConfig")), status: strOf(e.Get("importStatus")), want: stringItems(e.Get("expectedDiagnostics")),
		})
	}
	return out
}

// TestCLIOfficialImportCorpus re-imports every committed output with its
// configuration and compares the written attachment byte for byte, and the
// printed result object member by member.
func TestCLIOfficialImportCorpus(t *testing.T) {
	n := 0
	for _, e := range officialCatalog(t) {
		if e.config == "" {
			continue
		}
		n++
		t.Run(e.id, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "attachment.json")
			stdout, stderr, code := runOfficialCLI(t, "official", "import", filepath.Join(officialDir, e.original),
				"--config", filepath.Join(officialDir, e.config), "-o", out)
			if code != exitValid || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			res := parseOneLine(t, stdout)
			want := `{"valid":true,"diagnostics":[],"schemaErrors":[],"importStatus":"` + e.status + `","officialCertificationClaim":false}`
			if got, _ := canonjson.Compact(res); string(got) != want {
				t.Errorf("result %s\nwant   %s", got, want)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(filepath.Join(officialDir, e.attachment))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, committed) {
				t.Error("the written attachment differs from the committed one")
			}
		})
	}
	if n < 4 {
		t.Errorf("%d importable cases, want at least the four valid REFERENCE §9.5 cases", n)
	}
}

// TestCLIOfficialImportRefusals: refusals exit 1 (message on stderr) and
// write nothing; configuration and usage problems exit 2.
func TestCLIOfficialImportRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	config := filepath.Join(officialDir, "configs", "clean.import.json")
	cleanOut := filepath.Join(officialDir, "outputs", "clean.output.json")
	cfgText, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	declared := write("declared.json", strings.Replace(string(cfgText), `"scenarioId"`, `"expectedChecks": ["tools-call:initialize-handshake"], "scenarioId"`, 1))
	dishonest := write("dishonest.json", strings.Replace(string(cfgText), `"scenarioId"`, `"pending": ["tools-call:initialize-handshake"], "scenarioId"`, 1))
	for _, tc := range []struct {
		name         string
		args         []string
		code         int
		stderr       string // substring
		stdoutPrefix string
	}{
		{"output not an array", []string{write("obj.json", `{"checks":[]}`), "--config", config}, exitInvalid, "MCP_RES_OFFICIAL_INPUT_INVALID: the official output is a JSON object", ""},
		{"output with a float", []string{write("float.json", `[{"id":"a","status":"SUCCESS","details":{"ms":1.5}}]`), "--config", config}, exitInvalid, "MCP_RES_OFFICIAL_INPUT_INVALID", ""},
		{"output missing", []string{filepath.Join(dir, "missing.json"), "--config", config}, exitInvalid, "MCP_RES_OFFICIAL_INPUT_INVALID: reading", ""},
		{"undeclared check", []string{cleanOut, "--config", declared}, exitInvalid, "MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE", ""},
		{"dishonest pending", []string{cleanOut, "--config", dishonest}, exitInvalid, "nothing written", `{"valid":false,"diagnostics":["MCP_RES_OFFICIAL_INVENTORY_MISMATCH"]`},
		{"config invalid", []string{cleanOut, "--config", write("badcfg.json", `{"schemaVersion":"mcpres.official-import-config/v1"}`)}, exitInput, "", `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":"MCP_RES_INPUT_INVALID: import configuration: (root)`},
		{"config unreadable", []string{cleanOut, "--config", write("dup.json", `{"a":1,"a":2}`)}, exitInput, "", `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"]`},
		{"no config", []string{cleanOut}, exitInput, "--config is required", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "attachment.json")
			stdout, stderr, code := runOfficialCLI(t, append([]string{"official", "import", "-o", out}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) || !strings.HasPrefix(stdout, tc.stdoutPrefix) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stderr ∋ %q, stdout prefix %q", code, stdout, stderr, tc.code, tc.stderr, tc.stdoutPrefix)
			}
			if tc.stdoutPrefix == "" && stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an attachment was written")
			}
		})
	}

	out := filepath.Join(dir, "attachment.json")
	if _, _, code := runOfficialCLI(t, "official", "import", cleanOut, "--config", config, "-o", out); code != exitValid {
		t.Fatalf("first import exit %d", code)
	}
	if _, stderr, code := runOfficialCLI(t, "official", "import", cleanOut, "--config", config, "-o", out); code != exitInput || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite without --force: exit %d, %q", code, stderr)
	}
	if _, _, code := runOfficialCLI(t, "official", "import", cleanOut, "--config", config, "-o", out, "--force"); code != exitValid {
		t.Errorf("--force: exit %d", code)
	}
	input := write("input.json", string(mustRead(t, cleanOut)))
	if _, stderr, code := runOfficialCLI(t, "official", "import", input, "--config", config, "-o", input, "--force"); code != exitInput || !strings.Contains(stderr, "input") {
		t.Errorf("output = input: exit %d, %q", code, stderr)
	}
	stdout, _, code := runOfficialCLI(t, "official", "import", cleanOut, "--config", config, "-o", filepath.Join(dir, "t.json"), "--format", "text")
	if code != exitValid || !strings.HasSuffix(stdout, ": VALID (importStatus COMPLETE, officialCertificationClaim false)\n") {
		t.Errorf("text format: %d %q", code, stdout)
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCLIValidateMixedKinds runs `mcpres validate --profiles DIR` over a
// folder mixing every document kind and checks one correct result per file.
// It skips until validate.go and validator.go carry the dispatch of issue
// #7 (the --profiles flag is the marker).
func TestCLIValidateMixedKinds(t *testing.T) {
	probe := filepath.Join(t.TempDir(), "probe.json")
	if err := os.WriteFile(probe, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, _ := runCLI(t, "validate", "--profiles", t.TempDir(), probe); strings.Contains(stderr, "unknown flag") {
		t.Skip("mcpres validate has no --profiles yet: the issue #7 dispatch is not wired into validate.go/validator.go")
	}
	type want struct {
		diags []string
		extra string // compact members after schemaErrors, valid results only
	}
	var files []string
	wants := map[string]want{}
	// No --original-result is given, so every attachment's verdict is its
	// catalogued one except altered-output's (its bytes are not checked).
	for _, e := range officialCatalog(t) {
		if e.id == "altered-output" {
			continue
		}
		p := filepath.Join(officialDir, e.attachment)
		files = append(files, p)
		w := want{diags: e.want}
		if len(e.want) == 0 {
			w.extra = `"importStatus":"` + e.status + `","officialCertificationClaim":false`
		}
		wants[p] = w
	}
	add := func(p string, diags []string, extra string) {
		files = append(files, p)
		wants[p] = want{diags: diags, extra: extra}
	}
	profileDir := filepath.Join("..", "..", "testdata", "profile")
	add(filepath.Join(profileDir, "example-full-2026-07-28.json"), nil, `"result":"PASS","profileStatus":"PROVISIONAL","claimScope":"FULL_PROFILE"`)
	add(filepath.Join(profileDir, "example-experimental-identity.json"), nil, `"result":"PASS","profileStatus":"EXPERIMENTAL","claimScope":"FULL_PROFILE"`)
	add(filepath.Join(profileDir, "collapsed-matrix.json"), []string{"MCP_RES_PROFILE_SCHEMA_INVALID"}, "")
	add(filepath.Join("..", "..", "testdata", "oauth", "standin-2026-07-28.json"), nil, `"result":"PASS","securityCertificationClaim":false,"realAuthorizationProvidersContacted":0`)
	add(filepath.Join("..", "..", "testdata", "oauth", "raw-token-in-evidence.json"), []string{"MCP_RES_OAUTH_SCHEMA_INVALID"}, "")
	add(filepath.Join("..", "..", "testdata", "bundles", "example.json"), nil, "")
	tmp := t.TempDir()
	core := filepath.Join(tmp, "core-empty.json")
	if err := os.WriteFile(core, []byte(`{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	add(core, []string{"MCP_RES_VACUOUS_NEGATIVE_CONTROL"}, "")
	floaty := filepath.Join(tmp, "float.json")
	if err := os.WriteFile(floaty, []byte(`{"schemaVersion":"mcp-res.profile-evaluation/0.2.0","n":1.0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	add(floaty, []string{"MCP_RES_INPUT_INVALID"}, "")

	stdout, stderr, code := runCLI(t, append([]string{"validate", "--profiles", filepath.Join(profileDir, "sets", "examples")}, files...)...)
	if code != exitInput {
		t.Errorf("exit %d, want 2 (the float file is unreadable); stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d results for %d files:\n%s", len(lines), len(files), stdout)
	}
	for i, p := range files {
		res := parseOneLine(t, lines[i]+"\n")
		w := wants[p]
		got := stringItems(res.Get("diagnostics"))
		if w.diags == nil {
			w.diags = []string{}
		}
		if !slices.Equal(got, w.diags) {
			t.Errorf("%s: diagnostics %v, want %v", p, got, w.diags)
			continue
		}
		if len(w.diags) == 0 {
			if f := res.Get("file"); f.Str != p {
				t.Errorf("%s: file member %v, want the path as given", p, f)
			}
			res.Members = res.Members[1:] // the "file" member, first
			compact, _ := canonjson.Compact(res)
			wantLine := `{"valid":true,"diagnostics":[],"schemaErrors":[]`
			if w.extra != "" {
				wantLine += "," + w.extra
			}
			if string(compact) != wantLine+"}" {
				t.Errorf("%s: %s\nwant %s}", p, compact, wantLine)
			}
		}
	}
}
