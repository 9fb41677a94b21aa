package validator_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/validatortest"
)

var reread = validatortest.Reread

func canonicalBytes(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNonBMPStrings seals a bundle whose string values hold characters
// beyond U+FFFF (surrogate pairs in UTF-16): it validates, and its
// canonical bytes carry them as raw UTF-8 (REFERENCE §1.2), whether the
// input spelled them raw or as escaped surrogate pairs.
func TestNonBMPStrings(t *testing.T) {
	const (
		name     = "ledger-notes-server 📒"
		stopRule = "one bounded trial 🎲 for the single deterministic seed 𝄞"
		producer = "mcpres-harness 🧪"
	)
	v := bundletest.Example(t)
	put(t, v, pSubject+"/name", canonjson.NewString(name))
	put(t, v, pTrials+"/stopRule", canonjson.NewString(stopRule))
	put(t, v, pObsWire+"/producer/name", canonjson.NewString(producer))
	if err := bundle.Seal(v); err != nil {
		t.Fatal(err)
	}
	if got := at(t, v, pStatement+"/subjectName").Str; got != name {
		t.Errorf("statement.subjectName = %q, want the mirror %q", got, name)
	}
	canon := canonicalBytes(t, v)
	for _, s := range []string{name, stopRule, producer} {
		if !bytes.Contains(canon, []byte(s)) {
			t.Errorf("canonical bytes lack the raw UTF-8 of %q", s)
		}
	}
	if i := bytes.Index(bytes.ToLower(canon), []byte(`\ud8`)); i >= 0 {
		t.Errorf("canonical bytes escape a surrogate: …%s…", canon[i:i+12])
	}

	val := validator.New()
	r, err := val.Bundle(v)
	checkResult(t, r, err, nil, nil, "")

	// The same bundle written with escaped surrogate pairs reads back to
	// the same canonical bytes and validates.
	text, err := canonjson.Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	escaped := strings.NewReplacer(
		"📒", `\ud83d\udcd2`, "🎲", `\uD83C\uDFB2`, "𝄞", `\ud834\udd1e`, "🧪", `\ud83e\uddea`,
	).Replace(string(text))
	if escaped == string(text) {
		t.Fatal("no character was escaped")
	}
	doc, err := canonjson.Parse([]byte(escaped))
	if err != nil {
		t.Fatalf("escaped surrogate pairs are rejected: %v", err)
	}
	if !bytes.Equal(canonicalBytes(t, doc), canon) {
		t.Error("escaped input has different canonical bytes")
	}
	r, err = val.Bundle(doc)
	checkResult(t, r, err, nil, nil, "")
}

// TestLargeParentChain validates Large bundles at the reader's node limit:
// one parent chain of MaxLargeOps operations, and the same chain closed
// into cycles. The cycle check must be linear (REFERENCE §5.1 step c);
// BenchmarkValidate/limit measures it.
func TestLargeParentChain(t *testing.T) {
	n := bundletest.MaxLargeOps
	lastID := func(v *canonjson.Value) string {
		ops := at(t, v, pOps).Items
		return ops[len(ops)-1].Get("operationId").Str
	}
	midID := func(v *canonjson.Value) string {
		ops := at(t, v, pOps).Items
		return ops[len(ops)/2].Get("operationId").Str
	}
	for _, c := range []struct {
		name   string
		parent func(*canonjson.Value) string // new parent of the chain's root; nil keeps it null
		want   []string
	}{
		{"chain", nil, nil},
		{"root points at the last operation", lastID, one(cCycle)},
		{"root points at the middle operation", midID, one(cCycle)},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := bundletest.Large(t, n)
			if c.parent != nil {
				put(t, v, pOpClean+"/parentOperationId", canonjson.NewString(c.parent(v)))
				if err := bundle.Seal(v); err != nil {
					t.Fatal(err)
				}
			}
			if got := len(at(t, v, pOps).Items); got != n {
				t.Fatalf("%d operations, want %d", got, n)
			}
			r, err := validator.New().Bundle(reread(t, v))
			checkResult(t, r, err, c.want, nil, "")
		})
	}
}

// Bundle encodes evidence once for several digests; a value with no
// canonical form (possible only in values built in code: the strict reader
// rejects them) must still fail at the step that digests it, or leave an
// earlier step to decide, exactly as digesting each part on its own does.
func TestUncanonicalValueFailsAtItsStep(t *testing.T) {
	val := validator.New()
	tests := []struct {
		ptr  string
		code string // "" for an InputError
	}{
		{"/evidence/operations/1/parentOperationId", validator.CodeCausalMismatch}, // c decides before any digest of evidence
		{"/evidence/observations/0/operationRef", validator.CodeObservationCausalMismatch},
		{"/evidence/observations/0/producer/name", ""},                              // d: the observation's digest
		{"/evidence/scenario/descriptor/faults/0/id", ""},                           // a: the descriptor's digest
		{"/evidence/subject/name", ""},                                              // i: evidence's digest
		{"/integrity/artifacts/2/mediaType", validator.CodeObservationHashMismatch}, // d decides before i digests the manifest
		{"/integrity/artifacts/0/mediaType", ""},                                    // i: the manifest's digest
		{"/statement/subjectName", ""},                                              // i: the statement's digest
	}
	for _, tt := range tests {
		doc := bundletest.Example(t)
		s := at(t, doc, tt.ptr)
		if s.Kind != canonjson.String {
			t.Fatalf("%s is not a string", tt.ptr)
		}
		s.Str += "\xff" // invalid UTF-8: no canonical form
		r, err := val.Bundle(doc)
		switch {
		case tt.code == "" && (err == nil || !strings.Contains(err.Error(), "cannot canonicalize: "+canonjson.CodeInvalidUnicode)):
			t.Errorf("%s: Bundle = %v, %v; want a canonicalization InputError", tt.ptr, r.Diagnostics, err)
		case tt.code != "" && (err != nil || len(r.Diagnostics) != 1 || r.Diagnostics[0] != tt.code):
			t.Errorf("%s: Bundle = %v, %v; want %s", tt.ptr, r.Diagnostics, err, tt.code)
		}
	}
}
