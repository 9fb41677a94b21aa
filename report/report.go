package report

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/validator"
)

// Input is what one report shows: a document and the verdict already
// computed for it by the validator or by attest.Verify.
type Input struct {
	// Name names the document in the report, e.g. its file name.
	Name string
	// Document is the parsed document, or nil when it could not be read
	// (then InputError says why).
	Document *canonjson.Value
	// Result is the validator's verdict (document.Validator.Validate,
	// as `mcpres validate` computes it). Ignored when Attestation is set.
	Result validator.Result
	// Attestation is attest.Verify's result for an attested bundle (as
	// `mcpres attest verify` computes it), or nil.
	Attestation *attest.Result
	// InputError is the reason the document could not be evaluated
	// (MCP_RES_INPUT_INVALID, exit status 2), or "".
	InputError string
	// PolicyName names the trust-policy file given, for the derivation
	// section; "" when none.
	PolicyName string
	// Subject is how each subject check asked of the document came out
	// (attest.SubjectRequirement, computed by the caller), or nil when
	// none was asked. A failed check makes the verdict a failure.
	Subject []attest.SubjectOutcome
	// Verdict is the gate's verdict on an attested bundle (attest.Gate,
	// computed by the caller: attest verify's gate with a trust policy),
	// or nil when no gate judged it. The page then opens with PASSED or
	// FAILED and lists every check.
	Verdict *attest.Verdict
	// Generator names the program that wrote the report, e.g. "mcpres 0.3.0".
	Generator string
}

// Document kinds the report lays out differently.
const (
	kindBundle   = "conformance bundle v0.2.0"
	kindAttested = "attested conformance bundle v0.2.0"
)

// Render returns the report page for in. It does not validate or verify
// anything: the verdict is in.Result or in.Attestation, rendered as given.
// Render fails only if the page template cannot be executed (a bug).
func Render(in Input) ([]byte, error) {
	p := build(in)
	// Parsed per call, not at package init: every mcpres command links
	// this package and must not pay for it (DESIGN.md startup budget).
	t, err := template.New("page").Parse(pageHTML)
	if err != nil {
		return nil, fmt.Errorf("report: page template: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(64 << 10)
	if err := t.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("report: rendering: %w", err)
	}
	return buf.Bytes(), nil
}

// page is everything the template shows; every string in it is display
// text, escaped by html/template.
type page struct {
	Name, Kind, SchemaVersion, Generator string
	Verdict                              verdict
	Auth                                 *authView
	Bundle                               *bundleView
	Tree                                 []*treeNode
	TreeNote                             string
	Limits                               []string
}

type verdict struct {
	Class, Status, Detail string
	Diagnostics           []diagView
	SchemaErrors          *table
	Extra                 []kv
	// Subject lists the subject checks asked and how each came out.
	Subject *table
	// Gate lists the gate's checks, when a gate judged the document.
	Gate *table
	// Authenticity is the derived authenticity level of an attested
	// bundle; EvidenceClass the evidence class facts of a v0.2 bundle.
	Authenticity  []kv
	EvidenceClass []kv
	// RestsOn lists the passing, integrity-bound observations the class
	// rests on, only for a valid document; RestsOnNone says why none is
	// listed.
	RestsOn     *table
	RestsOnNone string
}

type diagView struct{ Code, Meaning, Where string }

type authView struct {
	Facts        []kv
	Envelopes    *table
	Transparency *table
	Witnesses    *table
	Notes        []string
	Detail       []*treeNode
}

func build(in Input) *page {
	p := &page{Name: show(in.Name, 300), Generator: show(in.Generator, 100), Limits: limits}
	if p.Generator == "" {
		p.Generator = "mcpres"
	}
	doc := in.Document
	sv := str(doc.Get("schemaVersion"))
	p.SchemaVersion = show(sv, 200)
	r := in.Result
	if in.Attestation != nil {
		r = in.Attestation.Result
	}
	var b *canonjson.Value // the v0.2 bundle shown in full, if any
	kind := document.Detect(doc)
	switch {
	case kind == document.Bundle:
		p.Kind, b = kindBundle, doc
	case kind == document.AttestedBundle:
		p.Kind = kindAttested
		if inner := doc.Get("bundle"); inner.Is(canonjson.Object) {
			b = inner
		}
	case doc == nil:
		p.Kind = "unreadable document"
	case sv == "":
		p.Kind = "document without a schemaVersion"
	default:
		p.Kind = show(sv, 200)
	}
	p.Verdict = buildVerdict(in, r, sv, b)
	if in.Attestation != nil {
		p.Auth = buildAuth(in, doc)
	}
	if b != nil {
		p.Bundle = buildBundle(b, r)
	} else if doc != nil {
		t := &treeBuilder{budget: maxTreeNodes}
		p.Tree = t.children(doc)
		if t.cut > 0 {
			p.TreeNote = fmt.Sprintf("%d further values are not shown (the view shows at most %d).", t.cut, maxTreeNodes)
		}
	}
	return p
}

func buildVerdict(in Input, r validator.Result, sv string, b *canonjson.Value) verdict {
	var v verdict
	switch {
	case in.InputError != "":
		v.Class, v.Status, v.Detail = "bad", "INPUT INVALID", show(in.InputError, maxCell)
		e := explain(validator.CodeInputInvalid)
		v.Diagnostics = []diagView{{validator.CodeInputInvalid, e.Meaning, e.Where}}
		return v
	case r.Valid:
		v.Class, v.Status = "ok", "VALID"
	default:
		v.Class, v.Status = "bad", "INVALID"
	}
	v.Detail = show(r.Detail, maxCell)
	if res := str(b.Path("statement", "result")); r.Valid && res != "" && res != attest.ResultPass {
		// MCPRES-AUTHN-001: valid evidence of a failed or incomplete run
		// is not a green box.
		v.Class, v.Status = "bad", "VALID, RESULT "+show(res, 32)
		v.Detail = show("The evidence is intact, and it records the result "+res+": the run it describes did not pass.", maxCell)
	}
	if g := in.Verdict; g != nil {
		gt := newTable(col("Check"), mono("Required"), mono("Found"), chip("Result"))
		for _, c := range g.Checks {
			found, result, class := c.Found, "passed", "ok"
			if found == "" {
				found = "–"
			}
			if !c.Passed {
				result, class = "FAILED", "bad"
			}
			gt.addClass(class, show(c.Check, 32), show(c.Required, maxCell), show(found, 300), result)
		}
		v.Gate = gt
		if g.Passed {
			v.Class, v.Status = "ok", "PASSED"
			v.Detail = ""
		} else {
			v.Class, v.Status = "bad", "FAILED"
			v.Detail = show(strings.Join(g.Reasons(), "; "), maxCell)
		}
	}
	if len(in.Subject) > 0 {
		st := newTable(col("Check"), mono("Expected (any of)"), mono("Found"), chip("Result"))
		var failed []string
		for _, o := range in.Subject {
			want := o.Expected
			if len(o.Sources) == len(want) {
				want = make([]string, len(o.Expected))
				for i := range want {
					want[i] = o.Sources[i] + " " + o.Expected[i]
				}
			}
			found, result, class := o.Found, "passed", "ok"
			if found == "" {
				found = "no subject"
			}
			if !o.Passed {
				result, class = "FAILED", "bad"
				failed = append(failed, o.Reason)
			}
			st.addClass(class, show(o.Check, 16), show(strings.Join(want, " · "), maxCell), show(found, 300), result)
		}
		v.Subject = st
		if r.Valid && len(failed) > 0 && in.Verdict == nil {
			v.Class, v.Status = "bad", "VALID, SUBJECT CHECK FAILED"
			v.Detail = show(strings.Join(failed, "; "), maxCell)
		}
	}
	for i, c := range r.Diagnostics {
		if i == maxRows {
			break
		}
		e := explain(c)
		if sv == bundle.SchemaVersionBundleV01 {
			e = familyExplanation(c) // v0.1 reuses some v0.2 names with other rules
		}
		v.Diagnostics = append(v.Diagnostics, diagView{show(c, 200), e.Meaning, e.Where})
	}
	se := newTable(mono("Where (JSON Pointer)"), col("Keyword"), col("Message"))
	for i, e := range r.SchemaErrors {
		if se.full() {
			se.Note = fmt.Sprintf("%d more schema errors are not listed.", len(r.SchemaErrors)-i)
			break
		}
		path := e.InstancePath
		if path == "" {
			path = "(root)"
		}
		se.add(show(path, 500), show(e.Keyword, 64), show(e.Message, maxCell))
	}
	v.SchemaErrors = se.orNil()
	for _, m := range r.Extra {
		v.Extra = append(v.Extra, kv{K: show(m.Key, 200), V: cell(m.Value)})
	}
	if a := in.Attestation; a != nil {
		if a.Valid {
			v.Authenticity = []kv{{K: "Derived from the signatures and the trust policy", V: a.Level.String(), Class: "big"}}
		} else {
			v.Authenticity = []kv{{K: "Derived from the signatures and the trust policy", V: "none: verification failed"}}
		}
		if a.Valid && a.HasEvidenceClass {
			v.EvidenceClass = append(v.EvidenceClass, kv{K: "Evidence class (echoed from the signed bundle)", V: a.EvidenceClass.String(), Class: "big"})
		}
	}
	if b != nil {
		st := b.Get("statement")
		v.EvidenceClass = append(v.EvidenceClass, fact("Evidence class in the statement", st.Get("evidenceClass")),
			fact("Evidence class claimed by the evidence", b.Path("evidence", "evidenceClassClaim")))
		dec, err := bundle.Decode(b)
		switch {
		case err != nil:
			v.EvidenceClass = append(v.EvidenceClass, kv{K: "Evidence class the observations derive", V: "not derivable: the bundle does not have the schema's shape"})
		case r.Valid:
			v.EvidenceClass = append(v.EvidenceClass, kv{K: "Evidence class the observations derive (REFERENCE §4.1)", V: validator.DeriveClass(dec).String()})
		default:
			v.EvidenceClass = append(v.EvidenceClass, kv{K: "Evidence class the observations derive (REFERENCE §4.1)",
				V: "not established: the document failed verification (as written, the observations would derive " + validator.DeriveClass(dec).String() + ")"})
		}
		switch {
		case !r.Valid:
			v.RestsOnNone = "The document failed verification, so no observation in it is established as integrity-bound and passing: the class rests on none of them. (Every observation, as written, is in the timeline below.)"
		default:
			v.RestsOn = passingObservations(b.Path("evidence", "observations")).orNil()
			if v.RestsOn == nil {
				v.RestsOnNone = "No observation is both integrity-bound and passing: the class can only be DOCUMENTED_ONLY."
			}
		}
	}
	return v
}

// passingObservations lists the observations class derivation counts
// (REFERENCE §4.1: strength INTEGRITY_BOUND and outcome PASS, the filter
// validator.DeriveClass applies). It is shown for a valid document only:
// in any other the digests that bind these observations may not hold.
func passingObservations(obs *canonjson.Value) *table {
	t := newTable(col("Type"), mono("Observation"), mono("Operation"), col("Reason code"))
	more := 0
	for _, o := range items(obs) {
		if str(o.Get("strength")) != bundle.StrengthIntegrityBound || str(o.Get("outcome")) != "PASS" {
			continue
		}
		if t.full() {
			more++
			continue
		}
		t.add(cell(o.Get("type")), cell(o.Get("id")), cell(o.Get("operationRef")), cell(o.Get("reasonCode")))
	}
	if more > 0 {
		t.Note = fmt.Sprintf("%d more passing observations are not listed.", more)
	}
	return t
}

func buildAuth(in Input, doc *canonjson.Value) *authView {
	r := in.Attestation
	ev := r.Evaluation
	a := &authView{}
	a.Facts = append(a.Facts, fact("Claimed classification", doc.Path("authenticity", "claimedClassification")))
	if r.Valid {
		a.Facts = append(a.Facts, kv{K: "Derived level", V: r.Level.String(), Class: "big"})
	} else {
		a.Facts = append(a.Facts, kv{K: "Derived level", V: "none: verification failed"})
	}
	a.Facts = append(a.Facts, kv{K: "Evaluated at", V: show(ev.EvaluatedAt, 64), Mono: true})
	switch {
	case ev.PolicyID != nil:
		a.Facts = append(a.Facts, kv{K: "Trust policy", V: show(*ev.PolicyID, 200) + " version " + show(*ev.PolicyVersion, 64)})
	case ev.PolicySupplied:
		a.Facts = append(a.Facts, kv{K: "Trust policy", V: "supplied, but not evaluated: an earlier check decided"})
	default:
		a.Facts = append(a.Facts, kv{K: "Trust policy", V: "none supplied: at most SIGNED can be derived"})
	}
	if in.PolicyName != "" {
		a.Facts = append(a.Facts, kv{K: "Policy file", V: show(in.PolicyName, 300)})
	}
	a.Facts = append(a.Facts, kv{K: "Distinct signing keys (by SPKI fingerprint)", V: fmt.Sprint(ev.DistinctKeys)})
	envs := newTable(col("#"), mono("Key (SPKI SHA-256)"), col("Signer identity"), col("Signature"), col("Trusted"), col("Revoked"))
	for _, e := range ev.Envelopes {
		sig := "not verified"
		if e.SignatureValid {
			sig = "valid"
		}
		envs.add(fmt.Sprint(e.Index), show(e.KeyFingerprint, 100), show(e.SignerIdentity, 300), sig, yesNo(e.Trusted), yesNo(e.Revoked))
	}
	a.Envelopes = envs.orNil()
	a.Transparency, a.Witnesses = transparencyTables(ev.Envelopes)
	for _, n := range ev.Notes {
		a.Notes = append(a.Notes, show(n, maxCell))
	}
	// The whole evaluation object as attest.Verify reports it, so every
	// fact it carries is shown even before this page lays it out.
	if e := r.Value().Get("evaluation"); e != nil {
		t := &treeBuilder{budget: 2000}
		a.Detail = t.children(e)
	}
	return a
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// maxRows caps every table.
const maxRows = 200

// limits is MCP-RES v0.2.0 §9 in mcpres's words; every report shows it.
var limits = []string{
	"A PASS says only this: the exact subject pinned here, run under exactly this scenario, met MCP-RES v0.2.0 and this profile with the coverage recorded here.",
	"It is no evidence about paths the run did not observe, about protocol behaviour outside the scenario, about security, about availability in production, about interoperability beyond the tested matrix, or that anyone independent has adopted or reproduced it.",
	"A signature or a transparency proof says who vouches for the bundle and that it was published; it never changes the evidence class or turns a failing result into a passing one (MCPRES-AUTHN-001).",
}
