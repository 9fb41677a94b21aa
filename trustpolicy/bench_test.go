package trustpolicy

import (
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
)

// BenchmarkVerifyTransparency measures attest.Verify of a bundle whose one
// envelope carries a c2sp.org/tlog-proof reference (inclusion proof, signed
// checkpoint, two witness cosignatures) under an mcpres.trust-policy/v1
// with a transparency section: the whole verification, to
// TRANSPARENCY_RECORDED, including the policy load and the core validation
// of the embedded bundle.
func BenchmarkVerifyTransparency(b *testing.B) {
	f := newTLogFixture(b)
	w := attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(b, attesttest.TestOnlyKeyOne(), attesttest.IdentityOne, f.ref(2, f.wa, f.wb)))
	opts := attest.Options{Policy: Open(withTLog(testPolicy(), f.text("2")).Value(), OpenOptions{Validator: testVal}), EvaluatedAt: attesttest.EvaluatedAt, Validator: testVal}
	if r, err := attest.Verify(w, opts); err != nil || !r.Valid || r.Level != attest.TransparencyRecorded {
		b.Fatalf("setup: %v %v %s", err, r.Diagnostics, r.Detail)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := attest.Verify(w, opts); err != nil || !r.Valid {
			b.Fatal(err, r.Diagnostics)
		}
	}
}
