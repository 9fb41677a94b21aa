package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

const testTrustedRoot = `{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","tlogs":[],"certificateAuthorities":[{"uri":"https://fulcio.example"}],"ctlogs":[],"timestampAuthorities":[{"uri":"https://tsa.example"}]}`

// policy add-signer --issuer makes an identity signer; check and inspect
// show it; export refuses it, saying why.
func TestPolicyIdentitySigner(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.json")
	root := writeTestFile(t, dir, "trusted_root.json", []byte(testTrustedRoot), 0o644)
	runExpect(t, exitValid, "policy", "init", policy, "--id", "acme/release", "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
	out := runExpect(t, exitValid, "policy", "add-signer", policy, "--name", "release-workflow",
		"--issuer", "https://token.actions.githubusercontent.com",
		"--identity-regexp", `^https://github\.com/acme/weather-mcp/\.github/workflows/release\.yml@refs/tags/v.*$`,
		"--github-workflow-repository", "acme/weather-mcp", "--github-workflow-trigger", "push", "--trusted-root", root)
	if !strings.Contains(out, `added identity signer "release-workflow"`) || !strings.Contains(out, "trusted root ") {
		t.Fatalf("add-signer: %s", out)
	}
	_, doc, err := canonjson.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	ci := doc.Get("signers").Items[0].Get("certificateIdentity")
	if ci.Get("extensions").Get("sourceRepositoryURI").Str != "https://github.com/acme/weather-mcp" || doc.Get("trustedRoot").Get("sha256").Str != canonjson.BytesDigest([]byte(testTrustedRoot)) {
		t.Fatalf("policy: %s", mustPrettyCLI(t, doc))
	}
	out = runExpect(t, exitValid, "policy", "check", policy)
	for _, want := range []string{`signer "release-workflow" is an identity (keyless): certificate issuer "https://token.actions.githubusercontent.com", identity matching`, "extensions sourceRepositoryURI=https://github.com/acme/weather-mcp, buildTrigger=push", "attest verify --trusted-root", "trusted root: trusted_root.json with SHA-256"} {
		if !strings.Contains(out, want) {
			t.Errorf("policy check lacks %q:\n%s", want, out)
		}
	}
	if out := runExpect(t, exitValid, "inspect", policy); !strings.Contains(out, "keyless: certificate issuer") {
		t.Errorf("inspect: %s", out)
	}
	_, stderr, code := runCLI(t, "policy", "export", policy, "--format", "mcp-res-0.2.0", "-o", filepath.Join(dir, "up.json"))
	if code == exitValid || !strings.Contains(stderr, "identity signer") || !strings.Contains(stderr, "no fixed key") {
		t.Errorf("export: exit %d: %s", code, stderr)
	}

	// Refusals, each before anything is written.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--issuer", "https://i.example", "--identity-regexp", `^.*$`}, "matches more than meant"},
		{[]string{"--issuer", "https://i.example", "--identity-regexp", `acme`}, "not anchored"},
		{[]string{"--issuer", "https://i.example", "--identity", "a@b.example", "--key", "k.pub"}, "--key and --issuer exclude each other"},
		{[]string{"--issuer", "https://i.example"}, "one of --identity (exact) and --identity-regexp"},
		{[]string{"--identity", "x", "--key", "k.pub", "--trusted-root", root}, "--trusted-root goes with an identity signer"},
		{[]string{"--issuer", "https://i.example", "--identity", "a@b.example", "--github-workflow-repository", "acme"}, "not OWNER/REPO"},
	} {
		args := append([]string{"policy", "add-signer", policy, "--name", "n2"}, tc.args...)
		_, stderr, code := runCLI(t, args...)
		if code != exitInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
		}
	}
	// An identity signer in a policy without a trusted root does not load.
	p2 := filepath.Join(dir, "p2.json")
	runExpect(t, exitValid, "policy", "init", p2, "--id", "acme/release", "--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2100-01-01T00:00:00.000Z")
	if _, stderr, code := runCLI(t, "policy", "add-signer", p2, "--name", "n", "--issuer", "https://i.example", "--identity", "a@b.example"); code == exitValid || !strings.Contains(stderr, "trustedRoot") {
		t.Errorf("no trusted root: exit %d: %s", code, stderr)
	}
}

func mustPrettyCLI(t *testing.T, v *canonjson.Value) string {
	t.Helper()
	b, _ := canonjson.Pretty(v)
	return string(b)
}
