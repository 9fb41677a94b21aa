package official_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/official"
)

// FuzzValidate runs arbitrary documents through the strict reader and the
// attachment validator, with and without original bytes. Properties: no
// panic; an abort is an *validator.InputError with a zero Result; a result
// has no diagnostic when valid (then with its mode members) and exactly one
// when invalid; validating twice gives the same result.
func FuzzValidate(f *testing.F) {
	out, doc := base(f)
	_, bl := baselined(f)
	for _, d := range []*canonjson.Value{doc, bl} {
		b, err := canonjson.Compact(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, out)
	}
	for _, s := range []string{`{}`, `null`, `[]`, `{"schemaVersion":"mcp-res.official-conformance-attachment/0.2.0"}`} {
		f.Add([]byte(s), []byte(nil))
	}
	val := testValidator(f)
	f.Fuzz(func(t *testing.T, data, original []byte) {
		doc, err := canonjson.Parse(data)
		if err != nil {
			return
		}
		opts := official.Options{}
		if original != nil {
			opts.OriginalResult = &official.OriginalResult{Bytes: original}
		}
		r, err := val.Validate(doc, opts)
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
		if r.Valid != (r.Extra != nil) {
			t.Fatalf("valid=%t with mode members %v", r.Valid, r.Extra)
		}
		r2, err2 := val.Validate(doc, opts)
		if err2 != nil || r2.Valid != r.Valid || !slices.Equal(r2.Diagnostics, r.Diagnostics) {
			t.Fatalf("not deterministic: %v / %v", r.Diagnostics, r2.Diagnostics)
		}
	})
}

// FuzzImport runs arbitrary official outputs through Import. Properties: no
// panic; a refusal is an *official.ImportError with one of the two importer
// codes; a produced attachment never aborts validation, binds the output's
// digest and length, and copies every check's status verbatim and in order.
func FuzzImport(f *testing.F) {
	out, _ := base(f)
	f.Add(out)
	for _, s := range []string{`[]`, `[{"id":"a","status":"FAILURE","details":{"untestable":true}}]`,
		`[{"id":"wire-schema-x","status":"WARNING","metadata":{"scenario":"s"},"errorMessage":"e"}]`, `{}`, `[1]`} {
		f.Add([]byte(s))
	}
	val := testValidator(f)
	cfg, err := val.ParseImportConfig(parse(f, baseConfigText()))
	if err != nil {
		f.Fatal(err)
	}
	cfg.ExpectedFailureBaseline = []string{"tools-call:a", "s:wire-schema-x"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := official.Import(raw, cfg)
		if err != nil {
			var ie *official.ImportError
			if !errors.As(err, &ie) || (ie.Code != official.CodeImportInputInvalid && ie.Code != official.CodeCoverageIncomplete) {
				t.Fatalf("refusal is %T %v", err, err)
			}
			return
		}
		r, err := val.Validate(doc, official.Options{OriginalResult: &official.OriginalResult{Bytes: raw}})
		if err != nil {
			t.Fatalf("imported attachment aborts validation: %v", err)
		}
		if !r.Valid && r.Diagnostics[0] != official.CodeSchemaInvalid {
			t.Fatalf("imported attachment is inconsistent: %v (%s)", r.Diagnostics, r.Detail)
		}
		src, _ := canonjson.Parse(raw)
		checks := doc.Get("checks").Items
		if len(checks) != len(src.Items) {
			t.Fatalf("%d checks from %d", len(checks), len(src.Items))
		}
		for i, c := range checks {
			if c.Get("outcome").Str != src.Items[i].Get("status").Str {
				t.Fatalf("check %d: outcome %s from status %s", i, c.Get("outcome").Str, src.Items[i].Get("status").Str)
			}
		}
	})
}
