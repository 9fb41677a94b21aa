package oauth_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/profile"
)

// FuzzValidate runs arbitrary evaluations, with an arbitrary stand-in
// manifest, through the validator. Properties: no panic; an abort is an
// *validator.InputError with a zero Result; a result has no diagnostic when
// valid and exactly one when invalid; a valid result never claims a
// security certification; validating twice gives the same result.
func FuzzValidate(f *testing.F) {
	m, err := canonjson.Compact(standinManifest(profile.StatusProvisional))
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range []*canonjson.Value{base(f), standinEval(f, "2025-11-25", evalOpts{fixtures: 1})} {
		b, err := canonjson.Compact(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, m)
	}
	f.Add([]byte(`{}`), []byte(`{}`))
	val := testValidator(f)
	f.Fuzz(func(t *testing.T, data, manifest []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		set := profile.NewSet(profile.File{Name: "oauth-boundary-v1.json", Data: manifest})
		r, err := val.Validate(doc, set)
		if err != nil {
			var ie *validator.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("abort is %T, not *validator.InputError: %v", err, err)
			}
			if r.Valid || r.Diagnostics != nil {
				t.Fatal("abort with a non-zero Result")
			}
			return
		}
		if r.Valid != (len(r.Diagnostics) == 0) || (!r.Valid && len(r.Diagnostics) != 1) {
			t.Fatalf("valid=%t with diagnostics %v", r.Valid, r.Diagnostics)
		}
		if r.Valid {
			if got := compactOf(canonjson.NewObject(r.Extra...)); got != `{"result":"`+r.Derived+`","securityCertificationClaim":false,"realAuthorizationProvidersContacted":0}` {
				t.Fatalf("valid result members %s", got)
			}
		}
		r2, err2 := val.Validate(doc, set)
		if err2 != nil || r2.Valid != r.Valid || !slices.Equal(r2.Diagnostics, r.Diagnostics) {
			t.Fatalf("not deterministic: %v / %v", r.Diagnostics, r2.Diagnostics)
		}
	})
}
