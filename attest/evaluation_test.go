package attest

import (
	"reflect"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// Evaluation.value is FromGo of the evaluation written out by hand: the
// same members in the same order, null for nil pointers and slices.
// Adding a field to Evaluation or EnvelopeEvaluation fails here until
// value writes it (or the field is `json:"-"`).
func TestEvaluationValue(t *testing.T) {
	if n := reflect.TypeFor[Evaluation]().NumField(); n != 7 {
		t.Errorf("Evaluation has %d fields; update Evaluation.value and this count", n)
	}
	if n := reflect.TypeFor[EnvelopeEvaluation]().NumField(); n != 10 {
		t.Errorf("EnvelopeEvaluation has %d fields; update Evaluation.value and this count", n)
	}
	id, version := "mcp-res/test-policy", "1.0.0"
	ref := &TransparencyReference{LogID: "log"}
	evs := []Evaluation{
		{},
		{EvaluatedAt: "2026-08-27T18:05:00.000Z", Envelopes: []EnvelopeEvaluation{}, Notes: []string{}},
		{EvaluatedAt: "t", PolicySupplied: true, PolicyID: &id, PolicyVersion: &version, DistinctKeys: 2, Notes: []string{"a", "b \"c\""},
			Envelopes: []EnvelopeEvaluation{
				{Index: 0, KeyFingerprint: "k0", SignerIdentity: "i0", SignatureValid: true, Trusted: true, Transparency: TransparencyNone},
				{Index: 7, KeyFingerprint: "k1", SignerIdentity: "i1", Revoked: true, Transparency: TransparencyVerifiedOffline, Reference: ref, Verified: &VerifiedTransparency{}},
			}},
		{PolicySupplied: true, PolicyVersion: &version},
	}
	for i, ev := range evs {
		want, err := canonjson.FromGo(ev)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := canonjson.Compact(want)
		g, err := canonjson.Compact(ev.value())
		if err != nil {
			t.Fatal(err)
		}
		if string(g) != string(w) {
			t.Errorf("evaluation %d:\n%s\nwant (FromGo)\n%s", i, g, w)
		}
	}
}
