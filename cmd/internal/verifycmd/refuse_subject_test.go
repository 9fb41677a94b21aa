package verifycmd

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
)

// SubjectOnly (mcpres report's subject checks, without a gate) fails a
// valid bundle about another artifact (exit 1, the reason in the "gate"
// member and the text), says when the digest asked for is the file's own
// SHA-256, passes the bundle's own subject (control), and adds nothing to
// an invalid bundle, which fails for being invalid.
func TestSubjectOnly(t *testing.T) {
	path, subject := signedExample(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canonjson.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := attest.Verify(doc, attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
	if err != nil || !r.Valid {
		t.Fatalf("setup: %v %v", err, r.Diagnostics)
	}
	digest := func(d string) attest.SubjectRequirement {
		p, err := attest.ParseSubjectDigest(d)
		if err != nil {
			t.Fatal(err)
		}
		return attest.SubjectRequirement{Digests: []string{p}}
	}
	fileDigest, err := ArtifactDigest(path)
	if err != nil {
		t.Fatal(err)
	}

	rep := SubjectOnly(AttestReport(path, r), r, digest(fileDigest), data, doc)
	gate := rep.Obj.Get("gate")
	if rep.Code != ExitInvalid || rep.Outcome != OutcomeGateFailed || gate.Get("passed").Bool || len(gate.Get("reasons").Items) != 1 ||
		!strings.HasPrefix(rep.Detail, "subject: "+attest.CodeSubjectMismatch) ||
		!strings.Contains(rep.Detail, "is the SHA-256 of the file being verified, not of the artifact it is about") {
		t.Errorf("the file's own digest: code %d %s %q, gate %s", rep.Code, rep.Outcome, rep.Detail, compactString(gate))
	}
	if last := rep.Text[len(rep.Text)-1]; !strings.HasPrefix(last, "  subject: FAILED: "+attest.CodeSubjectMismatch) {
		t.Errorf("text: %q", rep.Text)
	}

	rep = SubjectOnly(AttestReport(path, r), r, digest(subject), data, doc)
	if rep.Code != ExitValid || !rep.Obj.Get("gate").Get("passed").Bool || len(rep.Obj.Get("gate").Get("reasons").Items) != 0 {
		t.Errorf("control: code %d, gate %s", rep.Code, compactString(rep.Obj.Get("gate")))
	}

	bad := doc.Clone()
	bad.Get("bundle").Get("evidence").Get("subject").Set("version", canonjson.NewString("3.4.2"))
	rb, err := attest.Verify(bad, attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
	if err != nil || rb.Valid {
		t.Fatalf("setup invalid: %v %v", err, rb.Valid)
	}
	rep = SubjectOnly(AttestReport(path, rb), rb, digest(fileDigest), nil, bad)
	if rep.Code != ExitInvalid || rep.Outcome != OutcomeInvalid || rep.Obj.Get("gate").Get("passed").Bool || len(rep.Obj.Get("gate").Get("reasons").Items) != 0 {
		t.Errorf("invalid bundle: code %d %s, gate %s", rep.Code, rep.Outcome, compactString(rep.Obj.Get("gate")))
	}
}

// --require-evidence-class is rendered in the gate (JSON member and the
// text of a passing gate, the example's FIXTURE_BACKED_PROTOCOL); a class
// above the bundle's fails it, naming the class required.
func TestCommandEvidenceClassGate(t *testing.T) {
	path, subject := signedExample(t)
	trust := []string{"--key", publicKeyOne(t), "--identity", attesttest.IdentityOne, "--subject-digest", subject}
	r := runVerify(t, Config{}, append(trust, "--format", "text", "--require-evidence-class", "FIXTURE_BACKED_PROTOCOL", path)...)
	if r.exit(t) != ExitValid || !strings.Contains(r.stdout, ": PASSED: SIGNED_WITH_IDENTITY (at least SIGNED_WITH_IDENTITY), result PASS, evidence class FIXTURE_BACKED_PROTOCOL, about ") {
		t.Fatalf("control: %v %s", r.err, r.stdout)
	}
	r = runVerify(t, Config{}, append(trust, "--format", "text", "--require-evidence-class", "GENUINE_RUNTIME", path)...)
	if code := r.exit(t); code != ExitInvalid || !strings.Contains(r.stdout, "FAILED") || !strings.Contains(r.stdout, "GENUINE_RUNTIME") {
		t.Errorf("GENUINE_RUNTIME: exit %d %q", code, r.stdout)
	}
	r = runVerify(t, Config{}, append(trust, "--require-evidence-class", "GENUINE_RUNTIME", path)...)
	if !strings.Contains(r.stdout, `"requireEvidenceClass":"GENUINE_RUNTIME"`) {
		t.Errorf("JSON gate: %s", r.stdout)
	}
}
