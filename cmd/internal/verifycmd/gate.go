package verifycmd

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/internal/canonjson"
)

// A Gate is a release pipeline's requirement on a verified bundle: a
// minimum authenticity level and/or evidence class. A gate never passes on
// an invalid bundle.
type Gate struct {
	level *attest.Level
	class *bundle.EvidenceClass
}

// NewGate parses --require-level and --require-evidence-class; the error
// is the reason, for the caller to wrap as a usage error.
func NewGate(level, class string) (Gate, error) {
	var g Gate
	if level != "" {
		l, err := attest.ParseLevel(level)
		if err != nil {
			return g, fmt.Errorf("--require-level: %v", err)
		}
		g.level = &l
	}
	if class != "" {
		c, err := bundle.ParseEvidenceClass(class)
		if err != nil {
			return g, fmt.Errorf("--require-evidence-class: %v", err)
		}
		g.class = &c
	}
	return g, nil
}

// Active says whether a requirement was given.
func (g Gate) Active() bool { return g.level != nil || g.class != nil }

// Apply adds the gate's verdict to a verification Report: a "gate" member
// in JSON, a line in text, and exit 1 when it fails.
func (g Gate) Apply(rep Report, r attest.Result, class *canonjson.Value) Report {
	var reasons []string
	if !r.Valid {
		reasons = append(reasons, "the attested bundle is invalid ("+strings.Join(r.Diagnostics, ", ")+")")
	} else {
		if g.level != nil && r.Level < *g.level {
			why := fmt.Sprintf("%s required, derived %s", *g.level, r.Level)
			if len(r.Evaluation.Notes) > 0 {
				why += ": " + strings.Join(r.Evaluation.Notes, "; ")
			}
			reasons = append(reasons, why)
		}
		if g.class != nil {
			got := ""
			if class.Is(canonjson.String) {
				got = class.Str
			}
			if c, err := bundle.ParseEvidenceClass(got); err != nil || c < *g.class {
				reasons = append(reasons, fmt.Sprintf("evidence class %s required, the bundle has %s", g.class, got))
			}
		}
	}
	passed := len(reasons) == 0
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	obj := canonjson.NewObject(m("passed", canonjson.NewBool(passed)))
	if g.level != nil {
		obj.Set("requireLevel", canonjson.NewString(g.level.String()))
	}
	if g.class != nil {
		obj.Set("requireEvidenceClass", canonjson.NewString(g.class.String()))
	}
	rs := make([]*canonjson.Value, len(reasons))
	for i, s := range reasons {
		rs[i] = canonjson.NewString(s)
	}
	obj.Set("reasons", canonjson.NewArray(rs...))
	rep.Obj.Set("gate", obj)
	if passed {
		rep.Text = append(rep.Text, "  gate: passed")
		return rep
	}
	rep.Text = append(rep.Text, "  gate: FAILED: "+strings.Join(reasons, "; "))
	if r.Valid {
		rep.Code, rep.Outcome = ExitInvalid, OutcomeGateFailed
		rep.Detail = "gate: " + strings.Join(reasons, "; ")
	}
	return rep
}
