package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

func readReport(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCLIReportBundle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	example := filepath.Join("..", "..", "testdata", "bundles", "example.json")
	stdout, stderr, code := runCLI(t, "report", example, "-o", out)
	if code != exitValid || !strings.Contains(stdout, "example.json: VALID") || stderr != "mcpres: wrote "+out+": HTML report\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	page := readReport(t, out)
	for _, want := range []string{`<span class="status">VALID</span>`, "Content-Security-Policy", "ledger-notes-server", `id="limits"`} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// An existing output is kept without --force, and replaced with it.
	if _, stderr, code := runCLI(t, "report", example, "-o", out); code != exitInput || !strings.Contains(stderr, "refusing to overwrite") {
		t.Errorf("second write: exit %d, stderr %q; want a refusal", code, stderr)
	}
	if _, stderr, code := runCLI(t, "report", "--force", "--quiet", example, "-o", out); code != exitValid || stderr != "" {
		t.Errorf("--force --quiet: exit %d, stderr %q", code, stderr)
	}
	// Never over an input.
	copyPath := filepath.Join(t.TempDir(), "b.json")
	data, _ := os.ReadFile(example)
	os.WriteFile(copyPath, data, 0o644)
	if _, stderr, code := runCLI(t, "report", "--force", copyPath, "-o", copyPath); code != exitInput || !strings.Contains(stderr, "it is an input") {
		t.Errorf("output = input: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(copyPath); string(got) != string(data) {
		t.Error("the input was changed")
	}
}

func TestCLIReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	ex, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "bundles", "example.json"))
	example := filepath.Join("..", "..", "testdata", "bundles", "example.json")
	witnessed := filepath.Join("..", "..", "testdata", "attestation", "witnessed.json")
	bad := filepath.Join(dir, "dup.json")
	os.WriteFile(bad, []byte(`{"a":1,"a":2}`), 0o644)
	badPolicy := filepath.Join(dir, "policy.json")
	os.WriteFile(badPolicy, []byte(`{"schemaVersion":`), 0o644)
	// An input that cannot be read or evaluated writes no report (exit 2,
	// its result line on stdout, or on stderr when the page would have
	// gone to stdout).
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{filepath.Join(dir, "missing.json")}, "missing.json: INPUT INVALID"},
		{"malformed JSON", []string{bad}, "dup.json: INPUT INVALID"},
		{"directory", []string{dir}, "INPUT INVALID"},
		{"malformed policy", []string{witnessed, "--policy", badPolicy}, "policy.json: INPUT INVALID"},
		{"missing policy", []string{witnessed, "--policy", filepath.Join(dir, "missing-policy.json")}, "missing-policy.json: INPUT INVALID"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "unreadable.html")
			stdout, stderr, code := runCLI(t, append([]string{"report", "-o", out}, c.args...)...)
			if code != exitInput || !strings.Contains(stdout, c.want) || strings.Contains(stderr, "wrote") {
				t.Errorf("exit %d, stdout %.300q, stderr %.300q; want 2 and %q", code, stdout, stderr, c.want)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Error("a report was written for an unreadable input")
			}
			stdout, stderr, code = runCLI(t, append([]string{"report", "-o", "-"}, c.args...)...)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, c.want) {
				t.Errorf("-o -: exit %d, stdout %.300q, stderr %.300q; want 2, nothing on stdout", code, stdout, stderr)
			}
		})
	}
	// Control: a readable document with a readable policy is reported.
	out := filepath.Join(dir, "readable.html")
	if _, _, code := runCLI(t, "report", "-o", out, example); code != exitValid {
		t.Errorf("example: exit %d", code)
	}
	if page := readReport(t, out); !strings.Contains(page, `<span class="status">VALID</span>`) {
		t.Error("the example's report is not written")
	}

	doc, _ := canonjson.Parse(ex)
	doc.Path("evidence", "trialSummary").Set("completedTrials", canonjson.NewInt(0))
	b, _ := canonjson.Pretty(doc)
	invalid := filepath.Join(dir, "invalid.json")
	os.WriteFile(invalid, b, 0o644)
	out = filepath.Join(dir, "invalid.html")
	if _, _, code := runCLI(t, "report", invalid, "-o", out); code != exitInvalid {
		t.Fatalf("invalid bundle: exit %d, want 1", code)
	}
	if page := readReport(t, out); !strings.Contains(page, "MCP_RES_TRIAL_SUMMARY_INCONSISTENT") {
		t.Error("the report of an invalid bundle lacks its diagnostic")
	}

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"report", invalid}, "-o/--output is required"},
		{"no input", []string{"report", "-o", out}, "accepts 1 arg"},
		{"bad time", []string{"report", invalid, "-o", out + "2", "--evaluated-at", "2026-13-01T00:00:00Z"}, "is not an RFC 3339 date-time"},
		{"empty time", []string{"report", invalid, "-o", out + "2", "--evaluated-at", ""}, `invalid argument "" for "--evaluated-at" flag: an empty value is refused`},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.args...)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %q", code, stdout, stderr, c.want)
			}
		})
	}
	if _, err := os.Stat(out + "2"); err == nil {
		t.Error("a usage error wrote a report")
	}
}

// TestCLIReportSameFactsAsAttestVerify: for every case of the attestation
// corpus, report exits as attest verify does and its page shows the same
// diagnostics and derived level.
func TestCLIReportSameFactsAsAttestVerify(t *testing.T) {
	dir := t.TempDir()
	for _, c := range loadAttestCatalog(t) {
		t.Run(c.id, func(t *testing.T) {
			args := []string{c.wrapper, "--evaluated-at", c.evaluatedAt}
			if c.policy != "" {
				args = append(args, "--policy", c.policy)
			}
			vout, _, vcode := runCLI(t, append([]string{"attest", "verify"}, args...)...)
			out := filepath.Join(dir, c.id+".html")
			_, _, rcode := runCLI(t, append([]string{"report", "-o", out}, args...)...)
			if rcode != vcode {
				t.Fatalf("report exit %d, attest verify exit %d", rcode, vcode)
			}
			if rcode == exitInput {
				if _, err := os.Lstat(out); err == nil {
					t.Error("a report was written for an input attest verify cannot evaluate")
				}
				return
			}
			page := readReport(t, out)
			res, err := canonjson.Parse([]byte(strings.TrimSpace(vout)))
			if err != nil {
				t.Fatalf("attest verify output: %v", err)
			}
			for _, d := range res.Get("diagnostics").Items {
				if !strings.Contains(page, "<code>"+d.Str+"</code>") {
					t.Errorf("report lacks diagnostic %s", d.Str)
				}
			}
			if lvl := res.Get("authenticityClassification"); lvl.Is(canonjson.String) {
				if !strings.Contains(page, `<dt>Derived level</dt><dd class="big">`+lvl.Str+`</dd>`) {
					t.Errorf("report lacks derived level %s", lvl.Str)
				}
			} else if res.Get("diagnostics").Items != nil && strings.Contains(page, `<dt>Derived level</dt><dd class="big">`) {
				t.Error("report shows a derived level for a failed verification")
			}
		})
	}
}
