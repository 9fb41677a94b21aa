package trustpolicy

import (
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/doctest"
)

func readDocs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "trust-policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docsKey is the private key of an example key of the docs (derived from
// its label; example only, never to be trusted).
func docsKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres docs example key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

// TestDocsExample: the complete example of docs/trust-policy.md loads, and
// the notes it shows are what an evaluation with it prints.
func TestDocsExample(t *testing.T) {
	doc := readDocs(t)
	v, err := canonjson.Parse([]byte(doctest.Block(t, doc, "## The format", "json")))
	if err != nil {
		t.Fatalf("the example is not strict JSON: %v", err)
	}
	p, problems := Load(v, testVal)
	if problems != nil {
		t.Fatalf("the example does not load: %v", problems)
	}
	d := p.Document()
	if len(d.Signers) != 3 || d.Witnesses.Quorum != 2 || len(p.TLogPolicy().Logs) != 1 || len(p.TLogPolicy().Witnesses) != 2 {
		t.Errorf("example: %+v", d)
	}
	for i, label := range []string{"release", "witness-a", "witness-b"} {
		if got, want := p.signers[i].fp, fingerprint(pub(docsKey(label))); got != want {
			t.Errorf("signer %d key %s, want the docs key %q (%s)", i, got, label, want)
		}
	}
	if d.Revocations[0].Fingerprint != fingerprint(pub(docsKey("release-2025"))) {
		t.Errorf("revoked fingerprint is not the docs key release-2025's")
	}
	if _, losses := p.Upstream(); len(losses) == 0 {
		t.Error("the example exports without loss")
	}

	// The notes example: witness-b signs under another identity.
	b := fixture(t, "witnessed.json").Get("bundle")
	sign := func(label, identity string) *canonjson.Value {
		env, err := attest.Sign(b, docsKey(label), attest.SignOptions{SignerIdentity: identity, SigningTime: attesttest.SigningTime, TrustPolicyID: d.ID})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	w := attest.Wrap(b, attest.Witnessed, sign("release", "https://example.org/release"),
		sign("witness-a", "https://witness-a.example.org"), sign("witness-b", "https://elsewhere.example"))
	r := verify(t, w, d, attesttest.EvaluatedAt)
	if len(r.Diagnostics) != 1 || r.Diagnostics[0] != attest.CodeUntrustedSigner {
		t.Fatalf("diagnostics %v", r.Diagnostics)
	}
	want := strings.Split(strings.TrimSpace(doctest.Block(t, doc, "## Evaluation", "")), "\n")
	if len(want) != 2 || want[0] != r.Evaluation.Notes[0] || want[1] != r.Evaluation.Notes[1] {
		t.Errorf("docs notes:\n%s\nactual notes:\n%s", strings.Join(want, "\n"), strings.Join(r.Evaluation.Notes, "\n"))
	}
	// With witness-b's own identity the example policy derives WITNESSED.
	w = attest.Wrap(b, attest.Witnessed, sign("release", "https://example.org/release"),
		sign("witness-a", "https://witness-a.example.org"), sign("witness-b", "https://witness-b.example.net"))
	if r := verify(t, w, d, attesttest.EvaluatedAt); !r.Valid || r.Level != attest.Witnessed {
		t.Errorf("valid %t level %s: %s", r.Valid, r.Level, r.Detail)
	}
}
