package main

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/internal/canonjson"
)

// A gate is a release pipeline's requirement on a verified bundle: a
// minimum authenticity level and/or evidence class. A gate never passes on
// an invalid bundle.
type gate struct {
	level *attest.Level
	class *bundle.EvidenceClass
}

func newGate(level, class string) (gate, error) {
	var g gate
	if level != "" {
		l, err := attest.ParseLevel(level)
		if err != nil {
			return g, usagef("--require-level: %v", err)
		}
		g.level = &l
	}
	if class != "" {
		c, err := bundle.ParseEvidenceClass(class)
		if err != nil {
			return g, usagef("--require-evidence-class: %v", err)
		}
		g.class = &c
	}
	return g, nil
}

func (g gate) active() bool { return g.level != nil || g.class != nil }

// apply adds the gate's verdict to a verification report: a "gate" member
// in JSON, a line in text, and exit 1 when it fails.
func (g gate) apply(rep report, r attest.Result, class *canonjson.Value) report {
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
	rep.obj.Set("gate", obj)
	if passed {
		rep.text = append(rep.text, "  gate: passed")
		return rep
	}
	rep.text = append(rep.text, "  gate: FAILED: "+strings.Join(reasons, "; "))
	if r.Valid {
		rep.code, rep.outcome = exitInvalid, outcomeGateFailed
		rep.detail = "gate: " + strings.Join(reasons, "; ")
	}
	return rep
}
