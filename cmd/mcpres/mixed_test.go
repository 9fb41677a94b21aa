package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/validator/profile"
)

// TestCLIValidateMixedFolder puts one document of every kind in a folder:
// `mcpres validate` detects each kind from its schemaVersion and gives
// one correct result per file, in order.
func TestCLIValidateMixedFolder(t *testing.T) {
	dir := t.TempDir()
	files := []struct{ src, name, want string }{
		{"../../testdata/bundles/example.json", "a-bundle-v02.json", `"valid":true,"diagnostics":[],"schemaErrors":[]}`},
		{"../../validator/v01/testdata/example.json", "b-bundle-v01.json", `"valid":true,"diagnostics":[],"schemaErrors":[]}`},
		{"../../validator/migration/testdata/valid/valid-migration.json", "c-migration.json", `"valid":true,"diagnostics":[],"schemaErrors":[]}`},
		{"../../validator/migration/testdata/invalid/digest-substitution.json", "d-migration-bad.json", `"MCP_RES_MIGRATION_DIGEST_MISMATCH"`},
		{"../../testdata/attestation/signed-untrusted-allowed-at-signed-level.json", "e-attested.json", `"authenticityClassification":"SIGNED"`},
		{"../../testdata/attestation/witnessed.json", "f-attested-needs-policy.json", `"MCP_RES_ATTESTATION_UNTRUSTED_SIGNER"`},
		{"../../testdata/attestation/altered-payload.json", "f2-attested-bad.json", `"MCP_RES_ATTESTATION_SIGNATURE_INVALID"`},
		{"../../testdata/official/clean.json", "g-official.json", `"importStatus":"COMPLETE"`},
		{"../../testdata/profile/example-full-2026-07-28.json", "h-profile.json", `"profileStatus"`},
		{"../../testdata/oauth/standin-2026-07-28.json", "i-oauth.json", `"securityCertificationClaim":false`},
	}
	for _, f := range files {
		b, err := os.ReadFile(f.src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f.name), b, 0o644)
	}
	stdout, _, code := runCLI(t, "validate", "--profiles", "../../testdata/profile/sets/examples", dir)
	if code != exitInvalid {
		t.Errorf("exit %d, want 1 (invalid documents)", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d results for %d files:\n%s", len(lines), len(files), stdout)
	}
	for i, f := range files {
		// Several results: each names its file first (issue 12 item 4).
		if !strings.Contains(lines[i], f.want) || !strings.HasPrefix(lines[i], `{"file":"`+filepath.Join(dir, f.name)+`",`) {
			t.Errorf("%s: %s, want %s", f.name, lines[i], f.want)
		}
	}
}

// A profile evaluation validated without profile manifests cannot be
// evaluated (exit 2): the result gives package profile's reason, which
// names no flag, and a hint on stderr says how to give them (--profiles);
// with --profiles there is no such hint (the control).
func TestCLIValidateProfileWithoutManifestsHint(t *testing.T) {
	t.Setenv("MCPRES_PROFILES", "")
	eval := "../../testdata/profile/example-full-2026-07-28.json"
	stdout, stderr, code := runCLI(t, "validate", eval)
	hint := "mcpres: hint: " + eval + ": give the reliability-profile manifests with --profiles DIR (or $MCPRES_PROFILES)"
	if code != exitInput || !strings.Contains(stdout, profile.NoProfileSet) || strings.Contains(stdout, "--profiles") || !strings.Contains(stderr, hint) {
		t.Errorf("without manifests: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	_, stderr, _ = runCLI(t, "validate", "--profiles", "../../testdata/profile/sets/examples", eval)
	if strings.Contains(stderr, "--profiles DIR") {
		t.Errorf("with manifests: %s", stderr)
	}
}
