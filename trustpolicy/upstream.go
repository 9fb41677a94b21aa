package trustpolicy

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// loadUpstream loads mcp-res.trust-policy/0.2.0 (moved here from package
// attest: every policy format opens here, [Open]). It is also used for
// documents of unknown kind, which then fail its schema.
func loadUpstream(doc *canonjson.Value, val *validator.Validator) (attest.TrustPolicy, []schema.Error, error) {
	if errs := val.SchemaErrors(schema.TrustPolicy, doc); len(errs) > 0 {
		return nil, errs, nil
	}
	var p policy02
	if err := canonjson.Unmarshal(doc, &p); err != nil {
		return nil, nil, &validator.InputError{Reason: "schema-valid trust policy does not decode: " + err.Error()}
	}
	var err error
	if p.from, err = datetime.Parse(p.ValidFrom); err != nil {
		return nil, nil, &validator.InputError{Reason: "trust policy validFrom: " + err.Error()}
	}
	if p.until, err = datetime.Parse(p.ValidUntil); err != nil {
		return nil, nil, &validator.InputError{Reason: "trust policy validUntil: " + err.Error()}
	}
	return &p, nil, nil
}

// policy02 is mcp-res.trust-policy/0.2.0 with exactly the upstream semantics
// (REFERENCE §3.2.5, §6.2, §6.4 E13, §6.9): an inclusive window, trust as a
// (keyFingerprint, signerIdentity) pair, revocation at every level, and
// WITNESSED as "two distinct trusted keys".
type policy02 struct {
	SchemaVersion          string          `json:"schemaVersion"`
	PolicyID               string          `json:"id"`
	PolicyVersion          string          `json:"version"`
	ValidFrom              string          `json:"validFrom"`
	ValidUntil             string          `json:"validUntil"`
	RequiredAlgorithm      string          `json:"requiredAlgorithm"`
	TrustedSigners         []trustedSigner `json:"trustedSigners"`
	RevokedKeyFingerprints []string        `json:"revokedKeyFingerprints"`
	from, until            datetime.Instant
}

type trustedSigner struct {
	KeyFingerprint string `json:"keyFingerprint"`
	SignerIdentity string `json:"signerIdentity"`
}

func (p *policy02) ID() string      { return p.PolicyID }
func (p *policy02) Version() string { return p.PolicyVersion }

func (p *policy02) InForce(atTime time.Time, atText string) *attest.Failure {
	at := datetime.FromTime(atTime)
	if at.Compare(p.from) < 0 || at.Compare(p.until) > 0 {
		return &attest.Failure{Code: attest.CodeTrustPolicyExpired, Detail: fmt.Sprintf("evaluation time %s is outside the policy window %s … %s", atText, p.ValidFrom, p.ValidUntil)}
	}
	return nil
}

func (p *policy02) Envelope(f *attest.EnvelopeFacts, atTime time.Time, ev *attest.EnvelopeEvaluation) *attest.Failure {
	if f.TrustPolicyID != p.PolicyID {
		return &attest.Failure{Code: attest.CodeIdentityMismatch, Detail: fmt.Sprintf("signed for trust policy %q, evaluated with %q", f.TrustPolicyID, p.PolicyID)}
	}
	signed, at := datetime.FromTime(f.SigningTime), datetime.FromTime(atTime)
	if signed.Compare(p.from) < 0 || signed.Compare(p.until) > 0 || signed.Compare(at) > 0 {
		return &attest.Failure{Code: attest.CodeTrustPolicyExpired, Detail: fmt.Sprintf("signingTime %s is outside the policy window %s … %s or after the evaluation time", f.SigningTimeText, p.ValidFrom, p.ValidUntil)}
	}
	if slices.Contains(p.RevokedKeyFingerprints, f.KeyID) {
		ev.Revoked = true
		return &attest.Failure{Code: attest.CodeKeyRevoked, Detail: "key " + f.KeyID + " is revoked by the policy"}
	}
	ev.Trusted = slices.Contains(p.TrustedSigners, trustedSigner{KeyFingerprint: f.KeyID, SignerIdentity: f.SignerIdentity})
	return nil
}

// Transparency keeps the upstream meaning: a matching proof digest is all
// that is checked (DIGEST_ONLY, REFERENCE §6.10).
func (p *policy02) Transparency(*attest.EnvelopeFacts, []byte) (*attest.VerifiedTransparency, *attest.Failure) {
	return nil, nil
}

func (p *policy02) Derive(fs []attest.EnvelopeFacts, evs []attest.EnvelopeEvaluation) attest.Derivation {
	d := attest.Derivation{Level: attest.Signed, AllTrusted: true}
	trusted, tlog := 0, false
	for _, e := range evs {
		if e.Trusted {
			trusted++
		}
		d.AllTrusted = d.AllTrusted && e.Trusted
		tlog = tlog || e.Transparency != attest.TransparencyNone
	}
	d.Notes = append(d.Notes, fmt.Sprintf("trusted signers: %d of %d envelopes, by (keyFingerprint, signerIdentity) pair", trusted, len(evs)))
	if !d.AllTrusted {
		return d
	}
	d.Level = attest.SignedWithIdentity
	if len(fs) >= 2 {
		d.Level = attest.Witnessed
	}
	d.Notes = append(d.Notes, fmt.Sprintf("witnessed: %d distinct keys, 2 required (counted by key fingerprint)", len(fs)))
	if tlog {
		d.Level = attest.TransparencyRecorded
		d.Notes = append(d.Notes, "transparency: a reference whose proof bytes match their SHA-256 (DIGEST_ONLY; no log was checked)")
	}
	return d
}
