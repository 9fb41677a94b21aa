package attest

import (
	"crypto"
	"encoding/base64"
	"fmt"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
)

// Fixed identifiers of MCP-RES attestations (REFERENCE §0.1, §3.2). The
// schema versions of the attested bundle, authenticity record, envelope and
// trust policy are bundle.SchemaVersionAttestedBundle and its neighbours.
const (
	PayloadType   = "application/vnd.in-toto+json"
	StatementType = "https://in-toto.io/Statement/v1"
	PredicateType = "https://aliengineering-byte.github.io/resilireplay/standards/mcp-res/attestation/v0.2"
	Algorithm     = "Ed25519"
)

// A Level is an authenticity classification (REFERENCE §6.2), ordered.
type Level int

// The five levels, in increasing order.
const (
	UnsignedIntegrityOnly Level = iota
	Signed
	SignedWithIdentity
	Witnessed
	TransparencyRecorded
)

var levelNames = [...]string{"UNSIGNED_INTEGRITY_ONLY", "SIGNED", "SIGNED_WITH_IDENTITY", "WITNESSED", "TRANSPARENCY_RECORDED"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// ParseLevel returns the level named s.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown authenticity level %q (want one of UNSIGNED_INTEGRITY_ONLY, SIGNED, SIGNED_WITH_IDENTITY, WITNESSED, TRANSPARENCY_RECORDED)", s)
}

// A TransparencyReference is the optional predicate member of REFERENCE
// §3.2.4. Upstream only checks that InclusionProofSha256 is the SHA-256 of
// the decoded InclusionProofBase64 (§6.10).
type TransparencyReference struct {
	LogID                string `json:"logId"`
	EntryUUID            string `json:"entryUuid"`
	InclusionProofBase64 string `json:"inclusionProofBase64"`
	InclusionProofSha256 string `json:"inclusionProofSha256"`
}

// NewTransparencyReference builds a reference embedding proof.
func NewTransparencyReference(logID, entryUUID string, proof []byte) *TransparencyReference {
	return &TransparencyReference{
		LogID:                logID,
		EntryUUID:            entryUUID,
		InclusionProofBase64: base64.StdEncoding.EncodeToString(proof),
		InclusionProofSha256: canonjson.BytesDigest(proof),
	}
}

// SignOptions are the signer-chosen members of a statement.
type SignOptions struct {
	SignerIdentity string // free-form signer identity, 1..256 code points
	SigningTime    string // RFC 3339 date-time, as it will appear in the statement
	TrustPolicyID  string // the trust policy the signer intends, 1..128 code points
	Transparency   *TransparencyReference
}

// Statement builds the in-toto statement that attests bundle b (a
// conformance bundle value) for the key with key ID keyID (REFERENCE §6.11
// step 1). Profile and validator are copied from the bundle.
func Statement(b *canonjson.Value, keyID string, o SignOptions) *canonjson.Value {
	ev := b.Get("evidence")
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	s := canonjson.NewString
	pred := canonjson.NewObject(
		m("evidenceBundleDigest", b.Path("integrity", "bundleDigest").Clone()),
		m("scenarioFingerprint", ev.Path("scenario", "fingerprint").Clone()),
		m("executionInstanceDigest", b.Path("statement", "executionInstanceDigest").Clone()),
		m("profile", ev.Get("profile").Clone()),
		m("validator", b.Path("statement", "validator").Clone()),
		m("signerIdentity", s(o.SignerIdentity)),
		m("signerKeyFingerprint", s(keyID)),
		m("signatureAlgorithm", s(Algorithm)),
		m("signingTime", s(o.SigningTime)),
		m("trustPolicyId", s(o.TrustPolicyID)),
	)
	if o.Transparency != nil {
		ref, _ := canonjson.FromGo(o.Transparency)
		pred.Set("transparencyReference", ref)
	}
	return canonjson.NewObject(
		m("_type", s(StatementType)),
		m("subject", canonjson.NewArray(canonjson.NewObject(
			m("name", ev.Path("subject", "name").Clone()),
			m("digest", canonjson.NewObject(m("sha256", ev.Path("subject", "artifactSha256").Clone()))),
		))),
		m("predicateType", s(PredicateType)),
		m("predicate", pred),
	)
}

// Sign builds the statement for bundle b and returns a DSSE envelope
// (REFERENCE §6.11 steps 2–3) signed by signer: an ed25519.PrivateKey, or
// any crypto.Signer whose Public() is an ed25519.PublicKey (a PKCS#11
// token or an ssh-agent through package keyref, a caller's KMS). The
// signature is made and checked by ed25519strict.Sign: a signer that signs
// with another key or returns Ed25519ph is refused, and the error matches
// ed25519strict.ErrSigner. Ed25519 is deterministic, so the same inputs
// always give the same envelope.
func Sign(b *canonjson.Value, signer crypto.Signer, o SignOptions) (*canonjson.Value, error) {
	pub, err := ed25519strict.SignerPublicKey(signer)
	if err != nil {
		return nil, fmt.Errorf("attest: %w", err)
	}
	keyID := ed25519strict.Fingerprint(pub)
	payload, err := canonjson.Canonical(Statement(b, keyID, o))
	if err != nil {
		return nil, fmt.Errorf("attest: statement has no canonical form: %w", err)
	}
	return SignPayload(payload, signer, o.SignerIdentity)
}

// SignPayload wraps already-canonical statement bytes in an envelope
// signed by signer (see [Sign]). Test corpora use it to sign deliberately
// altered statements.
func SignPayload(payload []byte, signer crypto.Signer, signerIdentity string) (*canonjson.Value, error) {
	pub, err := ed25519strict.SignerPublicKey(signer)
	if err != nil {
		return nil, fmt.Errorf("attest: %w", err)
	}
	der := ed25519strict.MarshalSPKI(pub)
	sig, err := ed25519strict.Sign(signer, PAE(PayloadType, payload))
	if err != nil {
		return nil, fmt.Errorf("attest: signing the envelope: %w", err)
	}
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	s := canonjson.NewString
	enc := base64.StdEncoding.EncodeToString
	return canonjson.NewObject(
		m("schemaVersion", s(bundle.SchemaVersionEnvelope)),
		m("payloadType", s(PayloadType)),
		m("payload", s(enc(payload))),
		m("signatures", canonjson.NewArray(canonjson.NewObject(
			m("keyid", s(ed25519strict.SPKIFingerprint(der))),
			m("sig", s(enc(sig))),
			m("algorithm", s(Algorithm)),
			m("publicKeySpkiBase64", s(enc(der))),
			m("signerIdentity", s(signerIdentity)),
		))),
	), nil
}

// Wrap returns an attested conformance bundle holding b, the claimed level
// and the envelopes (REFERENCE §6.11 step 4).
func Wrap(b *canonjson.Value, claim Level, envelopes ...*canonjson.Value) *canonjson.Value {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	return canonjson.NewObject(
		m("schemaVersion", canonjson.NewString(bundle.SchemaVersionAttestedBundle)),
		m("bundle", b),
		m("authenticity", canonjson.NewObject(
			m("schemaVersion", canonjson.NewString(bundle.SchemaVersionAuthenticity)),
			m("claimedClassification", canonjson.NewString(claim.String())),
			m("envelopes", canonjson.NewArray(envelopes...)),
		)),
	)
}

// SignedTrustPolicyID is predicate.trustPolicyId of the statement the
// first envelope of an attested bundle signs, or "" when it cannot be
// read. It is only a name (an ad-hoc policy is bound to it,
// trustpolicy.AdHoc): verification checks the envelope in full.
func SignedTrustPolicyID(wrapper *canonjson.Value) string {
	envs := wrapper.Path("authenticity", "envelopes")
	if !envs.Is(canonjson.Array) || len(envs.Items) == 0 {
		return ""
	}
	b64 := envs.Items[0].Get("payload")
	if !b64.Is(canonjson.String) {
		return ""
	}
	raw, err := keyfile.DecodeStrictBase64(b64.Str)
	if err != nil {
		return ""
	}
	st, err := canonjson.Parse(raw)
	if err != nil {
		return ""
	}
	if id := st.Path("predicate", "trustPolicyId"); id.Is(canonjson.String) {
		return id.Str
	}
	return ""
}
