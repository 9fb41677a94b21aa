package verifycmd

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// An ad-hoc trust policy is what attest verify --key PUB --identity ID
// (repeatable, matched in order) verifies against: a real
// mcpres.trust-policy/v1 document built with trustpolicy's authoring code
// and loaded by trustpolicy.Load, so it gets every check a policy file gets
// (Ed25519 keys only, no key given twice, …) and is evaluated exactly like
// one. There is no second evaluation path.
//
// It trusts exactly the given keys with their identities. Every key may be
// the primary signer; with two or more keys, every key but the primary must
// have co-signed (witnesses quorum n-1, distinct identities), so two
// distinct keys give WITNESSED. The window ends at the evaluation time.
//
// A trust policy also names the trustPolicyId every statement must carry
// (step E13). The user of --key names keys, not a policy, so the ad-hoc
// policy takes the id that the bundle's first envelope was signed for (see
// adHocPolicy.forBundle); the result names the policy ad hoc in a note.
type adHocPolicy struct {
	doc   *trustpolicy.Document
	names string // "KEYFILE as ID, …" for the note
}

// adHocPolicyPrefix is the id of the ad-hoc policy before it is bound to a
// bundle's trustPolicyId, and the name the result's note gives it.
const adHocPolicyPrefix = "mcpres.ad-hoc"

// adHocValidFrom starts the ad-hoc policy window: the keys are trusted for
// any signing time up to the evaluation time.
const adHocValidFrom = "1970-01-01T00:00:00.000Z"

// newAdHocPolicy builds and checks the ad-hoc policy of keyPaths (SPKI PEM
// public keys) and identities, paired in order. A policy that does not load
// is a usage error naming each problem.
func (c Config) newAdHocPolicy(keyPaths, identities []string, evaluatedAt string, val *validator.Validator) (*adHocPolicy, error) {
	if len(keyPaths) != len(identities) {
		return nil, c.usagef("--key and --identity go in pairs: %d --key and %d --identity given", len(keyPaths), len(identities))
	}
	d := trustpolicy.New(adHocPolicyPrefix, adHocValidFrom, evaluatedAt)
	roles := []string{trustpolicy.RoleSigner}
	if len(keyPaths) > 1 {
		roles = append(roles, trustpolicy.RoleWitness)
		d.Witnesses = &trustpolicy.Witnesses{Quorum: int64(len(keyPaths) - 1), Members: []string{}, DistinctIdentities: true}
	}
	var names []string
	for i, path := range keyPaths {
		pem, err := regularfile.ReadFile(path, keyfile.MaxBytes)
		if err != nil {
			return nil, cli.Fail(fmt.Errorf("--key: %v", err))
		}
		if err := keyfile.CheckKind(pem, keyfile.PEMPublicKey); err != nil {
			return nil, cli.Fail(fmt.Errorf("--key %s: %v", path, keyhints.Word(err, "--key")))
		}
		name := fmt.Sprintf("key-%d", i+1)
		d.AddSigner(trustpolicy.Signer{Name: name, Identity: identities[i], PublicKey: string(pem), Roles: roles})
		if d.Witnesses != nil {
			d.Witnesses.Members = append(d.Witnesses.Members, name)
		}
		names = append(names, fmt.Sprintf("%s as %q", path, identities[i]))
	}
	if _, problems := trustpolicy.Load(d.Value(), val); len(problems) > 0 {
		var msgs []string
		for _, p := range problems {
			msgs = append(msgs, adHocProblem(p, keyPaths))
		}
		return nil, c.usagef("--key/--identity: %s", strings.Join(msgs, "; "))
	}
	return &adHocPolicy{doc: d, names: strings.Join(names, ", ")}, nil
}

// adHocProblem says a policy problem in terms of the flags: /signers/N is
// the N+1th --key.
func adHocProblem(p trustpolicy.Problem, keyPaths []string) string {
	var i int
	var rest string
	if n, _ := fmt.Sscanf(p.Path, "/signers/%d%s", &i, &rest); n >= 1 && i >= 0 && i < len(keyPaths) {
		msg := p.Message
		if p.Keyword == "publicKey" {
			msg += " (only Ed25519 public keys are accepted)"
		}
		return fmt.Sprintf("--key %s: %s", keyPaths[i], msg)
	}
	return p.String()
}

// forBundle returns the ad-hoc policy bound to the trustPolicyId of the
// attested bundle's first envelope, loaded as a policy file is. When the id
// cannot be read, the unbound policy is used: verification then reports
// the envelope's own problem, or the id mismatch, as with any policy.
func (p *adHocPolicy) forBundle(doc *canonjson.Value, opts attest.Options) *attest.LoadedPolicy {
	d := p.doc.Clone()
	if id := firstTrustPolicyID(doc); id != "" {
		d.ID = id
	}
	return attest.LoadPolicy(d.Value(), opts)
}

// note names the ad-hoc policy in a result.
func (p *adHocPolicy) note() string {
	return fmt.Sprintf("ad-hoc trust policy (%s) from --key/--identity: trusts only %s, for the trustPolicyId the first envelope names, until the evaluation time", adHocPolicyPrefix, p.names)
}

// firstTrustPolicyID is predicate.trustPolicyId of the first envelope's
// statement, or "" when it cannot be read. It is only a name to bind the
// ad-hoc policy to; verification checks the envelope in full.
func firstTrustPolicyID(doc *canonjson.Value) string {
	payload := doc.Path("authenticity", "envelopes")
	if payload == nil || !payload.Is(canonjson.Array) || len(payload.Items) == 0 {
		return ""
	}
	b64 := payload.Items[0].Get("payload")
	if b64 == nil || !b64.Is(canonjson.String) {
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
	id := st.Path("predicate", "trustPolicyId")
	if id == nil || !id.Is(canonjson.String) {
		return ""
	}
	return id.Str
}
