package verifycmd

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
)

// A Gate is a release pipeline's requirement on a verified bundle: a
// minimum authenticity level and/or evidence class, and the subject it
// must be about (attest.SubjectRequirement: the artifact, digest, name
// and version, or the image of --oci). A gate never passes on an invalid
// bundle.
type Gate struct {
	level   *attest.Level
	class   *bundle.EvidenceClass
	subject attest.SubjectRequirement
	// image is the --oci image's reference and digest, also reported as
	// requireSubjectDigest (the member's meaning before subject checks).
	image string
}

// WithSubject returns g also requiring q of the bundle's subject (the
// subject flags, SubjectFlags.Requirement); an image requirement g
// already has is kept.
func (g Gate) WithSubject(q attest.SubjectRequirement) Gate {
	img := g.subject.Image
	g.subject = q
	if img != nil {
		g.subject.Image = img
	}
	return g
}

// WithImage returns g also requiring that the bundle be about the OCI
// image ref, whose manifest digest is d (sha256:HEX): a bundle about
// another fails the gate with attest.CodeSubjectMismatch.
func (g Gate) WithImage(ref, d string) Gate {
	g.subject.Image = &attest.Artifact{Source: ref, Digest: d}
	g.image = d
	return g
}

// Subject returns the subject requirement of g.
func (g Gate) Subject() attest.SubjectRequirement { return g.subject }

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
func (g Gate) Active() bool { return g.level != nil || g.class != nil || g.subject.Active() }

// Apply adds the gate's verdict to a verification Report: a "gate" member
// in JSON, lines in text, and exit 1 when it fails. In text the verdict is
// one short line, and the cause of a level not reached (the evaluation's
// notes) follows on a line of its own, last, where a reader looks. data
// and doc are the file verified (data may be nil), for what a wrong
// subject digest is when it is recognisably another digest (subjectHints).
func (g Gate) Apply(rep Report, r attest.Result, data []byte, doc *canonjson.Value) Report {
	var reasons, short []string
	cause := ""
	class := doc.Path("bundle", "statement", "evidenceClass")
	var outs []attest.SubjectOutcome
	if g.subject.Active() {
		outs = g.subject.Evaluate(r)
		subjectHints(outs, data, doc)
	}
	what := "the attested bundle"
	if document.Detect(doc) == document.Bundle {
		what = "the bundle" // mcpres report's verdict on a conformance bundle
	}
	if !r.Valid {
		reasons = append(reasons, what+" is invalid ("+strings.Join(r.Diagnostics, ", ")+")")
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
		for _, o := range outs {
			if !o.Passed {
				reasons = append(reasons, o.Reason)
				short = append(short, o.Reason)
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
	if g.image != "" {
		obj.Set("requireSubjectDigest", canonjson.NewString(g.image))
	}
	if g.subject.Active() {
		obj.Set("subject", subjectValue(r, outs))
		rep.Text = append(rep.Text, "  "+subjectText(r, outs, what))
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

// subjectValue is the gate's "subject" member: the subject found (null
// for an invalid bundle) and every check asked with how it came out.
func subjectValue(r attest.Result, outs []attest.SubjectOutcome) *canonjson.Value {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	strs := func(ss []string) *canonjson.Value {
		vs := make([]*canonjson.Value, len(ss))
		for i, s := range ss {
			vs[i] = canonjson.NewString(s)
		}
		return canonjson.NewArray(vs...)
	}
	found := canonjson.NewNull()
	if r.Valid {
		found = canonjson.NewObject(m("name", canonjson.NewString(r.Subject.Name)), m("version", canonjson.NewString(r.Subject.Version)),
			m("digest", canonjson.NewString(r.Subject.Digest)))
	}
	checks := make([]*canonjson.Value, len(outs))
	for i, o := range outs {
		c := canonjson.NewObject(m("check", canonjson.NewString(o.Check)), m("expected", strs(o.Expected)))
		if o.Sources != nil {
			c.Set("sources", strs(o.Sources))
		}
		f := canonjson.NewNull()
		if o.Found != "" {
			f = canonjson.NewString(o.Found)
		}
		c.Set("found", f)
		c.Set("passed", canonjson.NewBool(o.Passed))
		checks[i] = c
	}
	return canonjson.NewObject(m("found", found), m("checks", canonjson.NewArray(checks...)))
}

// subjectText is the text line of the subject checks: what the bundle is
// about and each check's outcome.
func subjectText(r attest.Result, outs []attest.SubjectOutcome, what string) string {
	about := "no subject (" + what + " is invalid)"
	if r.Valid {
		about = fmt.Sprintf("%q version %q, %s", r.Subject.Name, r.Subject.Version, r.Subject.Digest)
	}
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = o.Check + " passed"
		if !o.Passed {
			parts[i] = o.Check + " FAILED"
		}
	}
	return "subject: " + about + "; checks: " + strings.Join(parts, ", ")
}
