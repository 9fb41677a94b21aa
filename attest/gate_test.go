package attest_test

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// gateVerify signs b with key one as IdentityOne (claim SIGNED) and
// verifies it against the corpus test policy trusting trusted ("one",
// "two"; nil: no policy).
func gateVerify(t *testing.T, b *canonjson.Value, trusted []string) attest.Result {
	t.Helper()
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	o := attest.Options{EvaluatedAt: attesttest.EvaluatedAt, Validator: validator.New()}
	if trusted != nil {
		o.Policy = trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: trusted}), trustpolicy.OpenOptions{})
	}
	r, err := attest.Verify(s.Attested, o)
	if err != nil || !r.Valid {
		t.Fatalf("verify: %v %+v", err, r.Result)
	}
	return r
}

func subjectOf(b *canonjson.Value) attest.SubjectRequirement {
	return attest.SubjectRequirement{Digests: []string{"sha256:" + b.Path("evidence", "subject", "artifactSha256").Str}}
}

func failedChecks(v attest.Verdict) []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Passed {
			out = append(out, c.Check)
		}
	}
	return out
}

// The zero Gate with a subject passes an honest bundle (PASS, a trusted
// signer, the right subject) and lists every check; each fault fails
// exactly its own check.
func TestGateDefaults(t *testing.T) {
	honest := bundletest.Example(t)
	r := gateVerify(t, honest, []string{"one"})
	g := attest.Gate{Subject: subjectOf(honest)}
	v := g.Evaluate(r)
	if !v.Passed || v.Result != attest.ResultPass || len(v.Reasons()) != 0 {
		t.Fatalf("honest bundle: %+v", v)
	}
	var names []string
	for _, c := range v.Checks {
		names = append(names, c.Check)
	}
	if got := strings.Join(names, ","); got != "valid,level,result,digest" {
		t.Errorf("checks %s", got)
	}

	for _, tc := range []struct {
		name    string
		b       *canonjson.Value
		trusted []string
		g       attest.Gate
		failed  string
		reason  string
	}{
		{"FAIL result", bundletest.ExampleWithResult(t, attest.ResultFail), []string{"one"}, attest.Gate{}, "result", "result FAIL"},
		{"INCOMPLETE result", bundletest.ExampleWithResult(t, attest.ResultIncomplete), []string{"one"}, attest.Gate{}, "result", "result INCOMPLETE"},
		{"untrusted signer", honest, []string{"two"}, attest.Gate{}, "level", "SIGNED_WITH_IDENTITY required, derived SIGNED"},
		{"no policy", honest, nil, attest.Gate{}, "level", "no trust policy was given"},
		{"higher level", honest, []string{"one"}, attest.Gate{MinLevel: attest.Witnessed}, "level", "WITNESSED required"},
		{"evidence class", honest, []string{"one"}, attest.Gate{MinEvidenceClass: bundle.GenuineRuntime}, "evidenceClass", "GENUINE_RUNTIME required"},
		{"other subject", honest, []string{"one"}, attest.Gate{Subject: attest.SubjectRequirement{Name: "another"}}, "name", attest.CodeSubjectMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gateVerify(t, tc.b, tc.trusted)
			g := tc.g
			if !g.Subject.Active() {
				g.Subject = subjectOf(tc.b)
			}
			v := g.Evaluate(r)
			if v.Passed || strings.Join(failedChecks(v), ",") != tc.failed || len(v.Reasons()) != 1 || !strings.Contains(v.Reasons()[0], tc.reason) {
				t.Fatalf("failed %v, reasons %q; want only %s failing with %q", failedChecks(v), v.Reasons(), tc.failed, tc.reason)
			}
		})
	}
}

// The loosenings are each asked for by name, and each lets through only
// what it names.
func TestGateUnsafeOptOuts(t *testing.T) {
	fail := bundletest.ExampleWithResult(t, attest.ResultFail)
	r := gateVerify(t, fail, []string{"one"})
	q := subjectOf(fail)
	if v := (attest.Gate{Subject: q, AcceptResults: []string{attest.ResultFail}}).Evaluate(r); !v.Passed || v.Result != attest.ResultFail {
		t.Errorf("FAIL accepted by name: %+v", v)
	}
	// Control: accepting INCOMPLETE does not accept FAIL.
	if v := (attest.Gate{Subject: q, AcceptResults: []string{attest.ResultIncomplete}}).Evaluate(r); v.Passed {
		t.Errorf("INCOMPLETE accepted lets FAIL through")
	}

	honest := bundletest.Example(t)
	rogue := gateVerify(t, honest, []string{"two"})
	q = subjectOf(honest)
	if v := (attest.Gate{Subject: q, MinLevel: attest.Signed, BelowIdentityUnsafe: true}).Evaluate(rogue); !v.Passed {
		t.Errorf("SIGNED accepted by name: %+v", v)
	}
	// Control: MinLevel SIGNED without the opt-out is raised to a trusted signer.
	if v := (attest.Gate{Subject: q, MinLevel: attest.Signed}).Evaluate(rogue); v.Passed || failedChecks(v)[0] != attest.GateCheckLevel {
		t.Errorf("MinLevel SIGNED without BelowIdentityUnsafe passed an untrusted signer: %+v", v)
	}

	trusted := gateVerify(t, honest, []string{"one"})
	v := attest.Gate{}.Evaluate(trusted)
	if v.Passed || strings.Join(failedChecks(v), ",") != attest.SubjectCheckBound || !strings.Contains(v.Reasons()[0], "not bound to an artifact") {
		t.Errorf("a gate with no subject passed: %+v", v)
	}
	if v := (attest.Gate{NoSubjectUnsafe: true}).Evaluate(trusted); !v.Passed || !v.Unbound {
		t.Errorf("NoSubjectUnsafe: %+v", v)
	}
	if err := (attest.Gate{NoSubjectUnsafe: true, Subject: q}).Check(); err == nil {
		t.Errorf("a subject and NoSubjectUnsafe together: no error")
	}
	if err := (attest.Gate{AcceptResults: []string{"pass"}}).Check(); err == nil {
		t.Errorf("an accepted result that is not a result: no error")
	}
}

// An invalid bundle fails for being invalid, once: its subject checks are
// listed as failed, without a reason of their own.
func TestGateInvalid(t *testing.T) {
	q := attest.SubjectRequirement{Name: "x", Digests: []string{"sha256:" + strings.Repeat("0", 64)}}
	v := attest.Gate{Subject: q}.Evaluate(attest.Result{Result: validator.Fail(attest.CodeSignatureInvalid, "bad")})
	if v.Passed || len(v.Reasons()) != 1 || !strings.Contains(v.Reasons()[0], attest.CodeSignatureInvalid) || len(v.Checks) != 3 {
		t.Fatalf("%+v", v)
	}
}
