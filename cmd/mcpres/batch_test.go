package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

const attestFixtures = "../../testdata/attestation"

// copyFixture copies testdata/attestation/name into dir as newName.
func copyFixture(t *testing.T, dir, name, newName string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(attestFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, newName)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A batch over a directory gives one result per file in lexical order, the
// same bytes on every run, a summary on stderr for JSON, and an unreadable
// file among many gives its own INPUT_INVALID result (exit 2) without
// stopping the others.
func TestCLIBatchDirectoryOrderAndIsolation(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	copyFixture(t, dir, "witnessed.json", "a-witnessed.json")
	copyFixture(t, dir, "duplicate-signer.json", "b-duplicate.json")
	os.WriteFile(filepath.Join(dir, "c-broken.json"), []byte(`{"a":1,"a":2}`), 0o644)
	copyFixture(t, dir, "signed-with-identity.json", "d-signed.json")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not json"), 0o644)
	copyFixture(t, sub, "unsigned-integrity-only.json", "e-unsigned.json")
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")

	args := []string{"attest", "verify", "--policy", policy, "--subject-name", exampleSubjectName, "--evaluated-at", "2026-08-27T18:05:00.000Z", dir}
	stdout, stderr, code := runCLI(t, args...)
	if code != exitInput {
		t.Errorf("exit %d, want 2 (the worst: one unreadable file)", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	want := []string{`"authenticityClassification":"WITNESSED"`, `MCP_RES_ATTESTATION_DUPLICATE_SIGNER`, `MCP_RES_INPUT_INVALID: duplicate key`, `"authenticityClassification":"SIGNED_WITH_IDENTITY"`}
	if len(lines) != len(want) {
		t.Fatalf("got %d results, want %d (sub/ and notes.txt excluded):\n%s", len(lines), len(want), stdout)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("result %d = %s, want it to contain %s", i, lines[i], w)
		}
	}
	if !strings.Contains(stderr, "mcpres: 4 files: 2 passed, 1 invalid, 1 input invalid; valid by level: SIGNED_WITH_IDENTITY 1, WITNESSED 1") {
		t.Errorf("stderr summary = %q", stderr)
	}
	for range 3 {
		again, _, _ := runCLI(t, args...)
		if again != stdout {
			t.Fatalf("batch output differs between runs:\n%s\n---\n%s", stdout, again)
		}
	}

	// --recursive adds the subdirectory.
	stdout, _, _ = runCLI(t, append(args[:len(args)-1], "--recursive", dir)...)
	if n := strings.Count(stdout, "\n"); n != 5 {
		t.Errorf("--recursive gave %d results, want 5:\n%s", n, stdout)
	}
	// An empty directory is an error.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	_, stderr, code = runCLI(t, "validate", empty)
	if code != exitInput || !strings.Contains(stderr, "holds no .json files") {
		t.Errorf("empty dir: exit %d, stderr %q", code, stderr)
	}
}

func TestCLIValidateMarkdown(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a|b.json"), []byte(`[`), 0o644)
	stdout, _, code := runCLI(t, "validate", "--format", "markdown", "../../testdata/bundles/example.json", filepath.Join(dir, "a|b.json"))
	if code != exitInput {
		t.Errorf("exit %d, want 2", code)
	}
	want := []string{
		"| file | result | authenticity | evidence class | diagnostics |",
		"|---|---|---|---|---|",
		"| ../../testdata/bundles/example.json | VALID | – | – | – |",
	}
	lines := strings.Split(stdout, "\n")
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[3], `a\|b.json | INPUT_INVALID |`) || !strings.Contains(stdout, "**2 files: 1 valid, 1 input invalid**") {
		t.Errorf("markdown output:\n%s", stdout)
	}
}

// Every gate outcome: passing, below the required level (valid bundle),
// below the required class, and an invalid bundle with a forged high claim.
func TestCLIGates(t *testing.T) {
	at := "2026-08-27T18:05:00.000Z"
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	tests := []struct {
		name      string
		fixture   string
		policy    string
		gate      []string
		code      int
		passed    bool
		reason    string
		wantValid bool
	}{
		{"level reached", "witnessed.json", policy, []string{"--require-level", "WITNESSED"}, 0, true, "", true},
		{"a lower level accepted by name", "signed-with-identity.json", policy, []string{"--require-level-unsafe", "SIGNED"}, 0, true, "", true},
		{"valid but below the level", "signed-with-identity.json", policy, []string{"--require-level", "WITNESSED"},
			1, false, "WITNESSED required, derived SIGNED_WITH_IDENTITY: trusted signers: 1 of 1 envelopes, by (keyFingerprint, signerIdentity) pair; witnessed: 1 distinct keys, 2 required (counted by key fingerprint)", true},
		// Without any trust source a gate is a usage error
		// (TestCLIAttestVerifyNoTrustSource).
		{"class reached", "witnessed.json", policy, []string{"--require-evidence-class", "FIXTURE_VERIFIED"}, 0, true, "", true},
		{"class below", "witnessed.json", policy, []string{"--require-evidence-class", "GENUINE_RUNTIME"},
			1, false, "evidence class GENUINE_RUNTIME required, the bundle has FIXTURE_BACKED_PROTOCOL", true},
		{"invalid bundle with a forged high claim", "overclaim-witnessed-one-signer.json", policy, []string{"--require-level", "SIGNED_WITH_IDENTITY"},
			1, false, "the attested bundle is invalid (MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM)", false},
		{"forged identity-key signature", "identity-key-forgery.json", policy, []string{"--require-level", "SIGNED_WITH_IDENTITY"},
			1, false, "the attested bundle is invalid (MCP_RES_ATTESTATION_SIGNATURE_INVALID)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"attest", "verify", "--evaluated-at", at}
			if tt.policy != "" {
				args = append(args, "--policy", tt.policy)
			}
			args = append(append(args, tt.gate...), filepath.Join(attestFixtures, tt.fixture))
			stdout, _, code := runCLI(t, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			res, err := canonjson.Parse([]byte(stdout))
			if err != nil {
				t.Fatalf("stdout: %v\n%s", err, stdout)
			}
			if res.Get("valid").Bool != tt.wantValid {
				t.Errorf("valid = %t, want %t (a gate never changes the verification result)", res.Get("valid").Bool, tt.wantValid)
			}
			g := res.Get("gate")
			if g.Get("passed").Bool != tt.passed {
				t.Errorf("gate = %s", stdout)
			}
			reasons := g.Get("reasons").Items
			if tt.reason == "" && len(reasons) != 0 || tt.reason != "" && (len(reasons) != 1 || reasons[0].Str != tt.reason) {
				t.Errorf("gate reasons = %v, want %q", reasons, tt.reason)
			}
		})
	}
	_, stderr, code := runCLI(t, "attest", "verify", "--require-level", "PLATINUM", "x.json")
	if code != exitInput || !strings.Contains(stderr, `unknown authenticity level "PLATINUM"`) {
		t.Errorf("bad level: exit %d, %q", code, stderr)
	}
}
