package report_test

import (
	"errors"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/report"
	"github.com/mcpres/mcpres/validator"
)

// FuzzRender renders arbitrary documents with the verdict the validator
// (or attest.Verify, for attested bundles) gives them. Properties: no
// panic, no error, and every page passes checkPage: well-formed, only the
// allowed elements and attributes, the CSP, no raw control or bidi
// character, no unbounded text. Seeds: the example bundle, an attested
// bundle, a hostile bundle, a broken graph and testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	add := func(v *canonjson.Value) {
		b, err := canonjson.Compact(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	add(bundletest.Example(f))
	add(repoFile(f, "attestation/witnessed.json"))
	p := hostilePayloads("http://127.0.0.1:9")
	add(hostilize(bundletest.Example(f), p[:len(p)-1])) // without the 100,000-character one, which slows every exec
	broken := bundletest.Large(f, 6)
	ops := broken.Path("evidence", "operations")
	ops.Items[0].Set("parentOperationId", ops.Items[3].Get("operationId").Clone())
	add(broken)
	val := validator.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data)
		in := report.Input{Name: "fuzz.json"}
		var ie *validator.InputError
		switch {
		case err != nil:
			in.InputError = err.Error()
		case document.Detect(doc) == document.AttestedBundle:
			in.Document = doc
			r, err := attest.Verify(doc, attest.Options{EvaluatedAt: "2026-08-27T18:05:00.000Z", Validator: val})
			if errors.As(err, &ie) {
				in.InputError = ie.Reason
			} else if err == nil {
				in.Attestation = &r
			} else {
				t.Fatal(err)
			}
		default:
			in.Document = doc
			r, err := val.Bundle(doc)
			if errors.As(err, &ie) {
				in.InputError = ie.Reason
			} else if err == nil {
				in.Result = r
			} else {
				t.Fatal(err)
			}
		}
		page, err := report.Render(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkPage(page); err != nil {
			t.Fatal(err)
		}
	})
}
