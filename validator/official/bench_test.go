package official_test

import (
	"testing"

	"github.com/mcpres/mcpres/validator/official"
)

// BenchmarkValidate validates the baselined attachment with its original
// bytes.
func BenchmarkValidate(b *testing.B) {
	out, doc := baselined(b)
	val, opts := testValidator(b), official.Options{OriginalResult: &official.OriginalResult{Bytes: out}}
	for b.Loop() {
		if r, err := val.Validate(doc, opts); err != nil || !r.Valid {
			b.Fatal(err, r.Diagnostics)
		}
	}
}
