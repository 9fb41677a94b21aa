package inspect_test

import (
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

// A transparency reference whose proof starts as a tlog-proof but does not
// parse as one (cut short) is reported as a problem naming the proof, never described as if it
// were there; the control, the proof whole, has no problem.
func TestReferenceProofProblems(t *testing.T) {
	lg := offlinetest.NewLog("example.org/inspect-log", "inspect")
	lg.Append([]byte("x"), []byte("y"))
	p := lg.Proof(1).Marshal()
	ref := func(proof []byte) []byte {
		t.Helper()
		data, err := attest.NewTransparencyReference(lg.Origin, "1", proof).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if d := describe(t, ref(p)); len(d.Problems) != 0 || d.Reference.Proof == nil {
		t.Fatalf("control: problems %q, proof %+v", d.Problems, d.Reference.Proof)
	}
	withProblem(t, ref(p[:len(p)-20]), "/inclusionProofBase64: the proof is not a strict tlog-proof: ")
	if d := describe(t, ref(p[:len(p)-20])); d.Reference.Proof != nil {
		t.Errorf("a proof cut short is described: %+v", d.Reference.Proof)
	}
}
