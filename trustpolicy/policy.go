package trustpolicy

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/offline"
)

// A Policy is a loaded mcpres.trust-policy/v1: immutable, safe for
// concurrent use, and an attest.TrustPolicy. Get one from [Load] or
// [Open].
type Policy struct {
	doc         *Document
	from, until datetime.Instant
	signers     []signerInfo
	byKey       map[string]int // SPKI fingerprint → index in signers
	revoked     map[string]int // SPKI fingerprint → index in doc.Revocations
	members     map[string]bool
	tlog        *TLogPolicy
	trust       *offline.Trust // tlog.Trust(), checked at load
	kinds       map[offline.Kind]offline.KindVerifier
}

type signerInfo struct {
	*Signer
	index             int
	fp                string
	hasFrom, hasUntil bool
	from, until       datetime.Instant
	// scopes are the parsed Subjects; nil: every subject.
	scopes []Scope
}

// trustedFor reports whether the signer may vouch for the subject name.
func (s *signerInfo) trustedFor(name string) bool {
	return s.scopes == nil || matchAny(s.scopes, name)
}

var _ attest.TrustPolicy = (*Policy)(nil)

// newPolicy builds a Policy from a document that passed every check.
func newPolicy(d *Document, c *checker) (*Policy, []Problem) {
	p := &Policy{doc: d, byKey: map[string]int{}, revoked: map[string]int{}, members: map[string]bool{}, tlog: c.tlog}
	var err error
	if p.from, err = datetime.Parse(d.ValidFrom); err != nil {
		return nil, []Problem{{"/validFrom", "format", err.Error()}}
	}
	if p.until, err = datetime.Parse(d.ValidUntil); err != nil {
		return nil, []Problem{{"/validUntil", "format", err.Error()}}
	}
	for i := range d.Signers {
		s := &d.Signers[i]
		si := signerInfo{Signer: s, index: i}
		if !s.IsIdentity() {
			// An identity signer has no key: it trusts no envelope by key
			// (identity verification is not implemented yet).
			si.fp = fingerprint(c.keys[i])
		}
		if s.Subjects != nil {
			si.scopes = c.scopes[i]
		}
		if s.ValidFrom != "" {
			si.hasFrom = true
			if si.from, err = datetime.Parse(s.ValidFrom); err != nil {
				return nil, []Problem{{fmt.Sprintf("/signers/%d/validFrom", i), "format", err.Error()}}
			}
		}
		if s.ValidUntil != "" {
			si.hasUntil = true
			if si.until, err = datetime.Parse(s.ValidUntil); err != nil {
				return nil, []Problem{{fmt.Sprintf("/signers/%d/validUntil", i), "format", err.Error()}}
			}
		}
		if si.fp != "" {
			p.byKey[si.fp] = i
		}
		p.signers = append(p.signers, si)
	}
	for i, r := range d.Revocations {
		p.revoked[r.Fingerprint] = i
	}
	if d.Witnesses != nil {
		for _, m := range d.Witnesses.Members {
			p.members[m] = true
		}
	}
	if p.tlog != nil {
		tr := p.tlog.Trust()
		if err := tr.Check(); err != nil {
			// ParseTLogPolicy rejects everything Check does: a bug.
			return nil, []Problem{{"/transparency/tlogPolicy", "tlogPolicy", err.Error()}}
		}
		// Applied with the evaluation time of each verification
		// (verifyReference).
		tr.MaxCosignatureAge = time.Duration(d.Transparency.MaxCosignatureAgeSeconds) * time.Second
		p.trust = &tr
	}
	return p, nil
}

// Document returns a copy of the policy document.
func (p *Policy) Document() *Document { return p.doc.Clone() }

// TLogPolicy returns the parsed transparency.tlogPolicy, or nil when the
// policy has no transparency section.
func (p *Policy) TLogPolicy() *TLogPolicy { return p.tlog }

// ID returns the policy id.
func (p *Policy) ID() string { return p.doc.ID }

// Version returns the policy version, a decimal integer.
func (p *Policy) Version() string { return strconv.FormatInt(p.doc.Version, 10) }

// InForce is step G6: the policy window validFrom ≤ at ≤ validUntil is
// inclusive; outside it the result is MCP_RES_TRUST_POLICY_EXPIRED. Times
// are compared at microsecond precision (a finer at is truncated, as
// REFERENCE §1.7 truncates fraction digits); atText is at as the caller
// wrote it, for the message.
func (p *Policy) InForce(atTime time.Time, atText string) *attest.Failure {
	at := datetime.FromTime(atTime)
	if at.Compare(p.from) < 0 || at.Compare(p.until) > 0 {
		return &attest.Failure{Code: attest.CodeTrustPolicyExpired, Detail: fmt.Sprintf("evaluation time %s is outside the policy window %s … %s", atText, p.doc.ValidFrom, p.doc.ValidUntil)}
	}
	return nil
}

// OutOfWindow says why the policy is not in force at the evaluation time
// at (atText as given), naming its window and that time, or "" when it is
// in force ([Policy.InForce] passes): "not in force yet: its window … starts
// after the evaluation time …" or "expired: its window … ended before the
// evaluation time …". Authoring and checking commands warn with it.
func (p *Policy) OutOfWindow(atTime time.Time, atText string) string {
	at := datetime.FromTime(atTime)
	switch {
	case at.Compare(p.from) < 0:
		return fmt.Sprintf("not in force yet: its window %s … %s starts after the evaluation time %s", p.doc.ValidFrom, p.doc.ValidUntil, atText)
	case at.Compare(p.until) > 0:
		return fmt.Sprintf("expired: its window %s … %s ended before the evaluation time %s", p.doc.ValidFrom, p.doc.ValidUntil, atText)
	}
	return ""
}

// Envelope is step E13, in this order:
//
//  1. the statement's trustPolicyId must be the policy id, else
//     MCP_RES_ATTESTATION_IDENTITY_MISMATCH;
//  2. its signingTime must lie in the policy window and not after the
//     evaluation time, else MCP_RES_TRUST_POLICY_EXPIRED;
//  3. a revoked key fails with MCP_RES_ATTESTATION_KEY_REVOKED at every
//     claimed level, SIGNED included. The revocation's revokedAt is
//     reported, never used to accept: the signing time is asserted by the
//     signer itself, so without a trusted time a revoked key always fails;
//  4. the envelope is trusted iff a signer has exactly this key (by SPKI
//     fingerprint), that signer's identity equals the envelope's
//     signerIdentity, the signer's own window, if it has one, covers
//     both the signing time and the evaluation time, and the signer's
//     subjects, if it has them, match the statement's subject name
//     ([Scope]: a key trusted for some subjects vouches for no other).
//     This is recorded in ev.Trusted; [Policy.Derive] explains untrusted
//     envelopes ("signer "release-a" is not trusted for subject …").
func (p *Policy) Envelope(f *attest.EnvelopeFacts, atTime time.Time, ev *attest.EnvelopeEvaluation) *attest.Failure {
	if f.TrustPolicyID != p.doc.ID {
		return &attest.Failure{Code: attest.CodeIdentityMismatch, Detail: fmt.Sprintf("signed for trust policy %q, evaluated with %q", f.TrustPolicyID, p.doc.ID)}
	}
	signed, at := datetime.FromTime(f.SigningTime), datetime.FromTime(atTime)
	if signed.Compare(p.from) < 0 || signed.Compare(p.until) > 0 || signed.Compare(at) > 0 {
		return &attest.Failure{Code: attest.CodeTrustPolicyExpired, Detail: fmt.Sprintf("signingTime %s is outside the policy window %s … %s or after the evaluation time", f.SigningTimeText, p.doc.ValidFrom, p.doc.ValidUntil)}
	}
	if i, ok := p.revoked[f.KeyID]; ok {
		ev.Revoked = true
		r := p.doc.Revocations[i]
		when := ""
		if r.RevokedAt != "" {
			when = ", revokedAt " + r.RevokedAt
		}
		return &attest.Failure{Code: attest.CodeKeyRevoked, Detail: fmt.Sprintf("key %s is revoked by the policy (reason %q%s); a revoked key fails at every level whatever the signing time, which the signer asserts itself", f.KeyID, r.Reason, when)}
	}
	ev.Trusted = p.untrusted(f, &at) == ""
	return nil
}

// untrusted returns why the envelope is not trusted, or "". Without the
// evaluation time (at == nil) a signer whose key and identity match is
// taken to be untrusted because of its window only when the signing time
// is outside it; Derive calls it only for envelopes Envelope found
// untrusted.
func (p *Policy) untrusted(f *attest.EnvelopeFacts, at *datetime.Instant) string {
	i, ok := p.byKey[f.KeyID]
	if !ok {
		return "key unknown"
	}
	s := &p.signers[i]
	if s.Identity != f.SignerIdentity {
		return "identity differs"
	}
	if !s.trustedFor(f.SubjectName) {
		return fmt.Sprintf("not trusted for subject %q", f.SubjectName)
	}
	if at == nil || !s.covers(datetime.FromTime(f.SigningTime)) || !s.covers(*at) {
		return "key window"
	}
	return ""
}

// covers reports whether t is inside the signer's own window (an absent
// bound is no bound).
func (s *signerInfo) covers(t datetime.Instant) bool {
	return (!s.hasFrom || t.Compare(s.from) >= 0) && (!s.hasUntil || t.Compare(s.until) <= 0)
}

func (s *signerInfo) window() string {
	from, until := s.ValidFrom, s.ValidUntil
	if from == "" {
		from = "(policy validFrom)"
	}
	if until == "" {
		until = "(policy validUntil)"
	}
	return from + " … " + until
}

// explain is the long form of an untrusted envelope's reason.
func (p *Policy) explain(f *attest.EnvelopeFacts) string {
	switch p.untrusted(f, nil) {
	case "key unknown":
		return fmt.Sprintf("key %s is not a signer of the policy", f.KeyID)
	case "identity differs":
		s := &p.signers[p.byKey[f.KeyID]]
		return fmt.Sprintf("identity %q differs from signer %q's %q", f.SignerIdentity, s.Name, s.Identity)
	}
	s := &p.signers[p.byKey[f.KeyID]]
	if !s.trustedFor(f.SubjectName) {
		return fmt.Sprintf("signer %q is not trusted for subject %q (its subjects: %s)", s.Name, f.SubjectName, strings.Join(s.Subjects, ", "))
	}
	if !s.covers(datetime.FromTime(f.SigningTime)) {
		return fmt.Sprintf("signingTime %s is outside signer %q's key window %s", f.SigningTimeText, s.Name, s.window())
	}
	return fmt.Sprintf("the evaluation time is outside signer %q's key window %s", s.Name, s.window())
}

// Transparency is step E14 after the digest check. Without a transparency
// section it keeps the digest-only meaning (DIGEST_ONLY, REFERENCE §6.10).
// With one, the reference is verified offline against the tlog policy
// (package offline: the entry binds this envelope's bundle, the RFC 6962
// inclusion proof, the log's signed checkpoint with its origin, the
// witness cosignatures counted by key against the quorum), and its logId
// and entryUuid must be the verified checkpoint origin and leaf index (a
// Rekor v1 entry: the log ID and the leaf hash). Any failure is
// MCP_RES_TRANSPARENCY_REFERENCE_INVALID naming the check; success sets
// VERIFIED_OFFLINE. Opaque proof bytes fail too: a policy with a
// transparency section asks for proofs it can verify. A Rekor v1 entry,
// when no verifier for it is linked (see [OpenOptions]), stays DIGEST_ONLY
// and [Policy.Derive] says why.
func (p *Policy) Transparency(f *attest.EnvelopeFacts, proof []byte) (*attest.VerifiedTransparency, *attest.Failure) {
	if p.trust == nil {
		return nil, nil
	}
	v, err := p.verifyReference(f, proof)
	if err != nil {
		return nil, &attest.Failure{Code: attest.CodeTransparencyInvalid, Detail: "transparency reference not verified offline: " + err.Error()}
	}
	if v == nil {
		return nil, nil
	}
	return verifiedTransparency(v), nil
}

// Derive is step G8's derivation:
//
//   - AllTrusted: every envelope is trusted (see [Policy.Envelope]);
//   - SIGNED_WITH_IDENTITY: AllTrusted and the first (primary) envelope's
//     signer has the signer role;
//   - WITNESSED: in addition, the witnesses rule is satisfied by envelopes
//     2..n: trusted signers with the witness role that are listed in
//     witnesses.members, counted by key fingerprint (never by name or
//     identity), and, with distinctIdentities, each with an identity
//     different from the primary's and from every other counted
//     witness's. The primary never counts toward its own quorum, even when
//     it is a witness member. Without a witnesses rule WITNESSED is not
//     derivable;
//   - TRANSPARENCY_RECORDED: the level below it is reached (WITNESSED when
//     the policy has a witnesses rule, else SIGNED_WITH_IDENTITY) and at
//     least one envelope's reference was verified offline
//     (VERIFIED_OFFLINE, see [Policy.Transparency]; the note describes
//     what it verified, from the evaluation, without verifying it again). A digest-only
//     reference is never enough, so without a transparency section it is
//     not derivable (and, unlike upstream, REFERENCE §10 row 34, one
//     signer with a reference never satisfies a WITNESSED claim).
//
// The notes give the counts and say why an envelope was not trusted or a
// witness not counted.
func (p *Policy) Derive(fs []attest.EnvelopeFacts, evs []attest.EnvelopeEvaluation) attest.Derivation {
	d := attest.Derivation{Level: attest.Signed, AllTrusted: len(fs) > 0 && len(fs) == len(evs)}
	n := min(len(fs), len(evs))
	trusted := 0
	var why []string
	for i := range n {
		if evs[i].Trusted {
			trusted++
			continue
		}
		d.AllTrusted = false
		why = append(why, fmt.Sprintf("envelope %d: %s", i, p.explain(&fs[i])))
	}
	note := fmt.Sprintf("trusted signers: %d of %d envelopes, by key fingerprint and identity (policy %s version %d)", trusted, len(evs), p.doc.ID, p.doc.Version)
	if len(why) > 0 {
		note += ": " + strings.Join(why, "; ")
	}
	d.Notes = append(d.Notes, note)
	witnessNote, witnessed := p.countWitnesses(fs[:n], evs[:n])
	if !d.AllTrusted {
		d.Notes = append(d.Notes, witnessNote)
		return d
	}
	primary := &p.signers[p.byKey[fs[0].KeyID]]
	if !primary.HasRole(RoleSigner) {
		d.Notes = append(d.Notes, fmt.Sprintf("primary signer %q (envelope 0) lacks the signer role: SIGNED_WITH_IDENTITY is not derivable", primary.Name))
		return d
	}
	d.Level = attest.SignedWithIdentity
	d.Notes = append(d.Notes, fmt.Sprintf("primary signer %q (envelope 0) has the signer role", primary.Name), witnessNote)
	if witnessed {
		d.Level = attest.Witnessed
	}
	note, verified := p.transparencyNote(evs[:n])
	below := attest.SignedWithIdentity
	if p.doc.Witnesses != nil {
		below = attest.Witnessed
	}
	switch {
	case verified && d.Level == below:
		d.Level = attest.TransparencyRecorded
		note += fmt.Sprintf("; %s reached, so TRANSPARENCY_RECORDED", below)
	case verified:
		note += fmt.Sprintf("; TRANSPARENCY_RECORDED also needs %s under this policy, which is not reached", below)
	case p.trust != nil:
		note += "; TRANSPARENCY_RECORDED needs one"
	}
	d.Notes = append(d.Notes, note)
	return d
}

// countWitnesses applies the witnesses rule to envelopes 1..n-1.
func (p *Policy) countWitnesses(fs []attest.EnvelopeFacts, evs []attest.EnvelopeEvaluation) (string, bool) {
	w := p.doc.Witnesses
	if w == nil {
		return "witnesses: the policy has no witnesses rule, so WITNESSED is not derivable", false
	}
	counted := map[string]bool{}      // key fingerprints
	identities := map[string]string{} // identity → who holds it
	var names, skipped []string
	if len(fs) > 0 {
		if i, ok := p.byKey[fs[0].KeyID]; ok && p.members[p.signers[i].Name] {
			skipped = append(skipped, p.signers[i].Name+": primary signer, never its own witness")
		}
		if w.DistinctIdentities {
			identities[fs[0].SignerIdentity] = "the primary signer's"
		}
	}
	for i := 1; i < len(fs); i++ {
		f := &fs[i]
		label := fmt.Sprintf("envelope %d", i)
		var s *signerInfo
		if j, ok := p.byKey[f.KeyID]; ok {
			s = &p.signers[j]
			label = s.Name
		}
		switch {
		case !evs[i].Trusted:
			skipped = append(skipped, label+": "+p.untrusted(f, nil))
		case !s.HasRole(RoleWitness) || !p.members[s.Name]:
			skipped = append(skipped, label+": not a witness member")
		case counted[f.KeyID]:
			skipped = append(skipped, label+": key already counted")
		case w.DistinctIdentities && identities[f.SignerIdentity] != "":
			skipped = append(skipped, fmt.Sprintf("%s: identity %q is %s", label, f.SignerIdentity, identities[f.SignerIdentity]))
		default:
			counted[f.KeyID] = true
			identities[f.SignerIdentity] = s.Name + "'s"
			names = append(names, s.Name)
		}
	}
	note := fmt.Sprintf("witnesses: %d of %d required, counted by key fingerprint", len(counted), w.Quorum)
	if w.DistinctIdentities {
		note += " with distinct identities"
	}
	if len(skipped) > 0 {
		note += " (" + strings.Join(skipped, "; ") + ")"
	}
	if len(names) > 0 {
		note += "; counted: " + strings.Join(names, ", ")
	}
	return note, int64(len(counted)) >= w.Quorum
}
