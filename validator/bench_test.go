package validator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
	"github.com/mcpres/mcpres/validator"
)

// upstreamValidVector returns the upstream v0.2.0 valid vector name, read
// from the shared tree beside the repository, and skips when it is absent.
func upstreamValidVector(b *testing.B, name string) *canonjson.Value {
	b.Helper()
	path := upstreamtest.Path(b, "..", "v0.2.0/valid/"+name)
	if _, err := os.Stat(path); err != nil {
		b.Skipf("upstream vector not available (%s is absent); CI provides ../shared", path)
	}
	_, v, err := canonjson.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkValidate measures reading (strict reader) plus core validation
// of valid bundles written with Pretty: the mcpres example, the upstream
// reason-bound-negative vector and a Large bundle at the reader's node
// limit (one parent chain of MaxLargeOps operations). SetBytes is the size
// of the written file.
func BenchmarkValidate(b *testing.B) {
	cases := []struct {
		name  string
		value func(*testing.B) *canonjson.Value
		cold  bool
	}{
		{name: "example", value: func(b *testing.B) *canonjson.Value { return bundletest.Example(b) }},
		{name: "upstream-small", value: func(b *testing.B) *canonjson.Value { return upstreamValidVector(b, "reason-bound-negative.json") }},
		{name: "limit", value: func(b *testing.B) *canonjson.Value { return bundletest.Large(b, bundletest.MaxLargeOps) }},
		// A fresh Validator per call adds loading the embedded schemas:
		// the cost a one-shot CLI invocation pays (DESIGN.md startup budget).
		{name: "upstream-small-cold", value: func(b *testing.B) *canonjson.Value { return upstreamValidVector(b, "reason-bound-negative.json") }, cold: true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			text, err := canonjson.Pretty(c.value(b))
			if err != nil {
				b.Fatal(err)
			}
			val := validator.New()
			validate := func() validator.Result {
				doc, err := canonjson.Parse(text)
				if err != nil {
					b.Fatal(err)
				}
				if c.cold {
					val = validator.New()
				}
				r, err := val.Bundle(doc)
				if err != nil {
					b.Fatal(err)
				}
				return r
			}
			// Outside the timed loop: load the schemas (warm cases) and
			// check that the figure is for a bundle that validates all the
			// way through, every check run.
			if r := validate(); !r.Valid {
				b.Fatalf("bundle is invalid: %v (%s)", r.Diagnostics, r.Detail)
			}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				validate()
			}
		})
	}
}

// TestWriteLimitBundle writes the limit-sized bundle of BenchmarkValidate
// (bundletest.Large at MaxLargeOps, Pretty) to $MCPRES_LIMIT_BUNDLE, and its
// compact form beside it (.compact.json), for whole-process measurements
// such as peak RSS:
//
//	MCPRES_LIMIT_BUNDLE=/tmp/limit.json go test -run TestWriteLimitBundle ./validator
//	/usr/bin/time -v mcpres validate /tmp/limit.json
//
// It is skipped unless the variable is set.
func TestWriteLimitBundle(t *testing.T) {
	path := os.Getenv("MCPRES_LIMIT_BUNDLE")
	if path == "" {
		t.Skip("set MCPRES_LIMIT_BUNDLE=FILE to write the limit-sized bundle")
	}
	v := bundletest.Large(t, bundletest.MaxLargeOps)
	pretty, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pretty, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(path, ".json")+".compact.json", append(compact, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
