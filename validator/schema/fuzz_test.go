package schema

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// FuzzSimplePattern: whenever a pattern takes the byte-level matcher, it
// must agree with the RE2 translation on every input.
func FuzzSimplePattern(f *testing.F) {
	for _, p := range schemaPatterns {
		f.Add(p, hex64)
		f.Add(p, "mcp-res/a/v1\n")
	}
	f.Add(`^a?b*[c-e]{2,3}$`, "bcce")
	f.Fuzz(func(t *testing.T, pattern, input string) {
		sp, ok := parseSimplePattern(pattern)
		if !ok {
			return
		}
		tr, err := translatePattern(pattern)
		if err != nil {
			t.Fatalf("simple pattern %q does not translate: %v", pattern, err)
		}
		re, err := regexp.Compile(tr)
		if err != nil {
			return // e.g. a repeat count above RE2's limit of 1000
		}
		if got, want := sp.MatchString(input), re.MatchString(input); got != want {
			t.Fatalf("%q on %q: simple %v, RE2 %v", pattern, input, got, want)
		}
	})
}

// FuzzValidate: any readable document validates without panicking, Valid
// agrees with Validate, and the error list is deterministic.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schemaVersion":"mcp-res.trust-policy/0.2.0","validFrom":"2026-12-31T23:59:60Z"}`))
	if data, err := os.ReadFile(upstreamtest.Path(f, "../..", "v0.2.0/valid/reason-bound-negative.json")); err == nil {
		f.Add(data)
	}
	s, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		for _, name := range []string{ConformanceBundle, AttestedConformanceBundle, TrustPolicy, InTotoStatement} {
			sch := s.Schema(name)
			// Validate trusts Valid's verdict on a valid document: it
			// must agree with the collecting walk, which Validate skips.
			errs := sch.collect(v, 0)
			if sch.Valid(v) != (len(errs) == 0) {
				t.Fatalf("%s: Valid disagrees with %d errors", name, len(errs))
			}
			if again := sch.Validate(v); !slices.Equal(errs, again) {
				t.Fatalf("%s: Validate differs from the collecting walk, or errors not deterministic", name)
			}
		}
	})
}
