package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
)

// A file of another kind than a command takes — a trust policy given to
// validate, a tlog policy text to --policy, an unsigned bundle to attest
// verify — gets a hint on stderr saying what the file is and which
// command takes it. The result on stdout is exactly what it was (the
// upstream result object for what is validated as a bundle), and a file of
// the right kind that fails gets no such hint (the control).
func TestCLIWrongKindOfFileHints(t *testing.T) {
	e := newLogEnv(t)
	d := e.dir
	bundle := exampleBundleFile(t, d)
	keyOne := writeTestKey(t, d, "one.key", attesttest.TestOnlyKeyOne())
	attested := filepath.Join(d, "attested.json")
	runExpect(t, exitValid, signArgs(bundle, keyOne, attesttest.IdentityOne, attested)...)
	policy := filepath.Join(d, "policy.json")
	runExpect(t, exitValid, "policy", "init", policy, "--id", attesttest.TrustPolicyID,
		"--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2099-01-01T00:00:00.000Z")
	tlogPolicy := filepath.Join(d, "witnesses.txt")
	runExpect(t, exitValid, "policy", "tlog", "add-log", tlogPolicy, "--key", e.p("log.vkey"))
	runExpect(t, exitValid, "policy", "tlog", "add-witness", tlogPolicy, "--name", "w1", "--key", e.p("w1.vkey"))
	invalid := bundletest.Example(t)
	invalid.Path("integrity").Get("bundleDigest").Str = strings.Repeat("0", 63) + "1"
	invalidBundle := writePretty(t, d, "invalid.json", invalid)
	const eval = "2026-09-01T00:00:00.000Z"

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of the unchanged result
		hint   string // "" for none
	}{
		{"validate a trust policy", []string{"validate", policy}, exitInvalid, `{"valid":false,"diagnostics":["MCP_RES_VACUOUS_NEGATIVE_CONTROL"],"schemaErrors":[]}`,
			policy + " is an mcpres trust policy (mcpres.trust-policy/v1), not an MCP-RES document `mcpres validate` takes: `mcpres attest verify --policy` verifies attested bundles against it, and `mcpres policy check` checks it"},
		{"validate a tlog policy", []string{"validate", tlogPolicy}, exitInput, "MCP_RES_INPUT_INVALID",
			tlogPolicy + " is a tlog policy text (log and witness lines), not an MCP-RES document `mcpres validate` takes: `mcpres policy tlog check` checks it"},
		{"validate a verifier key", []string{"validate", e.p("w1.vkey")}, exitInput, "MCP_RES_INPUT_INVALID",
			e.p("w1.vkey") + " is a cosignature/v1 witness verifier key (NAME.vkey of `mcpres witness keygen`)"},
		{"attest verify --policy a tlog policy", []string{"attest", "verify", attested, "--policy", tlogPolicy, "--evaluated-at", eval}, exitInput, "MCP_RES_INPUT_INVALID: trust policy:",
			tlogPolicy + " is a tlog policy text (log and witness lines), not a trust policy (`mcpres attest verify --policy`, `mcpres policy check`): `mcpres policy tlog check` checks it, and `mcpres policy set-transparency POLICY FILE` puts it into a trust policy for --policy"},
		{"attest verify --policy a bundle", []string{"attest", "verify", attested, "--policy", bundle, "--evaluated-at", eval}, exitInvalid, `"valid":false`,
			bundle + " is a conformance bundle (mcp-res.conformance-bundle/0.2.0), not a trust policy"},
		{"attest verify an unsigned bundle", []string{"attest", "verify", bundle, "--policy", policy, "--evaluated-at", eval}, exitInvalid, `"diagnostics":["MCP_RES_ATTESTATION_SCHEMA_INVALID"]`,
			bundle + " is a conformance bundle (mcp-res.conformance-bundle/0.2.0), not an attested conformance bundle, which `mcpres attest verify` takes: `mcpres validate` validates it, and `mcpres attest sign` signs it into an attested bundle"},
		{"attest verify a trust policy", []string{"attest", "verify", policy, "--policy", policy, "--evaluated-at", eval}, exitInvalid, `"diagnostics":["MCP_RES_ATTESTATION_SCHEMA_INVALID"]`,
			policy + " is an mcpres trust policy (mcpres.trust-policy/v1), not an attested conformance bundle"},
		{"policy check a bundle", []string{"policy", "check", bundle}, exitInvalid, "INVALID",
			bundle + " is a conformance bundle (mcp-res.conformance-bundle/0.2.0), not a trust policy"},
		{"policy tlog check a trust policy", []string{"policy", "tlog", "check", policy}, exitInvalid, "",
			policy + " is an mcpres trust policy (mcpres.trust-policy/v1), not a tlog policy text"},
		// Controls: the right kind, failing or not, gets no kind hint.
		{"validate an invalid bundle", []string{"validate", invalidBundle}, exitInvalid, `"valid":false`, ""},
		{"validate --policy a policy", []string{"validate", attested, "--policy", policy, "--evaluated-at", eval}, exitValid, `"valid":true`, ""},
		{"policy tlog check a tlog policy", []string{"policy", "tlog", "check", tlogPolicy}, exitInvalid, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.stdout) {
				t.Errorf("exit %d, want %d; stdout %s stderr %s; want %q", code, tc.code, stdout, stderr, tc.stdout)
			}
			switch {
			case tc.hint == "" && strings.Contains(stderr, "hint:"):
				t.Errorf("a hint for a file of the right kind: %s", stderr)
			case tc.hint != "" && !strings.Contains(stderr, "mcpres: hint: "+tc.hint):
				t.Errorf("stderr %s\nwant the hint %q", stderr, tc.hint)
			case strings.Contains(stdout, "hint"):
				t.Errorf("a hint on stdout: %s", stdout)
			}
		})
	}
}
