package attest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpres/mcpres/bundle"
)

// The results a conformance statement may carry (bundle.statement.result).
const (
	ResultPass       = "PASS"
	ResultFail       = "FAIL"
	ResultIncomplete = "INCOMPLETE"
)

// ParseResult checks a statement result named by a caller (an accepted
// result of a [Gate]): exactly one of PASS, FAIL and INCOMPLETE.
func ParseResult(s string) (string, error) {
	switch s {
	case ResultPass, ResultFail, ResultIncomplete:
		return s, nil
	}
	return "", fmt.Errorf("result %q is not one of %s, %s, %s", s, ResultPass, ResultFail, ResultIncomplete)
}

// The checks of a [Gate], in the order a [Verdict] lists them
// ([GateCheck].Check). The subject checks follow under their own names
// (SubjectCheck…), or SubjectCheckBound when none was asked.
const (
	// GateCheckValid: the attested bundle verified (no diagnostic).
	GateCheckValid = "valid"
	// GateCheckLevel: the derived authenticity level is at least the
	// required one (SIGNED_WITH_IDENTITY by default: a trusted signer).
	GateCheckLevel = "level"
	// GateCheckResult: the statement's result is PASS, or one the caller
	// accepted by name.
	GateCheckResult = "result"
	// GateCheckEvidenceClass: the evidence class is at least the required
	// one (only when one is required).
	GateCheckEvidenceClass = "evidenceClass"
	// SubjectCheckBound: the gate is bound to an artifact. Listed only
	// when no subject check was asked: it fails unless the caller said
	// NoSubjectUnsafe.
	SubjectCheckBound = "bound"
)

// A Gate is what a release pipeline requires of an attested bundle before
// it lets what the bundle is about through: the one place where mcpres
// decides pass or fail (attest verify, mcpres report, the GitHub Action
// and the Go API all evaluate a Gate). Verification ([Verify]) answers
// whether the bundle is what it says; a Gate answers whether it is
// enough. MCP-RES keeps integrity, authenticity and the reliability
// result apart (MCPRES-AUTHN-001), and so does the Gate: it checks each.
//
// The zero value is the safe gate: the bundle must verify, its result
// must be PASS, at least one envelope must be by a signer the trust
// policy trusts (the level SIGNED_WITH_IDENTITY, which a verification
// without a policy never derives), and it must be bound to an artifact
// (a subject requirement). Every loosening is a field whose name says so:
// AcceptResults, BelowIdentityUnsafe, NoSubjectUnsafe. It follows
// sigstore-go's habit (verify.WithoutArtifactUnsafe): nothing is skipped
// by leaving something out.
type Gate struct {
	// MinLevel is the lowest authenticity level that passes. A level below
	// SIGNED_WITH_IDENTITY counts only with BelowIdentityUnsafe; otherwise
	// the gate requires SIGNED_WITH_IDENTITY at least.
	MinLevel Level
	// BelowIdentityUnsafe lets MinLevel be below SIGNED_WITH_IDENTITY: a
	// bundle that no key of the trust policy signed can then pass.
	BelowIdentityUnsafe bool
	// MinEvidenceClass is the lowest evidence class that passes; the zero
	// value (DOCUMENTED_ONLY) requires nothing.
	MinEvidenceClass bundle.EvidenceClass
	// AcceptResults are the statement results accepted besides PASS
	// (FAIL, INCOMPLETE): never implied.
	AcceptResults []string
	// Subject is what the bundle must be about (the artifact that ships,
	// the image of attest verify --oci).
	Subject SubjectRequirement
	// NoSubjectUnsafe says that the gate is not bound to an artifact: a
	// bundle about anything the policy's signers signed may pass. Without
	// it a gate with no subject requirement fails.
	NoSubjectUnsafe bool
}

// Check says why g cannot be evaluated as given, or nil: an accepted
// result that is not a result, a subject digest in the wrong form.
func (g Gate) Check() error {
	for _, r := range g.AcceptResults {
		if _, err := ParseResult(r); err != nil {
			return fmt.Errorf("accepted %v", err)
		}
	}
	if g.Subject.Active() && g.NoSubjectUnsafe {
		return fmt.Errorf("a subject requirement and NoSubjectUnsafe together: the gate is bound or it is not")
	}
	return g.Subject.Check()
}

// RequiredLevel is the level g requires: MinLevel, raised to
// SIGNED_WITH_IDENTITY unless BelowIdentityUnsafe.
func (g Gate) RequiredLevel() Level {
	if g.BelowIdentityUnsafe {
		return g.MinLevel
	}
	return max(g.MinLevel, SignedWithIdentity)
}

// Results are the statement results g accepts, PASS first.
func (g Gate) Results() []string {
	out := []string{ResultPass}
	for _, r := range g.AcceptResults {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// A GateCheck is how one check of a [Gate] came out.
type GateCheck struct {
	// Check is one of the GateCheck… or SubjectCheck… constants.
	Check string
	// Required is what the check requires ("SIGNED_WITH_IDENTITY",
	// "PASS", a digest, …: several are joined with " or ").
	Required string
	// Found is what the bundle has, or "" when it has nothing to compare
	// (an invalid bundle is about no subject and has no level).
	Found  string
	Passed bool
	// Reason, when the check failed, says why in one line; Summary is its
	// first part, short enough for a verdict line (the level check's
	// Reason adds the evaluation's notes).
	Reason, Summary string
}

// A Verdict is a [Gate]'s decision on one verification result: passed
// only when every check passed.
type Verdict struct {
	Passed bool
	// Checks are every check made, in order: valid, level, result,
	// evidenceClass (when required), then the subject checks.
	Checks []GateCheck
	// Subject are the subject checks' outcomes (nil when none was asked).
	Subject []SubjectOutcome
	// Result is the statement's result ("" for an invalid bundle).
	Result string
	// Cause, when the level was not reached, says why: the evaluation's
	// notes that name the missing levels.
	Cause string
	// Unbound is true when the gate was not bound to an artifact
	// (NoSubjectUnsafe): callers say so where people read.
	Unbound bool
}

// Reasons are the failed checks' reasons, in order.
func (v Verdict) Reasons() []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Passed && c.Reason != "" {
			out = append(out, c.Reason)
		}
	}
	return out
}

// Summaries are the failed checks' summaries, in order: the verdict in
// one line.
func (v Verdict) Summaries() []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Passed && c.Reason != "" {
			out = append(out, cmp.Or(c.Summary, c.Reason))
		}
	}
	return out
}

// Evaluate decides whether the verification result r passes g. An
// invalid result never passes; every other check is listed whatever the
// outcome of the ones before it, so that a verdict says everything that
// is wrong at once.
func (g Gate) Evaluate(r Result) Verdict {
	v := Verdict{Unbound: g.NoSubjectUnsafe && !g.Subject.Active()}
	add := func(c GateCheck) { v.Checks = append(v.Checks, c) }
	if !r.Valid {
		add(GateCheck{Check: GateCheckValid, Required: "valid", Found: "invalid",
			Reason: "the attested bundle is invalid (" + strings.Join(r.Diagnostics, ", ") + ")"})
	} else {
		add(GateCheck{Check: GateCheckValid, Required: "valid", Found: "valid", Passed: true})
		v.Result = r.StatementResult
		want := g.RequiredLevel()
		c := GateCheck{Check: GateCheckLevel, Required: want.String(), Found: r.Level.String(), Passed: r.Level >= want}
		if !c.Passed {
			c.Summary = fmt.Sprintf("%s required, derived %s", want, r.Level)
			c.Reason = c.Summary
			switch {
			case !r.Evaluation.PolicySupplied:
				c.Reason += ": no trust policy was given, so no signer is trusted"
				c.Summary = c.Reason
			case len(r.Evaluation.Notes) > 0:
				c.Reason += ": " + strings.Join(r.Evaluation.Notes, "; ")
			}
			v.Cause = strings.Join(levelNotes(r.Evaluation.Notes, r.Level, want), "; ")
		}
		add(c)
		results := g.Results()
		c = GateCheck{Check: GateCheckResult, Required: strings.Join(results, " or "), Found: r.StatementResult, Passed: slices.Contains(results, r.StatementResult)}
		if !c.Passed {
			c.Reason = fmt.Sprintf("result %s: the evidence records a %s outcome, and only %s is accepted", r.StatementResult, r.StatementResult, c.Required)
		}
		add(c)
		if g.MinEvidenceClass > bundle.DocumentedOnly {
			found := ""
			if r.HasEvidenceClass {
				found = r.EvidenceClass.String()
			}
			c = GateCheck{Check: GateCheckEvidenceClass, Required: g.MinEvidenceClass.String(), Found: found}
			c.Passed = r.HasEvidenceClass && r.EvidenceClass >= g.MinEvidenceClass
			if !c.Passed {
				c.Reason = fmt.Sprintf("evidence class %s required, the bundle has %s", g.MinEvidenceClass, orNone(found))
			}
			add(c)
		}
	}
	switch {
	case g.Subject.Active():
		v.Subject = g.Subject.Evaluate(r)
		for _, o := range v.Subject {
			c := GateCheck{Check: o.Check, Required: strings.Join(o.Expected, " or "), Found: o.Found, Passed: o.Passed, Reason: o.Reason}
			if !r.Valid {
				// An invalid bundle is about no subject: its subject checks
				// are listed as failed, and the one reason is that it is
				// invalid.
				c.Reason = ""
			}
			add(c)
		}
	case g.NoSubjectUnsafe:
		add(GateCheck{Check: SubjectCheckBound, Required: "none (not bound to an artifact: NoSubjectUnsafe)", Passed: true})
	default:
		add(GateCheck{Check: SubjectCheckBound, Required: "a subject requirement",
			Reason: "not bound to an artifact: the gate names no subject (artifact, digest, name, version or image), and not being bound was not asked for (NoSubjectUnsafe)"})
	}
	v.Passed = true
	for _, c := range v.Checks {
		v.Passed = v.Passed && c.Passed
	}
	return v
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// levelNotes are the notes that name a level above derived up to
// required (the ones that say why it was not reached: "witnesses: the
// policy has no witnesses rule, so WITNESSED is not derivable"), or all
// notes when none does.
func levelNotes(notes []string, derived, required Level) []string {
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
