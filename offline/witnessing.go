package offline

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/signednote"
)

// A Witnessing is what the witnesses of a trust gave the checkpoint of a
// proof, and whether that satisfies the trust's quorum: what a log's
// client says when it gets a reference (`log add --server`, `log proof`),
// and what `attest sign --require-quorum` requires, before any consumer
// verifies it.
type Witnessing struct {
	// Witnesses are the trust's witnesses, in the trust's order.
	Witnesses []string
	// Cosigned are the witnesses whose cosignature verified and counts
	// (Checkpoint.Witnesses of [Verify]), in signature order; Missing the
	// other witnesses of the trust, in the trust's order.
	Cosigned []signednote.CountedCosignature
	Missing  []string
	// NotCounted are verified cosignatures not counted because of their
	// time; Ignored counts signature lines by keys not in the trust.
	NotCounted []signednote.UncountedCosignature
	Ignored    int
	// Quorum is the trust's quorum rule ("none" when it requires no
	// cosignature); Unmet, when not nil, says why the cosignatures do not
	// satisfy it.
	Quorum string
	Unmet  *QuorumError
}

// Satisfied reports whether the cosignatures satisfy the quorum.
func (w *Witnessing) Satisfied() bool { return w.Unmet == nil }

// String is "cosigned by K of N: W1, W2; missing: W3", then the quorum's
// verdict: "quorum Q satisfied" or "quorum Q not satisfied: cosignatures:
// 1 of 2 required (W3 missing)".
func (w *Witnessing) String() string {
	names := make([]string, len(w.Cosigned))
	for i, c := range w.Cosigned {
		names[i] = c.Name
	}
	s := fmt.Sprintf("cosigned by %d of %d", len(w.Cosigned), len(w.Witnesses))
	if len(names) > 0 {
		s += ": " + strings.Join(names, ", ")
	}
	if len(w.Missing) > 0 {
		s += "; missing: " + strings.Join(w.Missing, ", ")
	}
	if len(w.NotCounted) > 0 {
		s += "; not counted: " + FormatNotCounted(w.NotCounted)
	}
	if w.Ignored > 0 {
		s += fmt.Sprintf("; %d signature(s) by keys not in the policy ignored", w.Ignored)
	}
	if w.Unmet != nil {
		return s + fmt.Sprintf("; quorum %s not satisfied: cosignatures: %d of %d required (%s missing)", w.Quorum, w.Unmet.Counted, w.Unmet.Required, strings.Join(w.Unmet.Missing, ", "))
	}
	return s + "; quorum " + w.Quorum + " satisfied"
}

// Witnessed verifies proofBytes as [Verify] does, except that an unmet
// quorum is not an error: it returns what the witnesses of trust gave the
// checkpoint, with the quorum's verdict in Unmet. Every other failure is
// Verify's error (an untrusted log, a proof that does not bind want, a
// cosignature by a witness key that does not verify).
//
// trust.EvaluatedAt is required (a *[TrustError] without it): a
// cosignature counts only under the time rule consumers verify with
// (signednote.JudgeCosignature), so one dated after the evaluation time
// (the caller's clock, when it writes or signs a reference) is in
// NotCounted and does not satisfy the quorum.
func Witnessed(proofBytes []byte, want Entry, trust Trust) (*Witnessing, error) {
	if trust.EvaluatedAt.IsZero() {
		return nil, &TrustError{Msg: "counting cosignatures toward a quorum needs an evaluation time"}
	}
	s, err := trust.check()
	if err != nil {
		return nil, err
	}
	counting := trust
	counting.Quorum = "none"
	v, err := Verify(proofBytes, want, counting)
	if err != nil {
		return nil, err
	}
	cp := v.Checkpoint
	w := &Witnessing{Cosigned: cp.Witnesses, NotCounted: cp.NotCounted, Ignored: cp.Ignored, Quorum: trust.Quorum}
	if w.Quorum == "" {
		w.Quorum = "none"
	}
	counted := map[string]bool{}
	for _, c := range cp.Witnesses {
		counted[c.Name] = true
	}
	for _, tw := range trust.Witnesses {
		w.Witnesses = append(w.Witnesses, tw.Name)
		if !counted[tw.Name] {
			w.Missing = append(w.Missing, tw.Name)
		}
	}
	if e := s.evaluate(counted); e != nil {
		e.Repeated, e.Ignored, e.NotCounted = cp.Repeated, cp.Ignored, cp.NotCounted
		w.Unmet = e
	}
	return w, nil
}

// CosignatureLines returns the signature lines of a tlog-proof's
// checkpoint that have the shape of a cosignature/v1 signature (a key
// hash, an 8-byte timestamp and a 64-byte signature), verifying nothing:
// without the witnesses' keys, what a reference carries is only their
// claim. A log's own Ed25519 signature is shorter and is not among them.
func CosignatureLines(proofBytes []byte) ([]signednote.SigLine, error) {
	p, err := ParseProof(proofBytes)
	if err != nil {
		return nil, err
	}
	var out []signednote.SigLine
	for _, l := range p.sigs {
		if len(l.Sig) == signednote.CosignatureSize {
			out = append(out, l)
		}
	}
	return out, nil
}

// FormatSigLines names signature lines "NAME+HASH", comma-separated.
func FormatSigLines(lines []signednote.SigLine) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = fmt.Sprintf("%s+%08x", l.Name, l.Hash)
	}
	return strings.Join(parts, ", ")
}
