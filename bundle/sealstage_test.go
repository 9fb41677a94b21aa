package bundle_test

import (
	"errors"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// Every stage reads what it needs itself, so SealFrom at a later stage
// refuses a draft that lacks it with a *SealError naming that stage and
// the member, and leaves the draft as it was: the evidence (every stage),
// the scenario or its descriptor, the observations, the integrity
// manifest, the statement, and values with no canonical form in what a
// stage digests (the error then unwraps to the *canonjson.CanonicalError).
// The control seals the unmutated draft from each stage.
func TestSealFromEachStageRefuses(t *testing.T) {
	number := func(v *canonjson.Value) *canonjson.Value { return &canonjson.Value{Kind: canonjson.Number, Str: "1.5"} }
	cases := []struct {
		name      string
		mutate    func(v *canonjson.Value)
		from      bundle.Stage
		path      string
		canonical bool
	}{
		{"no evidence", func(v *canonjson.Value) { v.Delete("evidence") }, bundle.StageObservations, "/evidence", false},
		{"no evidence", func(v *canonjson.Value) { v.Delete("evidence") }, bundle.StageScenario, "/evidence", false},
		{"no evidence", func(v *canonjson.Value) { v.Delete("evidence") }, bundle.StageEvidence, "/evidence", false},
		{"no evidence", func(v *canonjson.Value) { v.Delete("evidence") }, bundle.StageStatement, "/evidence", false},
		{"no evidence", func(v *canonjson.Value) { v.Delete("evidence") }, bundle.StageIntegrity, "/evidence", false},
		{"observations not array", func(v *canonjson.Value) { v.Get("evidence").Set("observations", canonjson.NewString("x")) }, bundle.StageObservations, "/evidence/observations", false},
		{"no scenario", func(v *canonjson.Value) { v.Get("evidence").Delete("scenario") }, bundle.StageScenario, "/evidence/scenario", false},
		{"descriptor not digestible", func(v *canonjson.Value) {
			v.Path("evidence", "scenario", "descriptor").Set("x", number(v))
		}, bundle.StageScenario, "/evidence/scenario/descriptor", true},
		{"observation not digestible", func(v *canonjson.Value) {
			v.Path("evidence", "observations").Items[0].Set("x", number(v))
		}, bundle.StageObservations, "/evidence/observations/0", true},
		{"integrity not object", func(v *canonjson.Value) { v.Set("integrity", canonjson.NewArray()) }, bundle.StageEvidence, "/integrity", false},
		{"integrity not object", func(v *canonjson.Value) { v.Set("integrity", canonjson.NewArray()) }, bundle.StageIntegrity, "/integrity", false},
		{"supporting artifact not digestible", func(v *canonjson.Value) {
			v.Path("integrity", "artifacts").Items[0].Set("x", number(v))
		}, bundle.StageEvidence, "/integrity/artifacts", true},
		{"no statement", func(v *canonjson.Value) { v.Delete("statement") }, bundle.StageIntegrity, "/statement", false},
		{"evidence not digestible", func(v *canonjson.Value) { v.Path("evidence", "run").Set("x", number(v)) }, bundle.StageIntegrity, "/evidence", true},
		{"statement not digestible", func(v *canonjson.Value) { v.Get("statement").Set("x", number(v)) }, bundle.StageIntegrity, "/statement", true},
		{"no subject version mirror", func(v *canonjson.Value) { v.Path("evidence", "subject").Delete("version") }, bundle.StageStatement, "/evidence/subject/version", false},
		{"no supporting digest", func(v *canonjson.Value) { v.Get("evidence").Delete("supportingArtifactManifestDigest") }, bundle.StageStatement, "/evidence/supportingArtifactManifestDigest", false},
		{"no scenario fingerprint", func(v *canonjson.Value) { v.Path("evidence", "scenario").Delete("fingerprint") }, bundle.StageStatement, "/evidence/scenario/fingerprint", false},
	}
	for _, c := range cases {
		t.Run(c.from.String()+"/"+c.name, func(t *testing.T) {
			v := bundletest.Draft(t)
			if err := bundle.SealFrom(v, bundle.StageSubject); err != nil {
				t.Fatal(err)
			}
			c.mutate(v)
			before := v.Clone()
			err := bundle.SealFrom(v, c.from)
			var se *bundle.SealError
			if !errors.As(err, &se) || se.Stage < c.from || se.Path != c.path {
				t.Fatalf("SealFrom(%s) = %v, want a *SealError at %s", c.from, err, c.path)
			}
			var ce *canonjson.CanonicalError
			if errors.As(err, &ce) != c.canonical {
				t.Errorf("unwraps to a CanonicalError: %t, want %t (%v)", !c.canonical, c.canonical, err)
			}
			if !canonjson.Equal(v, before) {
				t.Error("a failed seal modified the draft")
			}
		})
	}
	for st := bundle.StageSubject; st <= bundle.StageIntegrity; st++ {
		v := bundletest.Draft(t)
		if err := bundle.SealFrom(v, bundle.StageSubject); err != nil {
			t.Fatal(err)
		}
		if err := bundle.SealFrom(v, st); err != nil {
			t.Errorf("control, SealFrom(%s) of a sealed draft: %v", st, err)
		}
	}
}
