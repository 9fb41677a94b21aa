package main

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/oci/ocitest"
)

// buildOCIBinary builds cmd/mcpres-oci into a temporary directory and
// points $MCPRES_OCI at it for the rest of the test.
func buildOCIBinary(t *testing.T) string { return buildCompanion(t, "mcpres-oci", ociBinaryEnv) }

// `mcpres oci …` and `mcpres attest verify --oci` run mcpres-oci with the
// same arguments (repeated flags and all), under mcpres's name, with its
// exit status.
func TestOCIForwarding(t *testing.T) {
	buildOCIBinary(t)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	r := ocitest.ReferrersRegistry(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "forward")
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.attested.json")
	pub := filepath.Join(dir, "one.pub")
	pem, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bundle, ocitest.AttestedBundle(t, pushed.Digest), 0o644)
	os.WriteFile(pub, pem, 0o644)

	out := runExpect(t, 0, "oci", "attach", pushed.Ref, bundle)
	if !strings.Contains(out, "attached to "+r.Host+"/mcp/server@"+pushed.Digest) {
		t.Errorf("oci attach:\n%s", out)
	}
	out = runExpect(t, 0, "oci", "discover", pushed.Ref)
	if !strings.Contains(out, "1 MCP-RES referrer (referrers API)") {
		t.Errorf("oci discover:\n%s", out)
	}
	verify := []string{"attest", "verify", "--oci", pushed.Ref, "--evaluated-at", attesttest.EvaluatedAt, "--require-level", "SIGNED_WITH_IDENTITY", "--format", "text",
		"--key", pub, "--identity", attesttest.IdentityOne}
	out = runExpect(t, 0, verify...)
	if !strings.Contains(out, "VALID SIGNED_WITH_IDENTITY") || !strings.Contains(out, "gate: passed: 1 of 1 referrer bound to "+pushed.Digest) {
		t.Errorf("attest verify --oci:\n%s", out)
	}
	// Control: another identity for the key is not trusted.
	verify[len(verify)-1] = attesttest.IdentityTwo
	runExpect(t, 1, verify...)
	// Its messages on stderr are mcpres's: the summary line of a JSON
	// run, and no mcpres-oci prefix.
	_, stderr, code := runCLI(t, "attest", "verify", "--oci", pushed.Ref, "--evaluated-at", attesttest.EvaluatedAt, "--key", pub, "--identity", attesttest.IdentityOne)
	if code != exitValid || !strings.Contains(stderr, "mcpres: gate: passed") || strings.Contains(stderr, "mcpres-oci") {
		t.Errorf("attest verify --oci stderr names another program: exit %d\n%s", code, stderr)
	}

	// Messages and usage pointers name mcpres.
	_, stderr, code = runCLI(t, "oci", "pull", pushed.Ref)
	if code != exitInput || !strings.HasPrefix(stderr, "mcpres: error: -o/--output DIR is required") || !strings.Contains(stderr, "Run 'mcpres oci pull --help' for usage.") {
		t.Errorf("oci pull without -o: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI(t, "attest", "verify", "--oci", pushed.Ref, "extra.json")
	if code != exitInput || !strings.Contains(stderr, "mcpres: error: FILE arguments can't be used with --oci") {
		t.Errorf("attest verify --oci FILE: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI(t, "attest", "verify", "--oci", pushed.Ref, "--policy-tuf", "r.json", "--policy-repo", "d", "--policy-target", "p")
	if code != exitInput || !strings.Contains(stderr, "--oci can't be used with --policy-tuf") {
		t.Errorf("attest verify --oci --policy-tuf: exit %d\n%s", code, stderr)
	}

	// `mcpres oci <Tab>` offers mcpres-oci's commands, not its own attest
	// and man.
	stdout, _, _ := runCLI(t, "__complete", "oci", "")
	for _, w := range []string{"attach\t", "discover\t", "pull\t"} {
		if !strings.Contains(stdout, "\n"+w) && !strings.HasPrefix(stdout, w) {
			t.Errorf("oci completion lacks %q:\n%s", w, stdout)
		}
	}
	for _, w := range []string{"attest", "man", "help"} {
		if strings.Contains(stdout, "\n"+w+"\t") || strings.HasPrefix(stdout, w+"\t") {
			t.Errorf("oci completion offers %s:\n%s", w, stdout)
		}
	}

	// Without the companion: exit 2, saying which binary is missing.
	t.Setenv(ociBinaryEnv, filepath.Join(t.TempDir(), "absent"))
	if _, stderr, code := runCLI(t, "oci", "discover", pushed.Ref); code != exitInput || !strings.Contains(stderr, "absent") {
		t.Errorf("no mcpres-oci: exit %d, %q", code, stderr)
	}
}
