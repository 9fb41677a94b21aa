package bundle_test

import (
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// LooksUnsealed fires on a draft and on placeholder digests, and not on a
// sealed bundle, a sealed bundle with a wrong (but well-formed) digest, or
// another document kind.
func TestLooksUnsealed(t *testing.T) {
	digest := func(v *canonjson.Value, d string) *canonjson.Value {
		v.Get("integrity").Set("bundleDigest", canonjson.NewString(d))
		return v
	}
	other := bundletest.Example(t)
	other.Set("schemaVersion", canonjson.NewString(bundle.SchemaVersionAttestedBundle))
	noIntegrity := bundletest.Draft(t)
	noIntegrity.Delete("integrity")
	for _, tt := range []struct {
		name string
		v    *canonjson.Value
		want bool
	}{
		{"the example draft", bundletest.Draft(t), true},
		{"no integrity member", noIntegrity, true},
		{"placeholder TODO", digest(bundletest.Example(t), "TODO"), true},
		{"placeholder zeros", digest(bundletest.Example(t), "0000000000000000000000000000000000000000000000000000000000000000"), true},
		{"control: sealed", bundletest.Example(t), false},
		{"control: sealed, wrong but well-formed digest", digest(bundletest.Example(t), "1111111111111111111111111111111111111111111111111111111111111111"), false},
		{"control: not a conformance bundle", digest(other, ""), false},
	} {
		if got := bundle.LooksUnsealed(tt.v); got != tt.want {
			t.Errorf("%s: LooksUnsealed = %t, want %t", tt.name, got, tt.want)
		}
	}
}
