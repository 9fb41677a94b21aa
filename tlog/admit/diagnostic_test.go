package admit_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog/admit"
	"github.com/mcpres/mcpres/validator"
)

// AdmitBody refuses bytes the strict reader does not take (an input
// error, not a refusal of evidence) and invalid evidence (a *Refusal
// whose message names its diagnostics); the control admits the bytes of
// a valid bundle.
func TestAdmitBodyRefuses(t *testing.T) {
	a := admit.New()
	at := attesttest.EvaluatedAt
	var r *admit.Refusal
	for name, body := range map[string]string{"not JSON": "{", "a duplicate key": `{"a":1,"a":1}`, "trailing data": "{} {}"} {
		if got, err := a.AdmitBody([]byte(body), at); err == nil || got != nil || errors.As(err, &r) {
			t.Errorf("%s: %v, want an input error", name, err)
		}
	}
	b := bundletest.Example(t)
	bad := b.Clone()
	bad.Path("evidence", "run", "environment").Set("os", canonjson.NewString("tampered"))
	data, err := canonjson.Compact(bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.AdmitBody(data, at)
	if !errors.As(err, &r) || !strings.HasPrefix(err.Error(), "refusing to log invalid evidence: "+r.Result.Diagnostics[0]) {
		t.Errorf("invalid evidence: %v", err)
	}
	data, _ = canonjson.Compact(b)
	if got, err := a.AdmitBody(data, at); err != nil || len(got.Entry) == 0 {
		t.Errorf("control: %v", err)
	}
}

// Diagnostic is, for a refused bundle, its validation result; for a
// refused attested bundle, the attestation result; for anything else the
// MCP_RES_INPUT_INVALID object. DiagnosticJSON is one line of valid UTF-8
// even when the error quotes bytes that are not.
func TestDiagnostic(t *testing.T) {
	a := admit.New()
	at := attesttest.EvaluatedAt
	b := bundletest.Example(t)
	bad := b.Clone()
	bad.Path("evidence", "run", "environment").Set("os", canonjson.NewString("tampered"))
	_, err := a.Admit(bad, at)
	d := admit.Diagnostic(err)
	if d.Get("valid") == nil || d.Get("valid").Bool || d.Get("authenticity") != nil {
		t.Errorf("a refused bundle: %v", d)
	}

	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	w := s.Attested
	w.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0].Set("sig", canonjson.NewString(strings.Repeat("A", 86)+"=="))
	_, err = a.Admit(w, at)
	var r *admit.Refusal
	if !errors.As(err, &r) || r.Result.Attestation == nil {
		t.Fatalf("a refused attested bundle: %v", err)
	}
	d = admit.Diagnostic(err)
	if want, _ := canonjson.Compact(r.Result.Attestation.Value()); !bytes.Equal(append(want, '\n'), admit.DiagnosticJSON(err)) {
		t.Errorf("a refused attested bundle's diagnostic is not its attestation result: %v", d)
	}

	in := &validator.InputError{Reason: "not JSON: \xff\xfe"}
	line := admit.DiagnosticJSON(in)
	if !utf8.Valid(line) || bytes.Count(line, []byte("\n")) != 1 || !bytes.Contains(line, []byte(validator.CodeInputInvalid)) {
		t.Errorf("an input error: %q", line)
	}
	if !bytes.Contains(admit.DiagnosticJSON(errors.New("plain")), []byte(validator.CodeInputInvalid)) {
		t.Error("another error is not MCP_RES_INPUT_INVALID")
	}
}

// Cost is non-decreasing from 0 (a negative size costs what an empty body
// does) and reaches its bound on the parse tree.
func TestCostShape(t *testing.T) {
	if admit.Cost(-5) != admit.Cost(0) || admit.Cost(0) <= 0 {
		t.Errorf("Cost(-5) %d, Cost(0) %d", admit.Cost(-5), admit.Cost(0))
	}
	prev := admit.Cost(0)
	for _, n := range []int64{1, 1 << 10, 1 << 20, 1 << 22, 16 << 20} {
		c := admit.Cost(n)
		if c < prev {
			t.Errorf("Cost(%d) = %d < %d", n, c, prev)
		}
		prev = c
	}
	if got := admit.Cost(16 << 20); got != 80*(1<<20)+256<<10 {
		t.Errorf("Cost(16 MiB) = %d, want 80.25 MiB", got)
	}
}
