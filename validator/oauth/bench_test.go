package oauth_test

import (
	"testing"

	"github.com/mcpres/mcpres/validator/profile"
)

// BenchmarkValidateUpstream validates a full 25-case evaluation against the
// twelve upstream manifests.
func BenchmarkValidateUpstream(b *testing.B) {
	set, err := profile.LoadDir(upstreamProfiles(b))
	if err != nil {
		b.Fatal(err)
	}
	val, doc := testValidator(b), evaluation(b, upstreamOAuth.manifestSha256, "2026-07-28", evalOpts{cases: upstreamCases()})
	for b.Loop() {
		if r, err := val.Validate(doc, set); err != nil || !r.Valid {
			b.Fatal(err, r.Diagnostics)
		}
	}
}
