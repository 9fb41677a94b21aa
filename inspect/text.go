package inspect

import (
	"fmt"
	"strings"
)

// NotVerified is the line that heads every text description: what it
// shows is the input's claim.
const NotVerified = "nothing was verified: every value is what the input says (attest verify and a trust policy judge it)"

// Text returns d for people, one line each, indented by depth: the kind,
// then what it contains.
func (d *Description) Text() []string {
	w := &lines{}
	kind := d.Kind
	if d.DocumentSchemaVersion != "" {
		kind += " (" + d.DocumentSchemaVersion + ")"
	}
	w.add(0, "%s", kind)
	w.add(1, "%s", NotVerified)
	if d.Bundle != nil {
		d.Bundle.text(w, 1)
	}
	if a := d.Attestation; a != nil {
		w.add(1, "claimed classification: %s", a.ClaimedClassification)
		w.add(1, "envelopes: %d", len(a.Envelopes))
		for _, e := range a.Envelopes {
			e.text(w, 2)
		}
	}
	if d.Reference != nil {
		d.Reference.text(w, 1)
	}
	if d.Proof != nil {
		d.Proof.text(w, 1)
	}
	if d.Checkpoint != nil {
		d.Checkpoint.text(w, 1)
	}
	if d.Sigstore != nil {
		d.Sigstore.text(w, 1)
	}
	if d.Policy != nil {
		d.Policy.text(w, 1)
	}
	if d.TLogPolicy != nil {
		d.TLogPolicy.text(w, 1)
	}
	for _, p := range d.Problems {
		w.add(1, "problem: %s", p)
	}
	return w.out
}

type lines struct{ out []string }

func (w *lines) add(depth int, format string, args ...any) {
	w.out = append(w.out, strings.Repeat("  ", depth)+fmt.Sprintf(format, args...))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (b *Bundle) text(w *lines, depth int) {
	s := b.Subject
	w.add(depth, "subject: %s %q version %q, %s", orDash(s.Type), s.Name, s.Version, orDash(s.Digest))
	w.add(depth, "profile %s, evidence class %s, result %s", orDash(b.Profile), orDash(b.EvidenceClass), orDash(b.Result))
	w.add(depth, "scenario fingerprint %s", orDash(b.ScenarioFingerprint))
	w.add(depth, "execution instance digest %s", orDash(b.ExecutionInstanceDigest))
	w.add(depth, "bundle digest %s", orDash(b.BundleDigest))
	w.add(depth, "validator %s", orDash(b.Validator))
}

func (e *Envelope) text(w *lines, depth int) {
	w.add(depth, "envelope %d: key %s, identity %q, %s, payload type %s", e.Index, orDash(e.KeyFingerprint), e.SignerIdentity, orDash(e.Algorithm), orDash(e.PayloadType))
	if e.KeyID != e.KeyFingerprint {
		w.add(depth+1, "keyid as written: %s (not the SHA-256 of the embedded key)", orDash(e.KeyID))
	}
	s := e.Statement
	if s == nil {
		w.add(depth+1, "statement: not readable")
		return
	}
	w.add(depth+1, "statement %s, predicate %s", orDash(s.Type), orDash(s.PredicateType))
	w.add(depth+1, "subject %q %s", s.SubjectName, orDash(s.SubjectDigest))
	w.add(depth+1, "signed by %q with key %s at %s for trust policy %q", s.SignerIdentity, orDash(s.SignerKeyFingerprint), orDash(s.SigningTime), s.TrustPolicyID)
	w.add(depth+1, "evidence bundle digest %s", orDash(s.EvidenceBundleDigest))
	if r := s.TransparencyReference; r != nil {
		r.text(w, depth+1)
	} else {
		w.add(depth+1, "transparency reference: none")
	}
}

func (r *Reference) text(w *lines, depth int) {
	w.add(depth, "transparency reference: log %s, entry %s, proof %s (sha256 %s)", orDash(r.LogID), orDash(r.EntryUUID), r.ProofKind, orDash(r.ProofSha256))
	if r.Proof != nil {
		r.Proof.text(w, depth+1)
	}
}

func (p *Proof) text(w *lines, depth int) {
	w.add(depth, "tlog-proof: leaf index %d, %d inclusion hash(es)", p.Index, p.InclusionHashes)
	if e := p.Entry; e != nil {
		w.add(depth+1, "entry: subject %q %s, evidence bundle digest %s", e.SubjectName, orDash(e.SubjectDigest), orDash(e.EvidenceBundleDigest))
	} else {
		w.add(depth+1, "entry: not an mcpres.transparency-entry/v1")
	}
	p.Checkpoint.text(w, depth+1)
}

func (c *Checkpoint) text(w *lines, depth int) {
	w.add(depth, "checkpoint: origin %s, tree size %d, root hash %s", c.Origin, c.Size, c.RootHash)
	cosigs := 0
	for _, s := range c.Signatures {
		if s.Kind == "cosignature/v1" {
			cosigs++
		}
	}
	w.add(depth+1, "%d signature line(s), %d of them cosignature(s)", len(c.Signatures), cosigs)
	for _, s := range c.Signatures {
		switch s.Kind {
		case "cosignature/v1":
			when := s.Timestamp
			if when == "" {
				when = fmt.Sprintf("%d (not a time)", s.TimestampUnix)
			}
			w.add(depth+1, "cosignature by %s (key hash %s) at %s", s.Name, s.KeyHash, when)
		case "ed25519":
			w.add(depth+1, "signature by %s (key hash %s): Ed25519", s.Name, s.KeyHash)
		default:
			w.add(depth+1, "signature by %s (key hash %s): another kind", s.Name, s.KeyHash)
		}
	}
}

func (p *Policy) text(w *lines, depth int) {
	w.add(depth, "trust policy %q version %s, %s, valid %s … %s", p.ID, orDash(p.Version), p.Format, p.ValidFrom, p.ValidUntil)
	w.add(depth, "signers: %d", len(p.Signers))
	for _, s := range p.Signers {
		name := ""
		if s.Name != "" {
			name = fmt.Sprintf("%q ", s.Name)
		}
		line := fmt.Sprintf("%sidentity %q key %s", name, s.Identity, orDash(s.KeyFingerprint))
		if ci := s.CertificateIdentity; ci != nil {
			line = fmt.Sprintf("%skeyless: certificate %s", name, ci)
			if ci.Extensions != nil {
				line += ", extensions " + ci.Extensions.String()
			}
		}
		if len(s.Roles) > 0 {
			line += ", roles " + strings.Join(s.Roles, ",")
		}
		if s.ValidFrom != "" || s.ValidUntil != "" {
			line += fmt.Sprintf(", own window %s … %s", orDash(s.ValidFrom), orDash(s.ValidUntil))
		}
		if s.Subjects != nil {
			line += ", subjects " + strings.Join(s.Subjects, ", ")
		} else if p.Format != "" && strings.HasPrefix(p.Format, "mcpres.") {
			line += ", every subject"
		}
		w.add(depth+1, "%s", line)
	}
	w.add(depth, "revocations: %d", len(p.Revocations))
	for _, r := range p.Revocations {
		line := r.Fingerprint
		if r.Reason != "" {
			line += fmt.Sprintf(" (%s)", r.Reason)
		}
		if r.RevokedAt != "" {
			line += ", revoked at " + r.RevokedAt
		}
		w.add(depth+1, "%s", line)
	}
	if x := p.Witnesses; x != nil {
		w.add(depth, "witnesses: quorum %d of [%s], distinct identities %t", x.Quorum, strings.Join(x.Members, ", "), x.DistinctIdentities)
	}
	if t := p.Transparency; t != nil {
		w.add(depth, "transparency:")
		t.text(w, depth+1)
		if p.MaxCosignatureAgeSeconds > 0 {
			w.add(depth+1, "cosignatures count for at most %d s", p.MaxCosignatureAgeSeconds)
		}
	}
	if p.TrustedRootSHA256 != "" {
		w.add(depth, "trusted root (identity signers): trusted_root.json with SHA-256 %s", p.TrustedRootSHA256)
	}
}

func (t *TLogPolicy) text(w *lines, depth int) {
	for _, l := range t.Logs {
		w.add(depth, "log %s (key %s)%s", l.Name, l.Key, urlText(l.URL))
	}
	for _, x := range t.Witnesses {
		w.add(depth, "witness %s (key %s)%s", x.Name, x.Key, urlText(x.URL))
	}
	for _, g := range t.Groups {
		w.add(depth, "group %s: %d of %s", g.Name, g.Threshold, strings.Join(g.Members, ", "))
	}
	w.add(depth, "quorum %s", t.Quorum)
}

func urlText(u string) string {
	if u == "" {
		return ""
	}
	return " at " + u
}
