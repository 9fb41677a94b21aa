package oci

import (
	"strings"
	"testing"
)

func TestOCIFilterHeaderAndPath(t *testing.T) {
	for h, want := range map[string]bool{"artifactType": true, "annotation, artifactType": true, " artifactType ,x": true,
		"": false, "artifactTypes": false, "annotation": false, "ArtifactType": false} {
		if filterApplied(h) != want {
			t.Errorf("filterApplied(%q) = %t", h, !want)
		}
	}
	dg := Digest([]byte("x"))
	for p, want := range map[string]bool{"/v2/mcp/server/referrers/" + dg: true, "/v2/a/referrers/b/referrers/" + dg: true,
		"/v2/referrers/manifests/" + dg: false, "/v2/mcp/referrers/" + dg + "/x": false, "/v2/mcp/referrers/sha256:00": false,
		"/v2//referrers/" + dg: false, "/v3/mcp/referrers/" + dg: false, "/v2/referrers/" + dg: false} {
		if isReferrersRequest(p) != want {
			t.Errorf("isReferrersRequest(%q) = %t", p, !want)
		}
	}
}

// FuzzFilterHeaderAndPath: the two readers of what a registry or oras-go
// hands the transport never panic, and a referrers path ends in a valid
// digest after /referrers/.
func FuzzFilterHeaderAndPath(f *testing.F) {
	f.Add("annotation, artifactType", "/v2/mcp/server/referrers/"+Digest([]byte("x")))
	f.Add("", "/v2/referrers/")
	f.Fuzz(func(t *testing.T, h, p string) {
		if filterApplied(h) && !strings.Contains(h, "artifactType") {
			t.Errorf("filterApplied(%q) without artifactType", h)
		}
		if isReferrersRequest(p) {
			i := strings.LastIndex(p, "/referrers/")
			if !strings.HasPrefix(p, "/v2/") || i < 0 || !ValidDigest(p[i+len("/referrers/"):]) {
				t.Errorf("isReferrersRequest(%q)", p)
			}
		}
	})
}
