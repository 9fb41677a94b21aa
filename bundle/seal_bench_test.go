package bundle_test

import (
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// BenchmarkSeal seals the example bundle and Large bundles up to the
// reader's node limit. Sealing an already sealed bundle does the same work
// as sealing its draft.
func BenchmarkSeal(b *testing.B) {
	cases := []struct {
		name string
		v    *canonjson.Value
	}{
		{"example", bundletest.Example(b)},
		{"ops=1000", bundletest.Large(b, 1000)},
		{fmt.Sprintf("ops=%d", bundletest.MaxLargeOps), bundletest.Large(b, bundletest.MaxLargeOps)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			canon, err := canonjson.Canonical(c.v)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(canon)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bundle.Seal(c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
