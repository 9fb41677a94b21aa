package loadgen

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog/admit"
)

// TestVariants: the submissions made from a valid bundle are distinct and
// each admitted by the log's rule; a base the log would refuse, an
// attested bundle and a bundle with nothing to vary are refused.
func TestVariants(t *testing.T) {
	base := bundletest.Example(t)
	body, err := Variants(base, attesttest.EvaluatedAt)
	if err != nil {
		t.Fatal(err)
	}
	ad := admit.New()
	seen := map[string]bool{}
	for i := range 3 {
		b, err := body(i)
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(b)] {
			t.Fatalf("variant %d repeats an earlier one", i)
		}
		seen[string(b)] = true
		if _, err := ad.AdmitBody(b, attesttest.EvaluatedAt); err != nil {
			t.Fatalf("variant %d is not admitted: %v", i, err)
		}
	}

	invalid := base.Clone()
	invalid.Path("integrity").Get("bundleDigest").Str = strings.Repeat("0", 64)
	s, err := attest.SignBundle(base, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	noOS := base.Clone()
	noOS.Path("evidence", "run", "environment").Set("os", canonjson.NewBool(true))
	for name, v := range map[string]*canonjson.Value{"invalid": invalid, "attested": s.Attested, "no os": noOS} {
		if _, err := Variants(v, attesttest.EvaluatedAt); err == nil {
			t.Errorf("%s: a base the load generator cannot use was taken", name)
		}
	}
}
