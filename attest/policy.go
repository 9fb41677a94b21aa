package attest

import (
	"crypto/ed25519"
	"time"

	"github.com/mcpres/mcpres/signednote"
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

// A LoadedPolicy is the outcome of loading a trust-policy document once
// (trustpolicy.Open), to verify any number of attested bundles against: a
// policy, or the schema errors of the document, or the error that aborts
// every verification with it. Immutable and safe for concurrent use. A
// load that failed is reported by each verification that reaches step G6,
// with exactly the diagnostics, schema errors or input error the reference
// reports for that document.
type LoadedPolicy struct {
	policy  TrustPolicy
	errs    []schema.Error
	err     error
	refusal *Failure
}

// NewLoadedPolicy records the outcome of loading a policy: p, or the
// schema errors errs (reported as MCP_RES_ATTESTATION_SCHEMA_INVALID), or
// err (an *validator.InputError: MCP_RES_INPUT_INVALID).
func NewLoadedPolicy(p TrustPolicy, errs []schema.Error, err error) *LoadedPolicy {
	return &LoadedPolicy{policy: p, errs: errs, err: err}
}

// Policy returns the outcome of the load: the policy, or the schema errors
// of the document, or the error that aborts every verification with it.
func (lp *LoadedPolicy) Policy() (TrustPolicy, []schema.Error, error) {
	return lp.policy, lp.errs, lp.err
}

// Refused returns lp refusing every verification that reaches step G6
// with f, once lp's own load and window checks have passed: the policy of
// one bundle whose signers' trust could not be established by material
// from outside the bundle (package keyless: a keyless signature whose
// certificate, timestamp or identity does not verify). The result is
// INVALID with f's code; the policy's id and version are still reported.
func (lp *LoadedPolicy) Refused(f *Failure) *LoadedPolicy {
	c := *lp
	c.refusal = f
	return &c
}
