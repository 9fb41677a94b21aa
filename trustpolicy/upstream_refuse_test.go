package trustpolicy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
)

// An upstream (mcp-res.trust-policy/0.2.0) policy refuses an envelope
// signed for another trust policy id, naming both ids; the control is the
// same case with the policy as committed, which verifies.
func TestUpstreamPolicyRefusesOtherPolicyID(t *testing.T) {
	cat := fixture(t, "catalog.json")
	at := cat.Get("evaluatedAt").Str
	var w, pol *canonjson.Value
	for _, c := range cat.Get("cases").Items {
		p := c.Get("trustPolicy")
		if p.Is(canonjson.String) && len(c.Get("expectedDiagnostics").Items) == 0 && !c.Get("evaluatedAt").Is(canonjson.String) {
			w, pol = fixture(t, c.Get("wrapper").Str), fixture(t, filepath.Base(p.Str))
			break
		}
	}
	if w == nil {
		t.Fatal("the catalog has no valid case with a trust policy")
	}
	verify := func(pol *canonjson.Value) attest.Result {
		t.Helper()
		r, err := attest.Verify(w, attest.Options{Policy: open(pol), EvaluatedAt: at, Validator: testVal})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := verify(pol); !r.Valid {
		t.Fatalf("control: %v %s", r.Diagnostics, r.Detail)
	}
	id := pol.Get("id").Str
	other := pol.Clone()
	other.Set("id", canonjson.NewString("example/another-policy"))
	r := verify(other)
	if r.Valid || !strings.Contains(r.Detail, `signed for trust policy "`+id+`", evaluated with "example/another-policy"`) {
		t.Fatalf("another policy id: valid %t, %v %s", r.Valid, r.Diagnostics, r.Detail)
	}
}
