package verifycmd

import (
	"fmt"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/internal/canonjson"
)

// DocumentHints says what to do with a document that is not what the
// command expects, recognised by its shape: an unsealed draft, or a
// Sigstore bundle. The hints go to stderr; the result is never changed.
func DocumentHints(path string, doc *canonjson.Value) []string {
	switch {
	case bundle.LooksUnsealed(doc):
		return []string{fmt.Sprintf("%s looks like an unsealed draft (its integrity.bundleDigest is empty or a placeholder): run `mcpres seal %s -o BUNDLE.json` first, then use BUNDLE.json", path, path)}
	case sigstore.IsSigstoreBundle(doc):
		return []string{fmt.Sprintf("%s is a Sigstore bundle (%s…), not an MCP-RES document: `mcpres attest export` produces these for Sigstore tools (cosign, sigstore-go; see docs/interop.md); verify the MCP-RES attested bundle it was exported from with `mcpres attest verify` instead", path, sigstore.MediaTypePrefix)}
	}
	return nil
}

// Hint prints one hint line on Stderr.
func (a *Printer) Hint(h string) {
	fmt.Fprintf(a.Stderr, "%s: hint: %s\n", a.Prog, h)
}
