package profile_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/profile"
)

// FuzzValidate runs arbitrary evaluations, and arbitrary extra manifest
// files in the profile set, through the validator. Properties: no panic;
// an abort is a *validator.InputError with a zero Result; a result has no
// diagnostic when valid (then with its mode members) and exactly one when
// invalid; validating twice gives the same result.
func FuzzValidate(f *testing.F) {
	for _, d := range []*canonjson.Value{
		base(f),
		ownEval(f, exampleSpec, "2026-07-28", evalOpts{target: "REMOTE_HTTP", fixtures: 2}),
		ownEval(f, identitySpec, "2026-07-28", evalOpts{claim: "BOUNDED_CHECK_SET", checks: []string{"binding-declared"}}),
	} {
		b, err := canonjson.Compact(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte(nil))
	}
	m, _ := canonjson.Compact(ownManifest(identitySpec))
	f.Add([]byte(`{}`), m)
	f.Add([]byte(`null`), []byte(`{"schemaVersion":"mcp-res.reliability-profile-manifest/0.2.0"}`))
	val := testValidator(f)
	f.Fuzz(func(t *testing.T, data, extra []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		files := []profile.File{
			{Name: exampleSpec.file, Data: pretty(t, ownManifest(exampleSpec))},
			{Name: identitySpec.file, Data: pretty(t, ownManifest(identitySpec))},
		}
		if extra != nil {
			files = append(files, profile.File{Name: "zz-fuzz.json", Data: extra})
		}
		set := profile.NewSet(files...)
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
		if r.Valid != (r.Extra != nil) || (r.Valid && r.Derived != "PASS" && r.Derived != "INCOMPLETE") {
			t.Fatalf("valid=%t derived %q", r.Valid, r.Derived)
		}
		r2, err2 := val.Validate(doc, set)
		if err2 != nil || r2.Valid != r.Valid || !slices.Equal(r2.Diagnostics, r.Diagnostics) {
			t.Fatalf("not deterministic: %v / %v", r.Diagnostics, r2.Diagnostics)
		}
	})
}
