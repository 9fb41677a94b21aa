package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// An unsealed draft and a Sigstore bundle get one hint line on stderr;
// the result on stdout is unchanged. Controls: an invalid sealed bundle
// and a valid bundle get none.
func TestCLIHints(t *testing.T) {
	dir := t.TempDir()
	draft := writePretty(t, dir, "draft.json", bundletest.Draft(t))
	broken := bundletest.Example(t)
	broken.Path("statement").Set("subjectName", canonjson.NewString("")) // invalid, digests well-formed
	brokenFile := writePretty(t, dir, "broken.json", broken)
	sealed := exampleBundleFile(t, dir)
	one := writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	signed := filepath.Join(dir, "signed.json")
	if _, stderr, code := runCLI(t, signArgs(sealed, one, attesttest.IdentityOne, signed)...); code != exitValid {
		t.Fatalf("sign: %s", stderr)
	}
	sig := filepath.Join(dir, "sig.json")
	if _, stderr, code := runCLI(t, "attest", "export", "--sigstore-bundle", "0", "-o", sig, signed); code != exitValid {
		t.Fatalf("export: %s", stderr)
	}
	const seal, sigstoreHint = "run `mcpres seal ", "is a Sigstore bundle (application/vnd.dev.sigstore.bundle…), not an MCP-RES document"
	for _, tt := range []struct {
		name string
		args []string
		hint string // "" for none
	}{
		{"validate a draft", []string{"validate", draft}, seal},
		{"validate a draft, text", []string{"validate", "--format", "text", draft}, seal},
		{"attest sign a draft", signArgs(draft, one, attesttest.IdentityOne, filepath.Join(dir, "x.json")), seal},
		{"validate a Sigstore bundle", []string{"validate", sig}, sigstoreHint},
		{"attest verify a Sigstore bundle", []string{"attest", "verify", sig}, sigstoreHint},
		{"control: an invalid sealed bundle", []string{"validate", brokenFile}, ""},
		{"control: a valid bundle", []string{"validate", sealed}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, _ := runCLI(t, tt.args...)
			hints := strings.Count(stderr, "mcpres: hint: ")
			switch {
			case tt.hint == "" && hints != 0:
				t.Errorf("stderr %q: want no hint", stderr)
			case tt.hint != "" && (hints != 1 || !strings.Contains(stderr, tt.hint)):
				t.Errorf("stderr %q: want one hint containing %q", stderr, tt.hint)
			}
			if strings.Contains(stdout, "hint") {
				t.Errorf("a hint reached stdout: %q", stdout)
			}
		})
	}
	// The result itself is byte-identical to a run that gives no hint: the
	// draft's result is the schema failure, as upstream prints it.
	stdout, _, code := runCLI(t, "validate", draft)
	if code != exitInvalid || !strings.HasPrefix(stdout, `{"valid":false,"diagnostics":["MCP_RES_SCHEMA_INVALID"]`) {
		t.Errorf("draft result changed: exit %d, %s", code, stdout)
	}
}
