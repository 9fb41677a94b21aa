package main

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/oci/ocitest"
)

// TestOCIFloodCLI: junk attached before the honest bundle does not stop
// attest verify --oci: 150 referrers of another type, and junk of our own
// type with broken content (a manifest with the wrong layer, a layer that
// is not a bundle), each an INPUT_INVALID result while the honest bundle
// passes; no flood is named. On the registry with the referrers API, past
// the listing bound (10,000 more of another type) discover, pull and
// verify name the flood.
func TestOCIFloodCLI(t *testing.T) {
	for name, mk := range map[string]func(t *testing.T) *ocitest.Registry{
		"distribution":  func(t *testing.T) *ocitest.Registry { return ocitest.Distribution(t, ocitest.DistributionOptions{}) },
		"referrers API": func(t *testing.T) *ocitest.Registry { return ocitest.ReferrersRegistry(t) },
	} {
		t.Run(name, func(t *testing.T) {
			r := mk(t)
			c := newCLI(t)
			pushed := r.PushImage(t, "mcp/server", "1.0", "flood")
			r.PushJunk(t, "mcp/server", "1.0", ocitest.Junk{N: 150})
			r.PushJunk(t, "mcp/server", "1.0", ocitest.Junk{N: 2, ArtifactType: oci.ArtifactType, Layer: []byte("wrong layer"), LayerMediaType: "application/octet-stream"})
			r.PushJunk(t, "mcp/server", "1.0", ocitest.Junk{N: 2, ArtifactType: oci.ArtifactType, Layer: []byte("not a bundle\n"), LayerMediaType: oci.LayerMediaType})
			about := c.write("about.attested.json", ocitest.AttestedBundle(t, pushed.Digest))
			policy := c.write("policy.json", ocitest.Policy(t))
			at := "--evaluated-at=" + attesttest.EvaluatedAt
			c.must(0, "attach", pushed.Ref, about)

			out, errs := c.must(0, "attest", "verify", "--oci", pushed.Ref, "--policy", policy, at, "--require-level", "SIGNED_WITH_IDENTITY")
			invalid := 0
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.Contains(l, `"MCP_RES_INPUT_INVALID"`) {
					invalid++
				}
			}
			if invalid != 4 || !strings.Contains(errs, "gate: passed: 1 of 5 referrers") || strings.Contains(errs, "flood") || !strings.Contains(errs, "150 referrers of other artifact types") {
				t.Fatalf("verify --oci: %d INPUT_INVALID, want 4\n%s\n%s", invalid, out, errs)
			}
			out, _ = c.must(1, "discover", pushed.Ref) // the broken ones cannot be used
			if strings.Contains(out, "flood") || !strings.Contains(out, "5 MCP-RES referrers") || strings.Count(out, "UNUSABLE") != 2 {
				t.Errorf("discover:\n%s", out)
			}
			if name == "distribution" {
				return
			}

			// 10,000 more: past the listing bound.
			r.PushJunk(t, "mcp/server", "1.0", ocitest.Junk{N: oci.DefaultMaxListed, ArtifactType: "application/vnd.example.other.v1"})
			const named = "the image has more than 10000 referrers (a referrer flood?)"
			out, _, code := c.run("discover", pushed.Ref)
			if code == 2 || !strings.Contains(out, "… truncated: "+named) {
				t.Errorf("discover past the bound: exit %d\n%s", code, out)
			}
			out, _, code = c.run("discover", "--format", "json", pushed.Ref)
			if d := jsonLines(t, out)[0]; code == 2 || !d.Get("truncated").Bool || d.Get("listed").Int != oci.DefaultMaxListed ||
				d.Get("floods").Items[0].Get("bound").Str != oci.BoundListed || !strings.Contains(d.Get("floods").Items[0].Get("note").Str, named) {
				t.Errorf("discover --format json past the bound: exit %d\n%s", code, out)
			}
			// go-containerregistry's registry lists referrers in random
			// order: the honest bundle may be among those examined or not.
			_, errs, code = c.run("attest", "verify", "--oci", pushed.Ref, "--policy", policy, at)
			if code == 2 || !strings.Contains(errs, "oci: "+named) {
				t.Errorf("verify --oci past the bound: exit %d\n%s", code, errs)
			}
			_, errs, code = c.run("pull", pushed.Ref, "-o", "evidence")
			if code == 2 || !strings.Contains(errs, named) {
				t.Errorf("pull past the bound: exit %d\n%s", code, errs)
			}
		})
	}
}
