package verifycmd

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// BenchmarkVerifyReport is one file of a batch's work past reading it: the
// witnessed bundle of the batch benchmark (cmd/mcpres
// BenchmarkBatchVerify1000, go run ./bench --only batch) parsed, verified
// against its policy at WITNESSED, gated and rendered as a JSON line, with
// no file or process around it. "arena" parses as a batch's worker does,
// into the tree memory of the file before; "fresh" parses each file anew.
func BenchmarkVerifyReport(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "testdata", "attestation")
	data, err := os.ReadFile(filepath.Join(dir, "witnessed.json"))
	if err != nil {
		b.Fatal(err)
	}
	val := validator.New()
	pol := ReadPolicyOnce(filepath.Join(dir, "witnessed.trust-policy.json"), trustpolicy.OpenOptions{Validator: val})
	g := GateOf(attest.Gate{MinLevel: attest.Witnessed, NoSubjectUnsafe: true})
	v, err := attest.NewVerifier(attest.VerifierOptions{Policy: pol.Loaded, EvaluatedAt: "2026-08-27T18:05:00.000Z", Validator: val, Gate: g.g})
	if err != nil {
		b.Fatal(err)
	}
	s := &session{v: v, gate: g, policy: pol, noText: true}
	p := &Printer{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}
	for _, arena := range []bool{true, false} {
		name := "fresh"
		if arena {
			name = "arena"
		}
		b.Run(name, func(b *testing.B) {
			var a canonjson.Arena
			b.ReportAllocs()
			for b.Loop() {
				var rep Report
				if arena {
					rep = s.verifyWith("witnessed.json", data, nil, &a)
					rep.Obj = a.Keep(rep.Obj)
					a.Reset()
				} else {
					rep = s.verifyData("witnessed.json", data)
				}
				if rep.Outcome != OutcomePassed {
					b.Fatal(rep.Outcome, rep.Detail)
				}
				p.Render(rep, "json", true, false)
			}
		})
	}
}
