package trustpolicy

import (
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// SchemaVersionPolicy is the schemaVersion of an extended trust policy.
const SchemaVersionPolicy = "mcpres.trust-policy/v1"

// SchemaName is the name of the embedded JSON Schema of [SchemaVersionPolicy]
// (validator/schema/schemas/mcpres-trust-policy-v1.schema.json), for
// validator.Validator.SchemaErrors.
const SchemaName = "mcpres-trust-policy-v1"

// Roles a signer can hold.
const (
	// RoleSigner lets a key be the primary (first) signer of an attested
	// bundle at SIGNED_WITH_IDENTITY or above.
	RoleSigner = "signer"
	// RoleWitness lets a key count toward the witnesses quorum when it is
	// also listed in witnesses.members.
	RoleWitness = "witness"
)

// Document is the JSON shape of an mcpres.trust-policy/v1 document, in
// member order. It is what authoring tools edit; evaluation uses a loaded
// [Policy]. Optional members are empty strings or nil pointers when absent.
type Document struct {
	SchemaVersion string        `json:"schemaVersion"`
	ID            string        `json:"id"`
	Version       int64         `json:"version"`
	ValidFrom     string        `json:"validFrom"`
	ValidUntil    string        `json:"validUntil"`
	Signers       []Signer      `json:"signers"`
	Revocations   []Revocation  `json:"revocations"`
	Witnesses     *Witnesses    `json:"witnesses,omitempty"`
	Transparency  *Transparency `json:"transparency,omitempty"`
	// TrustedRoot names the Sigstore trusted root identity signers are
	// verified against; required when a signer is an identity.
	TrustedRoot *TrustedRoot `json:"trustedRoot,omitempty"`
}

// A Signer is a trusted key with its identity, or an identity signer
// (CertificateIdentity: keyless, see [CertificateIdentity]), with roles
// and an optional window.
type Signer struct {
	Name string `json:"name"`
	// Identity is a key signer's signer identity; empty for an identity
	// signer, whose signer identity is its certificate's.
	Identity string `json:"identity,omitempty"`
	// PublicKey is an SPKI PEM block or the base64 of the 44-byte SPKI DER
	// (the form of an envelope's publicKeySpkiBase64); empty for an
	// identity signer.
	PublicKey string `json:"publicKey,omitempty"`
	// CertificateIdentity, for an identity signer, is who may sign: see
	// [CertificateIdentity].
	CertificateIdentity *CertificateIdentity `json:"certificateIdentity,omitempty"`
	Roles               []string             `json:"roles"`
	ValidFrom           string               `json:"validFrom,omitempty"`
	ValidUntil          string               `json:"validUntil,omitempty"`
	// Subjects, when not nil, are the subject-name patterns the signer is
	// trusted for ([Scope]): 1..MaxScopes distinct patterns. nil (the
	// member absent) means every subject; an empty list is refused.
	Subjects []string `json:"subjects,omitempty"`
}

// HasRole reports whether s holds role.
func (s *Signer) HasRole(role string) bool { return slices.Contains(s.Roles, role) }

// A Revocation revokes a key by fingerprint.
type Revocation struct {
	// Fingerprint is the lowercase hex SHA-256 of the key's SPKI DER.
	Fingerprint string `json:"fingerprint"`
	Reason      string `json:"reason"`
	// RevokedAt is recorded and reported, never used to accept an
	// attestation: signing times are self-asserted.
	RevokedAt string `json:"revokedAt,omitempty"`
}

// Witnesses is the witness rule of a policy.
type Witnesses struct {
	// Quorum is the number of witness keys needed, 1..len(Members).
	Quorum int64 `json:"quorum"`
	// Members names signers that hold the witness role.
	Members []string `json:"members"`
	// DistinctIdentities requires every counted witness to have an
	// identity of its own, different from the other counted witnesses'
	// and from the primary signer's.
	DistinctIdentities bool `json:"distinctIdentities"`
}

// Transparency holds what transparency references are verified against
// offline (see [Policy.Transparency]).
type Transparency struct {
	// TLogPolicy is a tlog-policy text (see [ParseTLogPolicy]).
	TLogPolicy string `json:"tlogPolicy"`
	// MaxCosignatureAgeSeconds, when not 0, is the oldest a witness
	// cosignature may be at the evaluation time to count toward the
	// quorum (1..MaxCosignatureAgeLimit seconds).
	MaxCosignatureAgeSeconds int64 `json:"maxCosignatureAgeSeconds,omitempty"`
}

// MaxCosignatureAgeLimit is the largest maxCosignatureAgeSeconds: ten
// years of 365.25 days.
const MaxCosignatureAgeLimit = 315576000

// New returns a policy document with no signers, revocations or rules, at
// version 1.
func New(id, validFrom, validUntil string) *Document {
	return &Document{
		SchemaVersion: SchemaVersionPolicy,
		ID:            id,
		Version:       1,
		ValidFrom:     validFrom,
		ValidUntil:    validUntil,
		Signers:       []Signer{},
		Revocations:   []Revocation{},
	}
}

// Decode checks doc against the schema and decodes it. It does not run the
// semantic checks of [Load]: authoring tools decode a policy, edit it, and
// then Load the result, so that an edit can repair a semantic problem. The
// problems are the schema errors; the document is nil when there are any.
func Decode(doc *canonjson.Value, val *validator.Validator) (*Document, []Problem) {
	if val == nil {
		val = validator.New()
	}
	if errs := val.SchemaErrors(SchemaName, doc); len(errs) > 0 {
		return nil, schemaProblems(errs)
	}
	var d Document
	if err := canonjson.Unmarshal(doc, &d); err != nil {
		// The schema admits nothing that does not decode: a bug.
		return nil, []Problem{{Path: "", Keyword: "decode", Message: err.Error()}}
	}
	d.normalize()
	return &d, nil
}

// normalize replaces nil slices by empty ones so that Value writes [].
func (d *Document) normalize() {
	if d.Signers == nil {
		d.Signers = []Signer{}
	}
	if d.Revocations == nil {
		d.Revocations = []Revocation{}
	}
	for i := range d.Signers {
		if d.Signers[i].Roles == nil {
			d.Signers[i].Roles = []string{}
		}
	}
	if d.Witnesses != nil && d.Witnesses.Members == nil {
		d.Witnesses.Members = []string{}
	}
}

// Value returns d as a JSON value in member order (write it with
// canonjson.Pretty).
func (d *Document) Value() *canonjson.Value {
	c := d.Clone()
	c.normalize()
	v, err := canonjson.FromGo(c)
	if err != nil {
		// Only strings, booleans, int64 and slices of them: cannot fail
		// except for an integer beyond 2^53-1, which the schema rejects.
		panic(fmt.Sprintf("trustpolicy: encoding a policy document: %v", err))
	}
	return v
}

// Clone returns a deep copy of d.
func (d *Document) Clone() *Document {
	c := *d
	c.Signers = slices.Clone(d.Signers)
	for i := range c.Signers {
		c.Signers[i].Roles = slices.Clone(c.Signers[i].Roles)
		c.Signers[i].Subjects = slices.Clone(c.Signers[i].Subjects)
		c.Signers[i].CertificateIdentity = c.Signers[i].CertificateIdentity.clone()
	}
	if d.TrustedRoot != nil {
		r := *d.TrustedRoot
		c.TrustedRoot = &r
	}
	c.Revocations = slices.Clone(d.Revocations)
	if d.Witnesses != nil {
		w := *d.Witnesses
		w.Members = slices.Clone(w.Members)
		c.Witnesses = &w
	}
	if d.Transparency != nil {
		t := *d.Transparency
		c.Transparency = &t
	}
	return &c
}

// AddSigner appends s. Whether the result is a valid policy (a unique name
// and key, a valid key and window) is for [Load] to say.
func (d *Document) AddSigner(s Signer) {
	s.Roles = slices.Clone(s.Roles)
	s.Subjects = slices.Clone(s.Subjects)
	s.CertificateIdentity = s.CertificateIdentity.clone()
	d.Signers = append(d.Signers, s)
}

// AddWitness appends s with the witness role and lists it in
// witnesses.members. Without a witnesses rule it creates one with quorum 1
// and distinctIdentities true (the strict choice).
func (d *Document) AddWitness(s Signer) {
	s.Roles = []string{RoleWitness}
	d.AddSigner(s)
	if d.Witnesses == nil {
		d.Witnesses = &Witnesses{Quorum: 1, Members: []string{}, DistinctIdentities: true}
	}
	d.Witnesses.Members = append(d.Witnesses.Members, s.Name)
}

// SetQuorum sets the witnesses quorum. It returns an error when the policy
// has no witnesses rule (add a witness first).
func (d *Document) SetQuorum(k int64) error {
	if d.Witnesses == nil {
		return fmt.Errorf("the policy has no witnesses rule; add a witness first")
	}
	d.Witnesses.Quorum = k
	return nil
}

// Revoke appends r.
func (d *Document) Revoke(r Revocation) {
	d.Revocations = append(d.Revocations, r)
}
