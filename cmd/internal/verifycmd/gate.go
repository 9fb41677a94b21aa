package verifycmd

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
)

// A Gate is attest verify's gate as the flags gave it: an attest.Gate,
// which decides (every pass or fail is attest.Gate.Evaluate's), and what
// the command renders of it. The zero Gate is no gate at all: without a
// trust source nothing is required, and nothing is said to pass.
type Gate struct {
	g      attest.Gate
	active bool
	// image is the --oci image's digest, also reported as
	// requireSubjectDigest (the member's meaning before subject checks).
	image string
}

// GateFlags are the gate's flags of attest verify and report.
type GateFlags struct {
	Level, LevelUnsafe, Class string
	AcceptResults             []string
}

// Given names the gate flags that were given, for the usage error of a
// gate without a trust source.
func (f GateFlags) Given() []string {
	var out []string
	if f.Level != "" {
		out = append(out, "--require-level")
	}
	if f.LevelUnsafe != "" {
		out = append(out, "--require-level-unsafe")
	}
	if f.Class != "" {
		out = append(out, "--require-evidence-class")
	}
	if len(f.AcceptResults) > 0 {
		out = append(out, "--accept-result")
	}
	return out
}

// CheckValues checks that every gate flag's value is one the flag takes
// (a level, a class, a result), whatever else is wrong with the command
// line: --require-level PLATINUM says so first.
func (f GateFlags) CheckValues() error {
	for _, l := range []struct{ flag, v string }{{"--require-level", f.Level}, {"--require-level-unsafe", f.LevelUnsafe}} {
		if l.v != "" {
			if _, err := attest.ParseLevel(l.v); err != nil {
				return fmt.Errorf("%s: %v", l.flag, err)
			}
		}
	}
	if f.Class != "" {
		if _, err := bundle.ParseEvidenceClass(f.Class); err != nil {
			return fmt.Errorf("--require-evidence-class: %v", err)
		}
	}
	for _, r := range f.AcceptResults {
		if _, err := attest.ParseResult(r); err != nil {
			return fmt.Errorf("--accept-result: %v", err)
		}
	}
	return nil
}

// NewGate builds the gate of a verification with a trust source from its
// flags and subject requirement q (q inactive: the gate is not bound to
// an artifact, attest.Gate.NoSubjectUnsafe, which the command says on
// stderr). The error is the reason, for the caller to wrap as a usage
// error.
func NewGate(f GateFlags, q attest.SubjectRequirement) (Gate, error) {
	g := attest.Gate{Subject: q, NoSubjectUnsafe: !q.Active()}
	switch {
	case f.Level != "" && f.LevelUnsafe != "":
		return Gate{}, fmt.Errorf("--require-level and --require-level-unsafe: give one")
	case f.Level != "":
		l, err := attest.ParseLevel(f.Level)
		if err != nil {
			return Gate{}, fmt.Errorf("--require-level: %v", err)
		}
		if l < attest.SignedWithIdentity {
			return Gate{}, fmt.Errorf("--require-level %s is below %s, which a gate with a trust source requires by default (a trusted signer); to accept bundles that no trusted key signed, say so: --require-level-unsafe %s", l, attest.SignedWithIdentity, l)
		}
		g.MinLevel = l
	case f.LevelUnsafe != "":
		l, err := attest.ParseLevel(f.LevelUnsafe)
		if err != nil {
			return Gate{}, fmt.Errorf("--require-level-unsafe: %v", err)
		}
		if l >= attest.SignedWithIdentity {
			return Gate{}, fmt.Errorf("--require-level-unsafe %s is not below %s: say --require-level %s", l, attest.SignedWithIdentity, l)
		}
		g.MinLevel, g.BelowIdentityUnsafe = l, true
	}
	if f.Class != "" {
		c, err := bundle.ParseEvidenceClass(f.Class)
		if err != nil {
			return Gate{}, fmt.Errorf("--require-evidence-class: %v", err)
		}
		g.MinEvidenceClass = c
	}
	for _, r := range f.AcceptResults {
		r, err := attest.ParseResult(r)
		if err != nil {
			return Gate{}, fmt.Errorf("--accept-result: %v", err)
		}
		if r == attest.ResultPass {
			return Gate{}, fmt.Errorf("--accept-result PASS: PASS is always accepted; name the other results to accept (FAIL, INCOMPLETE)")
		}
		g.AcceptResults = append(g.AcceptResults, r)
	}
	return Gate{g: g, active: true}, nil
}

// GateOf wraps an attest.Gate built elsewhere (tests, the Go API's habit).
func GateOf(g attest.Gate) Gate { return Gate{g: g, active: true} }

// WithImage returns g also requiring that the bundle be about the OCI
// image ref, whose manifest digest is d (sha256:HEX): a bundle about
// another fails the gate with attest.CodeSubjectMismatch. An --oci gate
// is always bound to the image.
func (g Gate) WithImage(ref, d string) Gate {
	g.g.Subject.Image = &attest.Artifact{Source: ref, Digest: d}
	g.g.NoSubjectUnsafe = false
	g.image = d
	return g
}

// Subject returns the subject requirement of g.
func (g Gate) Subject() attest.SubjectRequirement { return g.g.Subject }

// Active says whether g decides (a trust source was given).
func (g Gate) Active() bool { return g.active }

// Unbound says whether g is not bound to an artifact.
func (g Gate) Unbound() bool { return g.active && g.g.NoSubjectUnsafe }

// Verdict is attest.Gate.Evaluate of g on r (mcpres report, which
// verifies with attest.Verify itself).
func (g Gate) Verdict(r attest.Result) attest.Verdict { return g.g.Evaluate(r) }

// Render adds the gate's verdict v on r to a verification Report: a
// "gate" member (and the statement's "result") in JSON; in text the
// verdict leads (PASSED or FAILED and why), the verification follows, and
// the cause of a level not reached (the evaluation's notes) comes last,
// where a reader looks; exit 1 when it fails. data and doc are the file
// verified (data may be nil), for what a wrong subject digest is when it
// is recognisably another digest (subjectHints). It decides nothing: the
// verdict is attest.Gate's.
func (g Gate) Render(rep Report, r attest.Result, v attest.Verdict, data []byte, doc *canonjson.Value) Report {
	if v.Subject != nil {
		subjectHints(v.Subject, data, doc)
		for i := range v.Checks {
			for _, o := range v.Subject {
				if v.Checks[i].Check == o.Check && v.Checks[i].Reason != "" {
					v.Checks[i].Reason = o.Reason
				}
			}
		}
	}
	if r.Valid {
		rep.Obj.Set("result", canonjson.NewString(r.StatementResult))
	}
	rep.Obj.Set("gate", g.value(r, v))
	if rep.Text != nil { // nil: the report is not printed as text
		rep.Text = g.text(rep, r, v)
	}
	switch {
	case v.Passed:
		rep.Code, rep.Outcome = ExitValid, OutcomePassed
	case r.Valid:
		rep.Code, rep.Outcome = ExitInvalid, OutcomeGateFailed
		rep.Detail = "gate: " + strings.Join(v.Reasons(), "; ")
	}
	if r.Valid && r.StatementResult != attest.ResultPass {
		// Markdown's class cell names a result that is not PASS (one
		// accepted by name, or the reason the gate failed).
		rep.Class = strings.TrimPrefix(rep.Class+", result "+r.StatementResult, ", ")
	}
	return rep
}

// value is the JSON result's "gate" member: what was required, every
// check and how it came out, the subject checks, and the reasons.
func (g Gate) value(r attest.Result, v attest.Verdict) *canonjson.Value {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	str := canonjson.NewString
	strs := func(ss []string) *canonjson.Value {
		vs := make([]*canonjson.Value, len(ss))
		for i, s := range ss {
			vs[i] = str(s)
		}
		return canonjson.NewArray(vs...)
	}
	obj := canonjson.NewObject(m("passed", canonjson.NewBool(v.Passed)))
	obj.Set("requireLevel", str(g.g.RequiredLevel().String()))
	if g.g.BelowIdentityUnsafe {
		obj.Set("belowIdentityUnsafe", canonjson.NewBool(true))
	}
	if g.g.MinEvidenceClass > bundle.DocumentedOnly {
		obj.Set("requireEvidenceClass", str(g.g.MinEvidenceClass.String()))
	}
	obj.Set("acceptResults", strs(g.g.Results()))
	if g.image != "" {
		obj.Set("requireSubjectDigest", str(g.image))
	}
	obj.Set("bound", canonjson.NewBool(!v.Unbound))
	checks := make([]*canonjson.Value, len(v.Checks))
	for i, c := range v.Checks {
		found := canonjson.NewNull()
		if c.Found != "" {
			found = str(c.Found)
		}
		checks[i] = canonjson.NewObject(m("check", str(c.Check)), m("required", str(c.Required)), m("found", found), m("passed", canonjson.NewBool(c.Passed)))
	}
	obj.Set("checks", canonjson.NewArray(checks...))
	if g.g.Subject.Active() {
		obj.Set("subject", subjectValue(r, v.Subject))
	}
	obj.Set("reasons", strs(v.Reasons()))
	return obj
}

// text is the text result of a gated verification: the verdict first
// (PASSED or FAILED and why), then what was verified, indented, the
// checks, the verdict again last, where a reader of a long result looks,
// and the cause of a level not reached on a line of its own.
func (g Gate) text(rep Report, r attest.Result, v attest.Verdict) []string {
	lines := make([]string, 0, len(rep.Text)+6)
	head := rep.Path + ": PASSED: " + passedText(r, v, g.g)
	if !v.Passed {
		head = rep.Path + ": FAILED: " + strings.Join(v.Summaries(), "; ")
		if !r.Valid && r.Detail != "" {
			head += ": " + r.Detail
		}
	}
	lines = append(lines, head)
	if len(rep.Text) > 0 {
		verified := "  verified: " + strings.TrimPrefix(rep.Text[0], rep.Path+": ")
		if r.Valid {
			verified += ", result " + r.StatementResult
		}
		lines = append(append(lines, verified), rep.Text[1:]...)
	}
	if g.g.Subject.Active() {
		lines = append(lines, "  "+subjectText(r, v.Subject, "the attested bundle"))
	}
	lines = append(lines, "  gate: "+checksText(v))
	if v.Unbound {
		lines = append(lines, "  gate: not bound to an artifact (no --artifact, --subject-digest, --subject-name or --subject-version)")
	}
	if v.Passed {
		return append(lines, "  gate: passed")
	}
	lines = append(lines, "  gate: FAILED: "+strings.Join(v.Summaries(), "; "))
	if v.Cause != "" {
		lines = append(lines, "  gate: cause: "+v.Cause)
	}
	return lines
}

// passedText says in one line what a passed verdict established.
func passedText(r attest.Result, v attest.Verdict, g attest.Gate) string {
	parts := []string{r.Level.String() + " (at least " + g.RequiredLevel().String() + ")", "result " + r.StatementResult}
	if g.MinEvidenceClass > bundle.DocumentedOnly {
		parts = append(parts, "evidence class "+r.EvidenceClass.String())
	}
	switch {
	case v.Unbound:
		parts = append(parts, "not bound to an artifact")
	case r.Valid:
		parts = append(parts, "about "+r.Subject.Digest)
	}
	return strings.Join(parts, ", ")
}

// checksText lists every check of a verdict in one line.
func checksText(v attest.Verdict) string {
	parts := make([]string, len(v.Checks))
	for i, c := range v.Checks {
		state := "passed"
		if !c.Passed {
			state = "FAILED"
		}
		parts[i] = c.Check + " " + state
	}
	return "checks: " + strings.Join(parts, ", ")
}

// SubjectOnly applies subject checks q to a report that no gate judges
// (mcpres report on a conformance bundle, which has no signer): each
// check is listed, and a failed one makes the report a failure (exit 1).
func SubjectOnly(rep Report, r attest.Result, q attest.SubjectRequirement, data []byte, doc *canonjson.Value) Report {
	outs := q.Evaluate(r)
	subjectHints(outs, data, doc)
	var reasons []string
	for _, o := range outs {
		if !o.Passed && r.Valid {
			reasons = append(reasons, o.Reason)
		}
	}
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	rs := make([]*canonjson.Value, len(reasons))
	for i, s := range reasons {
		rs[i] = canonjson.NewString(s)
	}
	rep.Obj.Set("gate", canonjson.NewObject(m("passed", canonjson.NewBool(r.Valid && len(reasons) == 0)),
		m("subject", subjectValue(r, outs)), m("reasons", canonjson.NewArray(rs...))))
	rep.Text = append(rep.Text, "  "+subjectText(r, outs, "the bundle"))
	if r.Valid && len(reasons) > 0 {
		rep.Text = append(rep.Text, "  subject: FAILED: "+strings.Join(reasons, "; "))
		rep.Code, rep.Outcome = ExitInvalid, OutcomeGateFailed
		rep.Detail = "subject: " + strings.Join(reasons, "; ")
	}
	return rep
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

// AcceptResultUsage is the help of --accept-result.
const AcceptResultUsage = "gate: also pass a bundle whose statement result is RESULT (FAIL or INCOMPLETE; repeatable); by default only PASS passes"

// Register adds the gate flags to a command's flags.
func (f *GateFlags) Register(fs interface {
	StringVar(p *string, name, value, usage string)
	StringArrayVar(p *[]string, name string, value []string, usage string)
}) {
	fs.StringVar(&f.Level, "require-level", "", "gate: exit 1 unless the derived authenticity level is at least LEVEL ("+LevelsStrongestFirst()+"); default SIGNED_WITH_IDENTITY with a trust source")
	fs.StringVar(&f.LevelUnsafe, "require-level-unsafe", "", "gate: accept a level below SIGNED_WITH_IDENTITY (SIGNED or UNSIGNED_INTEGRITY_ONLY): bundles that no trusted key signed then pass")
	fs.StringVar(&f.Class, "require-evidence-class", "", "gate: exit 1 unless the evidence class is at least CLASS ("+StrongestFirst()+")")
	fs.StringArrayVar(&f.AcceptResults, "accept-result", nil, AcceptResultUsage)
}
