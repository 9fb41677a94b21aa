package verifycmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// AttestReport builds its text lines without fmt; they must read exactly
// as the fmt verbs they replace (%s, %d, %q, %t) would write them, for
// paths and identities that quote, escape or are not UTF-8.
func TestAttestReportTextLines(t *testing.T) {
	id, version := "mcp-res/test-policy", "1.0.0"
	evs := []attest.EnvelopeEvaluation{
		{Index: 0, KeyFingerprint: "06e3fd8f", SignerIdentity: "test://signer-one", SignatureValid: true, Trusted: true, Transparency: attest.TransparencyNone},
		{Index: 1, KeyFingerprint: "deb2ded3", SignerIdentity: "a \"quoted\"\tname \xff é", Revoked: true, Transparency: attest.TransparencyDigestOnly},
	}
	results := []attest.Result{
		{Result: validator.Pass(), Level: attest.Witnessed, EvidenceClass: bundle.FixtureBackedProtocol, HasEvidenceClass: true,
			Evaluation: attest.Evaluation{EvaluatedAt: "2026-08-27T18:05:00.000Z", PolicySupplied: true, PolicyID: &id, PolicyVersion: &version,
				Envelopes: evs, DistinctKeys: 2, Notes: []string{"a note", "100% %d"}}},
		{Result: validator.Pass(), Level: attest.Signed, Evaluation: attest.Evaluation{EvaluatedAt: "2026-08-27T18:05:00Z", Envelopes: evs[:1], DistinctKeys: 1}},
		{Result: validator.Fail(attest.CodeSignatureInvalid, "envelope 0: bad"), Evaluation: attest.Evaluation{EvaluatedAt: "x", PolicySupplied: true, Envelopes: evs}},
	}
	for i, r := range results {
		path := fmt.Sprintf("dir %%s/%d \xfe.json", i)
		ev := r.Evaluation
		// The lines as fmt wrote them.
		policy := "no policy"
		if ev.PolicySupplied {
			policy = "a policy that was not evaluated (an earlier check decided)"
		}
		if ev.PolicyID != nil {
			policy = fmt.Sprintf("policy %s version %s", *ev.PolicyID, *ev.PolicyVersion)
		}
		var want []string
		if r.Valid {
			class := ""
			if r.HasEvidenceClass {
				class = ", evidence class " + r.EvidenceClass.String()
			}
			want = append(want, fmt.Sprintf("%s: VALID %s%s", path, r.Level, class))
		} else {
			want = append(want, fmt.Sprintf("%s: INVALID %s: %s", path, strings.Join(r.Diagnostics, ", "), r.Detail))
		}
		keys := "keys"
		if ev.DistinctKeys == 1 {
			keys = "key"
		}
		want = append(want, fmt.Sprintf("  evaluated at %s with %s; %d distinct signing %s, counted by SPKI fingerprint", ev.EvaluatedAt, policy, ev.DistinctKeys, keys))
		for _, e := range ev.Envelopes {
			want = append(want, fmt.Sprintf("  envelope %d: key %s identity %q signature %s, trusted %t, revoked %t, transparency %s",
				e.Index, e.KeyFingerprint, e.SignerIdentity, okText(e.SignatureValid), e.Trusted, e.Revoked, e.Transparency))
		}
		for _, n := range ev.Notes {
			want = append(want, "  note: "+n)
		}
		if got := AttestReport(path, r).Text; !slices.Equal(got, want) {
			t.Errorf("result %d: text\n%q\nwant\n%q", i, got, want)
		}
	}
}

// PrintJSON reuses its line buffer: a shorter line after a longer one, a
// line too long to keep, and a line with invalid UTF-8 after it each
// print exactly their own bytes.
func TestPrintJSONReusesItsBuffer(t *testing.T) {
	var out strings.Builder
	p := &Printer{Stdout: &out}
	long := strings.Repeat("x", maxKeptLine)
	objs := []*canonjson.Value{
		canonjson.NewObject(canonjson.Member{Key: "valid", Value: canonjson.NewString("a longer first line")}),
		canonjson.NewObject(canonjson.Member{Key: "v", Value: canonjson.NewBool(true)}),
		canonjson.NewObject(canonjson.Member{Key: "long", Value: canonjson.NewString(long)}),
		canonjson.NewObject(canonjson.Member{Key: "bad", Value: canonjson.NewString("\xff")}),
		canonjson.NewObject(),
	}
	for _, o := range objs {
		p.PrintJSON("f\xfe", o, true)
	}
	want := `{"file":"f` + "\ufffd" + `","valid":"a longer first line"}` + "\n" +
		`{"file":"f` + "\ufffd" + `","v":true}` + "\n" +
		`{"file":"f` + "\ufffd" + `","long":"` + long + `"}` + "\n" +
		`{"file":"f` + "\ufffd" + `","bad":"` + "\ufffd" + `"}` + "\n" +
		`{"file":"f` + "\ufffd" + `"}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("printed %.300q\nwant %.300q", got, want)
	}
}

// A batch reads each file into the buffer of an earlier one and parses it
// into the tree memory of an earlier one: every report is the one
// verifyData gives the file's own bytes, whichever files came before
// (larger, smaller, unreadable, not JSON), still so once every later file
// went through the same buffers (each report is compared at the end), gated
// or not.
func TestReadBuffersReportLikeVerifyReport(t *testing.T) {
	signed, subject := signedExample(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	tampered := write("tampered.json", strings.Replace(string(data), `"sig": "`, `"sig": "AAAA`, 1))
	paths := []string{signed, write("small.json", `[1]`), signed, write("text.json", "not json"), tampered, filepath.Join(dir, "missing.json"), signed, tampered}
	outcomes := []string{OutcomeValid, OutcomeInvalid, OutcomeValid, OutcomeInputInvalid, OutcomeInvalid, OutcomeInputInvalid, OutcomeValid, OutcomeInvalid}
	passed := []string{OutcomePassed, OutcomeInputInvalid, OutcomePassed, OutcomeInputInvalid, OutcomeInvalid, OutcomeInputInvalid, OutcomePassed, OutcomeInvalid}
	open, err := attest.NewVerifier(attest.VerifierOptions{EvaluatedAt: attesttest.EvaluatedAt, NoPolicyUnsafe: true})
	if err != nil {
		t.Fatal(err)
	}
	pol := trustOne(attest.Options{})
	g := GateOf(attest.Gate{}).WithImage("reg.example/x:1", subject)
	gated, err := attest.NewVerifier(attest.VerifierOptions{Policy: pol.Loaded, EvaluatedAt: attesttest.EvaluatedAt, Gate: g.g})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		s        *session
		outcomes []string
	}{{"no policy", &session{v: open}, outcomes}, {"gated", &session{v: gated, gate: g, policy: pol}, passed}} {
		var reads readBuffers
		var got, want []Report
		for _, p := range paths {
			if data, err := canonjson.ReadFileBytes(p); err != nil {
				want = append(want, InputInvalidReport(p, err))
			} else {
				want = append(want, c.s.verifyData(p, data))
			}
			got = append(got, reads.verifyReport(p, c.s))
		}
		for i, p := range paths {
			if got[i].Outcome != c.outcomes[i] {
				t.Errorf("%s: file %d (%s): %s, want %s", c.name, i, filepath.Base(p), got[i].Outcome, c.outcomes[i])
			}
			gj, wj := compactString(got[i].Obj), compactString(want[i].Obj)
			if got[i].Code != want[i].Code || got[i].Outcome != want[i].Outcome || !slices.Equal(got[i].Text, want[i].Text) || gj != wj || gj == "" {
				t.Errorf("%s: file %d (%s): %d %s %q %s\nwant %d %s %q %s", c.name, i, filepath.Base(p), got[i].Code, got[i].Outcome, got[i].Text, gj, want[i].Code, want[i].Outcome, want[i].Text, wj)
			}
		}
	}
}

// A batch printed as JSON or markdown does not build the lines of --format
// text (session.noText): every other part of each report is the one a text
// batch gets, gated or not, valid, failing its gate or invalid.
func TestNoTextReportsAreTheSameOtherwise(t *testing.T) {
	path, subject := signedExample(t)
	opts := attest.Options{EvaluatedAt: attesttest.EvaluatedAt}
	pol := trustOne(opts)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(data, []byte(`"3.4.1"`), []byte(`"3.4.2"`), 1)
	other := "sha256:" + strings.Repeat("0", 64)
	for _, g := range []Gate{{}, GateOf(attest.Gate{}).WithImage("reg.example/x:1", subject), GateOf(attest.Gate{}).WithImage("reg.example/x:1", other)} {
		o := attest.VerifierOptions{Policy: pol.Loaded, EvaluatedAt: opts.EvaluatedAt, Gate: g.g}
		if !g.Active() {
			o = attest.VerifierOptions{EvaluatedAt: opts.EvaluatedAt, NoPolicyUnsafe: true}
		}
		v, err := attest.NewVerifier(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range [][]byte{data, tampered} {
			text := (&session{v: v, gate: g, policy: pol}).verifyData(path, in)
			noText := (&session{v: v, gate: g, policy: pol, noText: true}).verifyData(path, in)
			if len(text.Text) < 2 || noText.Text != nil {
				t.Errorf("gate %v: text lines %q; without text %q, want none", g.Active(), text.Text, noText.Text)
			}
			tj, nj := compactString(text.Obj), compactString(noText.Obj)
			if tj != nj || text.Code != noText.Code || text.Outcome != noText.Outcome || text.Level != noText.Level ||
				text.Class != noText.Class || text.Detail != noText.Detail || !slices.Equal(text.Diags, noText.Diags) || !slices.Equal(text.Hints, noText.Hints) {
				t.Errorf("gate %v: reports differ:\n%d %s %s %s %q %q %s\n%d %s %s %s %q %q %s", g.Active(),
					text.Code, text.Outcome, text.Level, text.Class, text.Detail, text.Diags, tj,
					noText.Code, noText.Outcome, noText.Level, noText.Class, noText.Detail, noText.Diags, nj)
			}
		}
	}
}
