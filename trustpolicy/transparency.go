package trustpolicy

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/offline"
)

// Trust converts the tlog policy into what package offline verifies
// against: each log with its key name as its checkpoint origin (C2SP
// tlog-checkpoint: the key name is the origin), each witness under its
// policy name, the groups and the quorum.
func (t *TLogPolicy) Trust() offline.Trust {
	var tr offline.Trust
	for _, l := range t.Logs {
		tr.Logs = append(tr.Logs, offline.Log{Origin: l.Key.Name(), Key: l.Key})
	}
	for _, w := range t.Witnesses {
		tr.Witnesses = append(tr.Witnesses, offline.Witness{Name: w.Name, Key: w.Key})
	}
	for _, g := range t.Groups {
		tr.Groups = append(tr.Groups, offline.Group{Name: g.Name, Threshold: g.Threshold, Members: g.Members})
	}
	tr.Quorum = t.Quorum
	return tr
}

// WithKindVerifiers returns a copy of p that also verifies the proof kinds
// of kinds (see [OpenOptions].KindVerifiers).
func (p *Policy) WithKindVerifiers(kinds ...offline.KindVerifier) *Policy {
	c := *p
	c.kinds = map[offline.Kind]offline.KindVerifier{}
	for k, v := range p.kinds {
		c.kinds[k] = v
	}
	for _, v := range kinds {
		c.kinds[v.Kind()] = v
	}
	return &c
}

// TrustAt is what package offline verifies a reference against at the
// evaluation time at: the tlog policy's logs, witnesses and quorum, the
// policy's maxCosignatureAgeSeconds, and at itself, so that a cosignature
// dated after at, or older than the maximum age, is not counted. ok is
// false when the policy has no transparency section.
func (p *Policy) TrustAt(at time.Time) (trust offline.Trust, ok bool) {
	if p.trust == nil {
		return offline.Trust{}, false
	}
	trust = *p.trust
	trust.EvaluatedAt = at // cosignatures dated later do not count
	return trust, true
}

// verifyReference verifies an envelope's transparency reference offline
// against the tlog policy. It returns the verified proof, or an error, or
// (nil, nil) for a proof kind this binary has no verifier for (a Rekor v1
// entry in mcpres).
func (p *Policy) verifyReference(f *attest.EnvelopeFacts, proof []byte) (*offline.Verified, error) {
	want := offline.Entry{
		SchemaVersion:           offline.SchemaVersionEntry,
		Subject:                 offline.EntrySubject{Name: f.SubjectName, Sha256: f.SubjectDigest},
		EvidenceBundleDigest:    f.EvidenceBundleDigest,
		ScenarioFingerprint:     f.ScenarioFingerprint,
		ExecutionInstanceDigest: f.ExecutionInstanceDigest,
	}
	kind := offline.DetectKind(proof)
	trust, _ := p.TrustAt(f.EvaluatedAt)
	var v *offline.Verified
	var err error
	switch kv, ok := p.kinds[kind]; {
	case ok:
		v, err = kv.Verify(proof, want, trust)
	case kind == offline.KindRekorV1:
		return nil, nil
	default: // a tlog-proof, or opaque bytes that ParseProof rejects
		v, err = offline.VerifyClaimed(proof, want, offline.Claim{LogID: f.Transparency.LogID, EntryUUID: f.Transparency.EntryUUID}, trust)
	}
	if err != nil {
		return nil, err
	}
	if err := v.MatchesReference(f.Transparency.LogID, f.Transparency.EntryUUID); err != nil {
		return nil, err
	}
	return v, nil
}

// verifiedTransparency is what attest records of a verified reference.
func verifiedTransparency(v *offline.Verified) *attest.VerifiedTransparency {
	cp := &v.Checkpoint
	return &attest.VerifiedTransparency{Kind: v.Kind.String(), Origin: cp.Origin, TreeSize: cp.Size, LeafIndex: v.Index, LogKey: cp.LogKey,
		Witnesses: cp.Witnesses, Quorum: cp.Quorum, NotCounted: cp.NotCounted}
}

// describe is the note of one verified reference.
func describe(i int, v *attest.VerifiedTransparency) string {
	s := fmt.Sprintf("envelope %d: %s leaf %d of %q (tree size %d, log key %s)", i, v.Kind, v.LeafIndex, v.Origin, v.TreeSize, v.LogKey)
	var ws []string
	for _, c := range v.Witnesses {
		ws = append(ws, c.Name+" "+c.Fingerprint)
	}
	if len(ws) == 0 {
		ws = []string{"none"}
	}
	s += fmt.Sprintf(", cosigned by %s, quorum %s", strings.Join(ws, ", "), v.Quorum)
	if len(v.NotCounted) > 0 {
		s += ", not counted: " + offline.FormatNotCounted(v.NotCounted)
	}
	return s
}

// transparencyNote explains the transparency part of the derivation and
// reports whether at least one reference was verified offline. It
// describes what [Policy.Transparency] verified, as Verify recorded it in
// the evaluation.
func (p *Policy) transparencyNote(evs []attest.EnvelopeEvaluation) (string, bool) {
	digestOnly, verified := 0, 0
	var what []string
	for i := range evs {
		switch evs[i].Transparency {
		case attest.TransparencyDigestOnly:
			digestOnly++
			if p.tlog != nil {
				what = append(what, fmt.Sprintf("envelope %d: a %s, which this program does not verify (mcpres-sigstore does): DIGEST_ONLY", i, offline.KindRekorV1))
			}
		case attest.TransparencyVerifiedOffline:
			verified++
			if evs[i].Verified != nil {
				what = append(what, describe(i, evs[i].Verified))
			}
		}
	}
	if p.tlog == nil {
		return fmt.Sprintf("transparency: the policy has no transparency section, so a reference is only digest-checked (%d DIGEST_ONLY) and TRANSPARENCY_RECORDED is not derivable", digestOnly), false
	}
	note := fmt.Sprintf("transparency: %d of %d envelopes' references verified offline against the policy's tlog policy", verified, len(evs))
	if len(what) > 0 {
		note += " (" + strings.Join(what, "; ") + ")"
	}
	return note, verified > 0
}
