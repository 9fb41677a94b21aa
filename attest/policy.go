package attest

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// A Failure is a failing check: its diagnostic code and an explanation that
// names the check and its numbers.
type Failure struct {
	Code   string
	Detail string
}

// EnvelopeFacts is what Verify has established about an envelope before
// trust is evaluated: its single signature verified (strict Ed25519), its
// payload is the canonical encoding of a schema-valid statement, and the
// statement binds the attested bundle, the signer identity and the key.
//
// Times are exact instants in UTC at microsecond precision: MCP-RES
// date-times are read as REFERENCE §1.7 says (fraction digits beyond the
// sixth truncated, never rounded), so comparing them compares the instants
// the strings name.
type EnvelopeFacts struct {
	Index           int
	KeyID           string // lowercase hex SHA-256 of the SPKI DER
	PublicKey       ed25519.PublicKey
	SignerIdentity  string
	SigningTime     time.Time // the statement's signingTime
	SigningTimeText string    // signingTime as signed
	TrustPolicyID   string
	Transparency    *TransparencyReference
	// The statement's binding, checked equal to the attested bundle (E10).
	SubjectName             string
	SubjectDigest           string // the subject artifact's SHA-256
	EvidenceBundleDigest    string
	ScenarioFingerprint     string
	ExecutionInstanceDigest string
	// EvaluatedAt is the verification's evaluation time, which a policy
	// judges witness cosignature times against.
	EvaluatedAt time.Time
}

// Derivation is a policy's verdict on a set of verified envelopes.
type Derivation struct {
	Level      Level
	AllTrusted bool     // every envelope is trusted by the policy
	Notes      []string // how the level was reached, with counts
}

// VerifiedTransparency is what a trust policy verified offline about an
// envelope's transparency reference (E14): the entry binding the envelope's
// bundle is leaf LeafIndex of the log Origin, included in a checkpoint of
// TreeSize leaves signed by LogKey and cosigned by Witnesses, which satisfy
// Quorum. Verify records it in the envelope's [EnvelopeEvaluation], where
// [TrustPolicy.Derive] reads it: the proof is verified once.
type VerifiedTransparency struct {
	Kind      string // the proof kind, e.g. "c2sp.org/tlog-proof@v1"
	Origin    string // the checkpoint origin (the log's key name)
	TreeSize  uint64
	LeafIndex uint64
	LogKey    string // NAME+HASH (8 hex digits) of the log key that signed
	// Witnesses are the counted witness cosignatures, once each, in
	// signature order (distinct keys).
	Witnesses []signednote.CountedCosignature
	Quorum    string // the rule that was satisfied ("none" when none is required)
	// NotCounted are cosignatures that verified but were not counted
	// (dated after the evaluation time, or older than the policy's maximum
	// cosignature age); empty when every verified cosignature counted.
	NotCounted []signednote.UncountedCosignature
}

// A TrustPolicy decides trust for Verify. Verify calls InForce once (step
// G6), Envelope for each envelope in order after its signature and binding
// verified (E13), Transparency for an envelope whose statement carries a
// transparency reference with matching proof digest (E14), and Derive once
// every envelope has passed (G8). Any Failure ends the verification with
// that diagnostic. Transparency returns what it verified, or nil when the
// reference stays digest-checked only (DIGEST_ONLY); Verify records it in
// the EnvelopeEvaluation (VERIFIED_OFFLINE) that Derive gets. The
// evaluation time at is Options.EvaluatedAt as an exact instant in UTC
// (see [EnvelopeFacts]), atText as given.
// Implementations MUST NOT use the network or read a clock.
type TrustPolicy interface {
	ID() string
	Version() string
	InForce(at time.Time, atText string) *Failure
	Envelope(f *EnvelopeFacts, at time.Time, ev *EnvelopeEvaluation) *Failure
	Transparency(f *EnvelopeFacts, proof []byte) (*VerifiedTransparency, *Failure)
	Derive(fs []EnvelopeFacts, evs []EnvelopeEvaluation) Derivation
}

// A PolicyLoader turns a trust-policy document into a TrustPolicy. Schema
// violations are returned as schema errors (reported as
// MCP_RES_ATTESTATION_SCHEMA_INVALID); an error aborts the verification.
type PolicyLoader func(doc *canonjson.Value, val *validator.Validator) (TrustPolicy, []schema.Error, error)

// loadPolicy02 is the built-in loader of mcp-res.trust-policy/0.2.0. It is
// also used for documents of unknown kind, which then fail its schema.
func loadPolicy02(doc *canonjson.Value, val *validator.Validator) (TrustPolicy, []schema.Error, error) {
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

func (p *policy02) InForce(atTime time.Time, atText string) *Failure {
	at := datetime.FromTime(atTime)
	if at.Compare(p.from) < 0 || at.Compare(p.until) > 0 {
		return &Failure{CodeTrustPolicyExpired, fmt.Sprintf("evaluation time %s is outside the policy window %s … %s", atText, p.ValidFrom, p.ValidUntil)}
	}
	return nil
}

func (p *policy02) Envelope(f *EnvelopeFacts, atTime time.Time, ev *EnvelopeEvaluation) *Failure {
	if f.TrustPolicyID != p.PolicyID {
		return &Failure{CodeIdentityMismatch, fmt.Sprintf("signed for trust policy %q, evaluated with %q", f.TrustPolicyID, p.PolicyID)}
	}
	signed, at := datetime.FromTime(f.SigningTime), datetime.FromTime(atTime)
	if signed.Compare(p.from) < 0 || signed.Compare(p.until) > 0 || signed.Compare(at) > 0 {
		return &Failure{CodeTrustPolicyExpired, fmt.Sprintf("signingTime %s is outside the policy window %s … %s or after the evaluation time", f.SigningTimeText, p.ValidFrom, p.ValidUntil)}
	}
	if slices.Contains(p.RevokedKeyFingerprints, f.KeyID) {
		ev.Revoked = true
		return &Failure{CodeKeyRevoked, "key " + f.KeyID + " is revoked by the policy"}
	}
	ev.Trusted = slices.Contains(p.TrustedSigners, trustedSigner{KeyFingerprint: f.KeyID, SignerIdentity: f.SignerIdentity})
	return nil
}

// Transparency keeps the upstream meaning: a matching proof digest is all
// that is checked (DIGEST_ONLY, REFERENCE §6.10).
func (p *policy02) Transparency(*EnvelopeFacts, []byte) (*VerifiedTransparency, *Failure) {
	return nil, nil
}

func (p *policy02) Derive(fs []EnvelopeFacts, evs []EnvelopeEvaluation) Derivation {
	d := Derivation{Level: Signed, AllTrusted: true}
	trusted, tlog := 0, false
	for _, e := range evs {
		if e.Trusted {
			trusted++
		}
		d.AllTrusted = d.AllTrusted && e.Trusted
		tlog = tlog || e.Transparency != TransparencyNone
	}
	d.Notes = append(d.Notes, fmt.Sprintf("trusted signers: %d of %d envelopes, by (keyFingerprint, signerIdentity) pair", trusted, len(evs)))
	if !d.AllTrusted {
		return d
	}
	d.Level = SignedWithIdentity
	if len(fs) >= 2 {
		d.Level = Witnessed
	}
	d.Notes = append(d.Notes, fmt.Sprintf("witnessed: %d distinct keys, 2 required (counted by key fingerprint)", len(fs)))
	if tlog {
		d.Level = TransparencyRecorded
		d.Notes = append(d.Notes, "transparency: a reference whose proof bytes match their SHA-256 (DIGEST_ONLY; no log was checked)")
	}
	return d
}
