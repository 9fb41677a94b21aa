package validator

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// FuzzBundle runs arbitrary documents through the strict reader and the
// core validator. Properties: no panic; an abort is always an *InputError
// with a zero Result; a result has exactly one diagnostic when invalid and
// none when valid; validating twice gives the same result.
func FuzzBundle(f *testing.F) {
	ex, err := canonjson.Compact(bundletest.Example(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ex)
	for _, s := range []string{
		`{}`, `{"evidence":null}`, `{"evidence":{"operations":[null]}}`,
		`{"evidence":{"operations":[{"kind":"NEGATIVE_CONTROL","negativeObservation":{"prerequisitesReached":["x"],"propertyReached":true}}]}}`,
		`{"evidence":{"execution":{"actualRuntime":true}}}`,
	} {
		f.Add([]byte(s))
	}
	val := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		r, err := val.Bundle(doc)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("abort is %T, not *InputError: %v", err, err)
			}
			if r.Valid || r.Diagnostics != nil {
				t.Fatal("abort with a non-zero Result")
			}
			return
		}
		if r.Valid != (len(r.Diagnostics) == 0) {
			t.Fatalf("valid=%t with diagnostics %v", r.Valid, r.Diagnostics)
		}
		if !r.Valid && len(r.Diagnostics) != 1 {
			t.Fatalf("first-failure semantics broken: %v", r.Diagnostics)
		}
		r2, err2 := val.Bundle(doc)
		if err2 != nil || r2.Valid != r.Valid || !slices.Equal(r2.Diagnostics, r.Diagnostics) {
			t.Fatalf("validation is not deterministic: %v / %v", r.Diagnostics, r2.Diagnostics)
		}
	})
}
