package profile_test

import "testing"

// BenchmarkValidate validates a full evaluation against the own example set
// (the whole set is checked on every call, as REFERENCE §5.6 step 2 reads).
func BenchmarkValidate(b *testing.B) {
	val, set, doc := testValidator(b), exampleSet(b), base(b)
	for b.Loop() {
		if r, err := val.Validate(doc, set); err != nil || !r.Valid {
			b.Fatal(err, r.Diagnostics)
		}
	}
}

// BenchmarkValidateUpstream validates the largest upstream evaluation
// (async-operation, 36 checks) against the twelve upstream manifests.
func BenchmarkValidateUpstream(b *testing.B) {
	set := upstreamSet(b)
	s := upstreamManifests[1]
	val, doc := testValidator(b), evaluation(b, s, s.manifestSha256, "2026-07-28", evalOpts{})
	for b.Loop() {
		if r, err := val.Validate(doc, set); err != nil || !r.Valid {
			b.Fatal(err, r.Diagnostics)
		}
	}
}
