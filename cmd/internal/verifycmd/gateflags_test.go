package verifycmd

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
)

// CheckValues and NewGate each refuse a gate flag whose value is not one
// the flag takes, naming the flag (NewGate does not rely on CheckValues
// having run); the controls are the same flags with valid values.
func TestGateFlagValues(t *testing.T) {
	valid := GateFlags{Level: "SIGNED_WITH_IDENTITY", Class: "DOCUMENTED_ONLY", AcceptResults: []string{"INCOMPLETE"}}
	if err := valid.CheckValues(); err != nil {
		t.Fatalf("CheckValues of valid flags: %v", err)
	}
	g, err := NewGate(valid, attest.SubjectRequirement{})
	if err != nil || !g.active || g.g.MinLevel != attest.SignedWithIdentity || len(g.g.AcceptResults) != 1 {
		t.Fatalf("NewGate of valid flags: %+v, %v", g, err)
	}
	if g, err := NewGate(GateFlags{LevelUnsafe: "SIGNED"}, attest.SubjectRequirement{}); err != nil || !g.g.BelowIdentityUnsafe {
		t.Fatalf("NewGate --require-level-unsafe SIGNED: %+v, %v", g, err)
	}
	for _, tc := range []struct {
		name  string
		f     GateFlags
		check string // CheckValues's error, "" when it passes
		gate  string // NewGate's
	}{
		{"level", GateFlags{Level: "PLATINUM"}, "--require-level: ", "--require-level: "},
		{"unsafe level", GateFlags{LevelUnsafe: "PLATINUM"}, "--require-level-unsafe: ", "--require-level-unsafe: "},
		{"class", GateFlags{Class: "GENUINE"}, "--require-evidence-class: ", "--require-evidence-class: "},
		{"result", GateFlags{AcceptResults: []string{"INCOMPLETE", "MAYBE"}}, "--accept-result: ", "--accept-result: "},
		{"both levels", GateFlags{Level: "WITNESSED", LevelUnsafe: "SIGNED"}, "", "--require-level and --require-level-unsafe: give one"},
		{"level below identity", GateFlags{Level: "SIGNED"}, "", "--require-level SIGNED is below SIGNED_WITH_IDENTITY"},
		{"unsafe level not below", GateFlags{LevelUnsafe: "WITNESSED"}, "", "--require-level-unsafe WITNESSED is not below SIGNED_WITH_IDENTITY"},
		{"accept PASS", GateFlags{AcceptResults: []string{"PASS"}}, "", "--accept-result PASS: PASS is always accepted"},
	} {
		err := tc.f.CheckValues()
		if tc.check == "" && err != nil || tc.check != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.check)) {
			t.Errorf("%s: CheckValues: %v, want %q", tc.name, err, tc.check)
		}
		if _, err := NewGate(tc.f, attest.SubjectRequirement{}); err == nil || !strings.HasPrefix(err.Error(), tc.gate) {
			t.Errorf("%s: NewGate: %v, want %q", tc.name, err, tc.gate)
		}
	}
}
