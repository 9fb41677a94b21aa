package trustpolicy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// Upstream projects p to an upstream mcp-res.trust-policy/0.2.0 document
// (REFERENCE §3.2.5) for tools that only know upstream: the same id and
// window, version "<n>.0.0", requiredAlgorithm Ed25519, trustedSigners =
// {keyFingerprint, signerIdentity} of every signer in order, and
// revokedKeyFingerprints = the revoked fingerprints in order.
//
// losses lists, one line each ("PATH: what is lost"), every rule of p that
// the projection would weaken: with the upstream policy some attestation
// would reach a higher level than p allows. Keys that p revokes are left
// out of the analysis, since a revoked key fails under both. The rules:
//
//   - a signer's own window narrower than the policy window (upstream
//     trusts the key for the whole policy window);
//   - a signer without the signer role (upstream trusts every listed key as
//     a primary signer);
//   - a signer scoped to subjects (upstream trusts every listed key for
//     every subject): an export never widens a scope silently;
//   - with two or more unrevoked signers, WITNESSED: upstream derives it
//     from any two distinct trusted keys, so a policy without a witnesses
//     rule, a quorum other than 1 (v1 counts witnesses besides the primary,
//     so quorum 1 is upstream's "2 distinct keys"), a signer that is not a
//     witness member, or distinctIdentities with two signers that share an
//     identity, is weakened;
//   - a transparency section (upstream has none).
//
// Two differences are not listed because no v1 policy content can avoid
// them: upstream derives TRANSPARENCY_RECORDED from a digest-only
// reference, and lets one trusted signer with such a reference satisfy a
// WITNESSED claim (REFERENCE §6.10, §10 rows 33 and 34); v1 derives
// neither. An empty losses means the projection is exact up to those.
func (p *Policy) Upstream() (doc *canonjson.Value, losses []string) {
	s := canonjson.NewString
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	signers := make([]*canonjson.Value, 0, len(p.signers))
	for _, si := range p.signers {
		if !si.IsIdentity() {
			signers = append(signers, canonjson.NewObject(m("keyFingerprint", s(si.fp)), m("signerIdentity", s(si.Identity))))
		}
	}
	revoked := make([]*canonjson.Value, len(p.doc.Revocations))
	for i, r := range p.doc.Revocations {
		revoked[i] = s(r.Fingerprint)
	}
	doc = canonjson.NewObject(
		m("schemaVersion", s(bundle.SchemaVersionTrustPolicy)),
		m("id", s(p.doc.ID)),
		m("version", s(fmt.Sprintf("%d.0.0", p.doc.Version))),
		m("validFrom", s(p.doc.ValidFrom)),
		m("validUntil", s(p.doc.ValidUntil)),
		m("requiredAlgorithm", s(attest.Algorithm)),
		m("trustedSigners", canonjson.NewArray(signers...)),
		m("revokedKeyFingerprints", canonjson.NewArray(revoked...)),
	)
	return doc, p.losses()
}

func (p *Policy) losses() []string {
	var out []string
	lose := func(path, format string, args ...any) {
		out = append(out, path+": "+fmt.Sprintf(format, args...))
	}
	var live []*signerInfo
	for i := range p.signers {
		if _, revoked := p.revoked[p.signers[i].fp]; !revoked {
			live = append(live, &p.signers[i])
		}
	}
	at := func(s *signerInfo) string { return fmt.Sprintf("/signers/%d (%q)", s.index, s.Name) }
	for _, s := range live {
		if s.IsIdentity() {
			lose(at(s), "identity signer (%s) is dropped: upstream trusts keys only", s.CertificateIdentity)
		}
		if (s.hasFrom && s.from.Compare(p.from) > 0) || (s.hasUntil && s.until.Compare(p.until) < 0) {
			lose(at(s), "per-key window %s is lost: upstream trusts the key for the whole policy window %s … %s", s.window(), p.doc.ValidFrom, p.doc.ValidUntil)
		}
		if !s.HasRole(RoleSigner) {
			lose(at(s), "roles [%s] are lost: upstream trusts every listed key as a primary signer", strings.Join(s.Roles, ", "))
		}
		if s.scopes != nil {
			lose(at(s), "subjects [%s] are lost: upstream trusts every listed key for every subject", strings.Join(s.Subjects, ", "))
		}
	}
	if len(live) >= 2 {
		w := p.doc.Witnesses
		switch {
		case w == nil:
			lose("/witnesses", "there is no witnesses rule, so v1 never derives WITNESSED; upstream derives it from any 2 distinct trusted keys")
		default:
			if w.Quorum != 1 {
				lose("/witnesses/quorum", "quorum %d (%d distinct keys with the primary) is lost: upstream derives WITNESSED from any 2 distinct trusted keys", w.Quorum, w.Quorum+1)
			}
			for _, s := range live {
				if !p.members[s.Name] {
					lose(at(s), "not a witness member, but upstream counts every trusted key as a witness")
				}
			}
			if w.DistinctIdentities {
				first := map[string]*signerInfo{}
				for _, s := range live {
					if o, shared := first[s.Identity]; shared {
						lose("/witnesses/distinctIdentities", "lost: signers %q and %q share identity %q and upstream counts them as two witnesses", o.Name, s.Name, s.Identity)
						continue
					}
					first[s.Identity] = s
				}
			}
		}
	}
	if t := p.tlog; t != nil {
		lose("/transparency", "the tlog policy (%d logs, %d witnesses, quorum %s) has no upstream equivalent and is dropped", len(t.Logs), len(t.Witnesses), t.Quorum)
	}
	return out
}

// ErrIdentityNotExportable is the error with which ExportUpstream refuses a policy with an
// identity signer.
var ErrIdentityNotExportable = errors.New("the policy cannot be exported to the upstream format")

// ExportUpstream is [Policy.Upstream] with the projection checked against
// the upstream policy schema (a projection that fails it is a bug, never
// written): the one place outside verification where the upstream schema
// is applied to a policy. A policy with an identity signer is refused
// (ErrIdentityNotExportable).
func (p *Policy) ExportUpstream(val *validator.Validator) (doc *canonjson.Value, losses []string, err error) {
	for _, si := range p.signers {
		if si.IsIdentity() {
			return nil, nil, fmt.Errorf("%w: /signers/%d (%q) is an identity signer (%s); an upstream %s policy lists key fingerprints only, and a keyless signer has no fixed key (each signature has its own ephemeral key), so no projection keeps it", ErrIdentityNotExportable, si.index, si.Name, si.CertificateIdentity, bundle.SchemaVersionTrustPolicy)
		}
	}
	if val == nil {
		val = validator.New()
	}
	up, losses := p.Upstream()
	if errs := val.SchemaErrors(schema.TrustPolicy, up); len(errs) > 0 {
		return nil, nil, fmt.Errorf("the projection fails the %s schema: %s %s", bundle.SchemaVersionTrustPolicy, errs[0].InstancePath, errs[0].Message)
	}
	return up, losses, nil
}
