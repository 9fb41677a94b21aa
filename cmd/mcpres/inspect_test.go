package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/inspect"
)

// mcpres inspect prints what a reference carries (its cosignatures with
// witness name, key hash and timestamp), an attested bundle's envelopes
// and a policy's signers; one JSON object per file with --format json; a
// file it cannot describe exits 2 and the others are still described.
func TestCLIInspect(t *testing.T) {
	ref := filepath.Join("..", "..", "testdata", "transparency", "example.ref.json")
	signed := filepath.Join("..", "..", "testdata", "transparency", "example.signed.json")
	pol := filepath.Join("..", "..", "testdata", "transparency", "policy.json")
	out := runExpect(t, exitValid, "inspect", ref, signed, pol)
	for _, w := range []string{
		ref + ": transparency-reference",
		"cosignature by witness.example.org (key hash f01c5977) at 2026-01-01T00:00:00Z",
		signed + ": attested-bundle (mcp-res.attested-conformance-bundle/0.2.0)",
		`envelope 1: key deb2ded39dc26fce0e6085b6fc34bf6b5941913bbfe2ea614113cff9e004c170, identity "test://mcp-res/disposable/signer-two"`,
		pol + ": trust-policy (mcpres.trust-policy/v1)",
		inspect.NotVerified,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	stdout, stderr, code := runCLI(t, "inspect", "--format", "json", ref, "missing.json", pol)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitInput || len(lines) != 3 {
		t.Fatalf("exit %d, %d lines\n%s%s", code, len(lines), stdout, stderr)
	}
	for i, want := range []string{inspect.KindReference, "", inspect.KindTrustPolicy} {
		v, err := canonjson.Parse([]byte(lines[i]))
		if err != nil {
			t.Fatal(err)
		}
		if want == "" {
			if v.Get("diagnostics").Items[0].Str != "MCP_RES_INPUT_INVALID" {
				t.Errorf("line %d: %s", i, lines[i])
			}
			continue
		}
		if v.Get("file") == nil || v.Get("schemaVersion").Str != inspect.SchemaVersion || v.Get("kind").Str != want {
			t.Errorf("line %d: %s", i, lines[i])
		}
	}
	if _, stderr, code := runCLI(t, "inspect", "--format", "markdown", ref); code != exitInput || !strings.Contains(stderr, "--format must be json or text") {
		t.Errorf("--format markdown: exit %d %s", code, stderr)
	}
	if _, _, code := runCLI(t, "inspect", filepath.Join("..", "..", "go.mod")); code != exitInput {
		t.Errorf("go.mod: exit %d, want 2", code)
	}
}
