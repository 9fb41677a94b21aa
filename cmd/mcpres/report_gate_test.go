package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// mcpres report judges an attested bundle with attest verify's gate when a
// policy is given: a FAIL result or an untrusted signer fails the page's
// verdict (exit 1) unless accepted by name; without a policy the verdict
// box still names a result that is not PASS, and a gate flag is a usage
// error; an unreadable policy is exit 2 whatever the document.
func TestCLIReportGate(t *testing.T) {
	d := t.TempDir()
	key := writeTestKey(t, d, "one.key", attesttest.TestOnlyKeyOne())
	rogueKey := writeTestKey(t, d, "two.key", attesttest.TestOnlyKeyTwo())
	fail := writePretty(t, d, "fail.json", bundletest.ExampleWithResult(t, attest.ResultFail))
	pass := writePretty(t, d, "pass.json", bundletest.Example(t))
	failAtt, passAtt, rogueAtt := filepath.Join(d, "fail.att.json"), filepath.Join(d, "pass.att.json"), filepath.Join(d, "rogue.att.json")
	runExpect(t, exitValid, signArgs(fail, key, attesttest.IdentityOne, failAtt)...)
	runExpect(t, exitValid, signArgs(pass, key, attesttest.IdentityOne, passAtt)...)
	runExpect(t, exitValid, signArgs(pass, rogueKey, attesttest.IdentityTwo, rogueAtt)...)
	policy := writePretty(t, d, "policy.json", attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}))

	for _, c := range []struct {
		name string
		args []string
		code int
		page []string
	}{
		{"FAIL with a policy", []string{failAtt, "--policy", policy, "--subject-name", exampleSubjectName}, exitInvalid, []string{">FAILED<", "result FAIL", "Gate checks"}},
		{"FAIL accepted", []string{failAtt, "--policy", policy, "--subject-name", exampleSubjectName, "--accept-result", "FAIL"}, exitValid, []string{">PASSED<", "Gate checks"}},
		{"rogue with a policy", []string{rogueAtt, "--policy", policy, "--subject-name", exampleSubjectName}, exitInvalid, []string{">FAILED<", "SIGNED_WITH_IDENTITY required, derived SIGNED"}},
		{"honest with a policy", []string{passAtt, "--policy", policy, "--subject-name", exampleSubjectName, "--require-level", "SIGNED_WITH_IDENTITY"}, exitValid, []string{">PASSED<"}},
		{"FAIL without a policy", []string{failAtt}, exitValid, []string{"VALID, RESULT FAIL", "did not pass"}},
		{"a FAIL conformance bundle", []string{fail}, exitValid, []string{"VALID, RESULT FAIL"}},
		{"PASS without a policy: no result warning", []string{pass}, exitValid, []string{">VALID<"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.html")
			args := append([]string{"report", "-o", out, "--evaluated-at", attesttest.EvaluatedAt, "--quiet"}, c.args...)
			stdout, stderr, code := runCLI(t, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			page, _ := os.ReadFile(out)
			for _, w := range c.page {
				if !strings.Contains(string(page), w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if c.name == "PASS without a policy: no result warning" && strings.Contains(string(page), "RESULT") {
				t.Errorf("a PASS bundle's box names a result")
			}
		})
	}
	// Usage and unreadable inputs: nothing written.
	for _, args := range [][]string{
		{failAtt, "--require-level", "WITNESSED"},
		{failAtt, "--accept-result", "FAIL"},
		{pass, "--policy", filepath.Join(d, "missing.json")},
		{failAtt, "--subject-name", exampleSubjectName},
	} {
		out := filepath.Join(t.TempDir(), "r.html")
		if _, stderr, code := runCLI(t, append([]string{"report", "-o", out, "--quiet"}, args...)...); code != exitInput {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: a page was written", args)
		}
	}
}

// report --trusted-root asks mcpres-sigstore (a stand-in here; the real
// one is tested in cmd/mcpres-sigstore) for the policy the bundle is
// verified against: a certified policy is used with its notes on the
// page, a refusal makes the verdict INVALID with its code (exit 1), the
// stand-in's failure is exit 2 with no page; the control: with the
// policy that does not trust the signer, the gate fails.
func TestCLIReportKeyless(t *testing.T) {
	d := t.TempDir()
	key := writeTestKey(t, d, "one.key", attesttest.TestOnlyKeyOne())
	pass := writePretty(t, d, "pass.json", bundletest.Example(t))
	att := filepath.Join(d, "pass.att.json")
	runExpect(t, exitValid, signArgs(pass, key, attesttest.IdentityOne, att)...)
	untrusting := writePretty(t, d, "policy.json", attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"two"}}))
	trusting, err := canonjson.Compact(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}))
	if err != nil {
		t.Fatal(err)
	}
	root := writeTestFile(t, d, "trusted_root.json", []byte("{}"), 0o644)
	stub := filepath.Join(d, "mcpres-sigstore")
	t.Setenv(sigstoreBinaryEnv, stub)
	for _, c := range []struct {
		name, answer string
		code         int
		page         []string
	}{
		{"certified", `{"policy":` + string(trusting) + `,"notes":["keyless: envelope 0 is certified for identity signer \"release\": test"]}`, exitValid, []string{">PASSED<", "keyless: envelope 0 is certified"}},
		{"refused", `{"refused":{"code":"MCPRES_KEYLESS_UNTRUSTED_CA","detail":"test refusal"}}`, exitInvalid, []string{"MCPRES_KEYLESS_UNTRUSTED_CA", ">FAILED<"}},
		{"no certification", `{"policy":` + readPolicyJSON(t, untrusting) + `,"notes":[]}`, exitInvalid, []string{"SIGNED_WITH_IDENTITY required, derived SIGNED"}},
		{"companion fails", "", exitInput, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := "#!/bin/sh\nexit 2\n"
			if c.answer != "" {
				writeTestFile(t, d, "answer.json", []byte(c.answer), 0o644)
				script = "#!/bin/sh\ncat " + filepath.Join(d, "answer.json") + "\n"
			}
			writeTestFile(t, d, "mcpres-sigstore", []byte(script), 0o755)
			out := filepath.Join(t.TempDir(), "r.html")
			stdout, stderr, code := runCLI(t, "report", "-o", out, "--evaluated-at", attesttest.EvaluatedAt, "--quiet", att,
				"--policy", untrusting, "--trusted-root", root, "--subject-name", exampleSubjectName)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			page, err := os.ReadFile(out)
			if c.page == nil {
				if err == nil {
					t.Error("a page was written")
				}
				return
			}
			for _, w := range c.page {
				if !strings.Contains(string(page), w) {
					t.Errorf("the page lacks %q", w)
				}
			}
		})
	}
	if _, stderr, code := runCLI(t, "report", "-o", filepath.Join(d, "x.html"), att, "--trusted-root", root); code != exitInput || !strings.Contains(stderr, "--trusted-root goes with --policy") {
		t.Errorf("--trusted-root without --policy: exit %d %s", code, stderr)
	}
}

func readPolicyJSON(t *testing.T, path string) string {
	t.Helper()
	_, v, err := canonjson.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := canonjson.Compact(v)
	return string(b)
}
