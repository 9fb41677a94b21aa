package trustpolicy

import (
	"fmt"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/validator"
)

// OpenOptions configure [Open].
type OpenOptions struct {
	// Validator checks the policy's schema; nil means a new one.
	Validator *validator.Validator
	// KindVerifiers verify transparency proof kinds that package offline
	// does not verify itself (cmd/mcpres-sigstore passes offline/rekor's,
	// so that its v1 policies verify Rekor v1 entries); mcpres passes none
	// and such a reference stays DIGEST_ONLY.
	KindVerifiers []offline.KindVerifier
}

// Open loads a trust-policy document of either format, the one place a
// policy is opened: mcpres.trust-policy/v1 ([Load]; its problems become
// schema errors) when its schemaVersion says so, otherwise the upstream
// mcp-res.trust-policy/0.2.0, which is also what a document of any other
// kind is read as, so that it fails that schema, exactly as the reference
// reports it (MCP_RES_ATTESTATION_SCHEMA_INVALID at step G6). The outcome,
// a policy or why it does not load, is reported by every verification
// given it (attest.Options.Policy): Open itself never fails.
func Open(doc *canonjson.Value, o OpenOptions) *attest.LoadedPolicy {
	if o.Validator == nil {
		o.Validator = validator.New()
	}
	if sv := doc.Get("schemaVersion"); sv.Is(canonjson.String) && sv.Str == SchemaVersionPolicy {
		p, problems := Load(doc, o.Validator)
		if len(problems) > 0 {
			return attest.NewLoadedPolicy(nil, schemaErrors(problems), nil)
		}
		if len(o.KindVerifiers) > 0 {
			p = p.WithKindVerifiers(o.KindVerifiers...)
		}
		return attest.NewLoadedPolicy(p, nil, nil)
	}
	p, errs, err := loadUpstream(doc, o.Validator)
	return attest.NewLoadedPolicy(p, errs, err)
}

// Unreadable is the policy of a document that could not be read at all:
// every verification given it that reaches step G6 reports err (an input
// error, MCP_RES_INPUT_INVALID), never "no policy".
func Unreadable(err error) *attest.LoadedPolicy {
	return attest.NewLoadedPolicy(nil, nil, err)
}

// An AdHocSigner is one key an ad-hoc policy trusts with its identity.
type AdHocSigner struct {
	// PublicKeyPEM is the key as SPKI PEM; Identity the signer identity
	// it is trusted with; Name says where the key came from, for the
	// policy's note (a file name).
	PublicKeyPEM []byte
	Identity     string
	Name         string
}

// An AdHoc policy trusts exactly the keys it is given, each with its
// identity: what `attest verify --key PUB --identity ID` verifies against.
// It is a real mcpres.trust-policy/v1 document built with this package's
// authoring code and loaded by [Load], so it gets every check a policy
// file gets and is evaluated exactly like one: there is no second
// evaluation path.
//
// Every key may be the primary signer; with two or more keys, every key
// but the primary must have co-signed (a witnesses quorum of n-1, distinct
// identities), so two distinct keys give WITNESSED. Its window ends at
// the evaluation time. A trust policy also names the trustPolicyId every
// statement must carry; the keys name no policy, so [AdHoc.ForBundle]
// binds the policy to the id the bundle's first envelope was signed for.
type AdHoc struct {
	doc   *Document
	names string
	val   *validator.Validator
}

// AdHocPolicyID is the id of an ad-hoc policy before it is bound to a
// bundle, and the name its note gives it.
const AdHocPolicyID = "mcpres.ad-hoc"

// adHocValidFrom starts the ad-hoc policy window: the keys are trusted
// for any signing time up to the evaluation time.
const adHocValidFrom = "1970-01-01T00:00:00.000Z"

// NewAdHoc builds and checks the ad-hoc policy of signers, valid until
// evaluatedAt. The problems are [Load]'s, with /signers/N the N+1th
// signer given.
func NewAdHoc(signers []AdHocSigner, evaluatedAt string, val *validator.Validator) (*AdHoc, []Problem) {
	if val == nil {
		val = validator.New()
	}
	d := New(AdHocPolicyID, adHocValidFrom, evaluatedAt)
	roles := []string{RoleSigner}
	if len(signers) > 1 {
		roles = append(roles, RoleWitness)
		d.Witnesses = &Witnesses{Quorum: int64(len(signers) - 1), Members: []string{}, DistinctIdentities: true}
	}
	a := &AdHoc{doc: d, val: val}
	for i, s := range signers {
		name := fmt.Sprintf("key-%d", i+1)
		d.AddSigner(Signer{Name: name, Identity: s.Identity, PublicKey: string(s.PublicKeyPEM), Roles: roles})
		if d.Witnesses != nil {
			d.Witnesses.Members = append(d.Witnesses.Members, name)
		}
		if a.names != "" {
			a.names += ", "
		}
		a.names += fmt.Sprintf("%s as %q", s.Name, s.Identity)
	}
	if _, problems := Load(d.Value(), val); len(problems) > 0 {
		return nil, problems
	}
	return a, nil
}

// NewAdHocIdentity builds and checks the ad-hoc policy of one identity
// signer (`attest verify --certificate-identity ID
// --certificate-oidc-issuer ISSUER --trusted-root FILE`): it trusts only
// keyless signatures whose certificate matches ci, verified against the
// trusted root named root (package keyless), for the trustPolicyId the
// bundle's first envelope names, until evaluatedAt. Its problems are
// [Load]'s (an identity expression that matches more than meant is one).
func NewAdHocIdentity(ci CertificateIdentity, root TrustedRoot, evaluatedAt string, val *validator.Validator) (*AdHoc, []Problem) {
	if val == nil {
		val = validator.New()
	}
	d := New(AdHocPolicyID, adHocValidFrom, evaluatedAt)
	d.TrustedRoot = &root
	d.AddSigner(Signer{Name: "identity-1", CertificateIdentity: &ci, Roles: []string{RoleSigner}})
	if _, problems := Load(d.Value(), val); len(problems) > 0 {
		return nil, problems
	}
	return &AdHoc{doc: d, val: val, names: "keyless signatures of " + ci.String()}, nil
}

// DocumentFor returns the ad-hoc policy document bound to the
// trustPolicyId of the attested bundle's first envelope. When the id
// cannot be read, the unbound policy is used: verification then reports
// the envelope's own problem, or the id mismatch, as with any policy.
func (a *AdHoc) DocumentFor(wrapper *canonjson.Value) *Document {
	d := a.doc.Clone()
	if id := attest.SignedTrustPolicyID(wrapper); id != "" {
		d.ID = id
	}
	return d
}

// ForBundle returns the ad-hoc policy bound to the bundle
// ([AdHoc.DocumentFor]), loaded as a policy file is.
func (a *AdHoc) ForBundle(wrapper *canonjson.Value) *attest.LoadedPolicy {
	return Open(a.DocumentFor(wrapper).Value(), OpenOptions{Validator: a.val})
}

// Note names the ad-hoc policy in a result's notes.
func (a *AdHoc) Note() string {
	return fmt.Sprintf("ad-hoc trust policy (%s): trusts only %s, for the trustPolicyId the first envelope names, until the evaluation time", AdHocPolicyID, a.names)
}
