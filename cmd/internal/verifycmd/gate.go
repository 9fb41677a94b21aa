package verifycmd

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
)

// A Gate is a release pipeline's requirement on a verified bundle: a
// minimum authenticity level and/or evidence class, and the subject it
// must be about. A gate never passes on an invalid bundle.
type Gate struct {
	level *attest.Level
	class *bundle.EvidenceClass
	// subjectDigest is the required subject digest (sha256:HEX), or "".
	subjectDigest string
}

// WithSubjectDigest returns g also requiring that the bundle be about the
// artifact with digest d (sha256:HEX, attest.ParseSubjectDigest): a
// bundle about another fails the gate with attest.CodeSubjectMismatch.
func (g Gate) WithSubjectDigest(d string) Gate {
	g.subjectDigest = d
	return g
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
func (g Gate) Active() bool { return g.level != nil || g.class != nil || g.subjectDigest != "" }

// Apply adds the gate's verdict to a verification Report: a "gate" member
// in JSON, lines in text, and exit 1 when it fails. In text the verdict is
// one short line, and the cause of a level not reached (the evaluation's
// notes) follows on a line of its own, last, where a reader looks.
func (g Gate) Apply(rep Report, r attest.Result, class *canonjson.Value) Report {
	var reasons, short []string
	cause := ""
	if !r.Valid {
		reasons = append(reasons, "the attested bundle is invalid ("+strings.Join(r.Diagnostics, ", ")+")")
		short = append(short, reasons[0])
		if r.Detail != "" {
			cause = strings.Join(r.Diagnostics, ", ") + ": " + r.Detail
		}
	} else {
		if g.level != nil && r.Level < *g.level {
			why := fmt.Sprintf("%s required, derived %s", *g.level, r.Level)
			short = append(short, why)
			if len(r.Evaluation.Notes) > 0 {
				why += ": " + strings.Join(r.Evaluation.Notes, "; ")
				cause = strings.Join(levelNotes(r.Evaluation.Notes, r.Level, *g.level), "; ")
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
				short = append(short, reasons[len(reasons)-1])
			}
		}
		if g.subjectDigest != "" {
			if why := r.SubjectDigestMismatch(g.subjectDigest); why != "" {
				reasons = append(reasons, attest.CodeSubjectMismatch+": "+why)
				short = append(short, reasons[len(reasons)-1])
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
	if g.subjectDigest != "" {
		obj.Set("requireSubjectDigest", canonjson.NewString(g.subjectDigest))
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
	rep.Text = append(rep.Text, "  gate: FAILED: "+strings.Join(short, "; "))
	if cause != "" {
		rep.Text = append(rep.Text, "  gate: cause: "+cause)
	}
	if r.Valid {
		rep.Code, rep.Outcome = ExitInvalid, OutcomeGateFailed
		rep.Detail = "gate: " + strings.Join(reasons, "; ")
	}
	return rep
}

// levelNotes are the notes that name a level above derived up to
// required (the ones that say why it was not reached: "witnesses: the
// policy has no witnesses rule, so WITNESSED is not derivable"), or all
// notes when none does.
func levelNotes(notes []string, derived, required attest.Level) []string {
	var out []string
	for _, n := range notes {
		for l := derived + 1; l <= required; l++ {
			if strings.Contains(n, l.String()) {
				out = append(out, n)
				break
			}
		}
	}
	if len(out) == 0 {
		return notes
	}
	return out
}
