package keyless

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mcpres/mcpres/attest"
	material "github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// The stable diagnostics of keyless verification, one per failing check.
const (
	CodeTrustedRootMismatch  = "MCPRES_KEYLESS_TRUSTED_ROOT_MISMATCH"  // the trusted_root.json given is not the one the policy names
	CodeMaterialInvalid      = "MCPRES_KEYLESS_MATERIAL_INVALID"       // the Sigstore bundle is unreadable or not a certificate + DSSE bundle
	CodeNoTimestamp          = "MCPRES_KEYLESS_NO_TIMESTAMP"           // no RFC 3161 timestamp: a 10-minute certificate proves nothing about when
	CodeUntrustedTSA         = "MCPRES_KEYLESS_UNTRUSTED_TIMESTAMP"    // no timestamp verifies under a trusted timestamp authority
	CodeOutsideValidity      = "MCPRES_KEYLESS_TIMESTAMP_OUTSIDE_CERT" // the timestamp is outside the certificate's validity
	CodeUntrustedCA          = "MCPRES_KEYLESS_UNTRUSTED_CA"           // the certificate does not chain to a trusted Fulcio CA at that time
	CodeSCTInvalid           = "MCPRES_KEYLESS_SCT_INVALID"            // the trusted root lists CT logs and no SCT of theirs verifies
	CodeSignatureInvalid     = "MCPRES_KEYLESS_SIGNATURE_INVALID"      // the signature does not verify under the certificate key
	CodeIssuerMismatch       = "MCPRES_KEYLESS_ISSUER_MISMATCH"        // no identity signer has the certificate's issuer
	CodeIdentityMismatch     = "MCPRES_KEYLESS_IDENTITY_MISMATCH"      // the issuer matches, the identity does not
	CodeExtensionMismatch    = "MCPRES_KEYLESS_EXTENSION_MISMATCH"     // issuer and identity match, an extension does not
	CodeEnvelopeMissing      = "MCPRES_KEYLESS_ENVELOPE_MISSING"       // the attested bundle has no envelope with this signature
	CodeOtherKey             = "MCPRES_KEYLESS_OTHER_KEY"              // the envelope's key is not the certified key
	CodeStatementIdentity    = "MCPRES_KEYLESS_STATEMENT_IDENTITY"     // the envelope's signer identity is not the certificate's
	CodeNoIdentitySigners    = "MCPRES_KEYLESS_NO_IDENTITY_SIGNERS"    // the policy has no identity signer
	maxSigstoreBundle        = material.MaxMaterialBytes
	maxSigstoreBundlesPerRun = material.MaxMaterial
)

// A Failure is a failed keyless check: a stable Code and what was found.
type Failure struct {
	Code, Detail string
}

func (f *Failure) Error() string { return f.Code + ": " + f.Detail }

func fail(code, format string, args ...any) *Failure {
	return &Failure{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// A Certification is what a verified keyless signature establishes: the
// policy's identity signer Signer certified Key for Identity (issuer
// Issuer) at the verified Timestamp, and the attested bundle's envelope
// Envelope carries that signature.
type Certification struct {
	Signer           string
	Identity, Issuer string
	Key              ed25519.PublicKey
	Timestamp        time.Time
	Envelope         int
}

// Material is the verification material of identity signers: a Sigstore
// trusted root, checked against the policy's digest and parsed once.
type Material struct {
	policy *trustpolicy.Document
	root   *trustedRoot
	ids    []identitySigner
}

type identitySigner struct {
	name string
	ci   *trustpolicy.CertificateIdentity
	id   verify.CertificateIdentity
}

// NewMaterial checks that trustedRoot (the bytes of trusted_root.json) is
// the one policy names and parses it with sigstore-go. It reads no file
// and opens no connection.
func NewMaterial(policy *trustpolicy.Document, trustedRoot []byte) (*Material, error) {
	m := &Material{policy: policy}
	for _, s := range policy.Signers {
		if s.CertificateIdentity == nil {
			continue
		}
		id, err := certificateIdentity(s.CertificateIdentity)
		if err != nil {
			return nil, fmt.Errorf("signer %q: %v", s.Name, err)
		}
		m.ids = append(m.ids, identitySigner{name: s.Name, ci: s.CertificateIdentity, id: id})
	}
	if len(m.ids) == 0 {
		return nil, fail(CodeNoIdentitySigners, "policy %s has no identity signer: verify key signatures with attest verify", policy.ID)
	}
	if policy.TrustedRoot == nil || canonjson.BytesDigest(trustedRoot) != policy.TrustedRoot.SHA256 {
		want := "none"
		if policy.TrustedRoot != nil {
			want = policy.TrustedRoot.SHA256
		}
		return nil, fail(CodeTrustedRootMismatch, "the trusted root given has SHA-256 %s; policy %s names %s", canonjson.BytesDigest(trustedRoot), policy.ID, want)
	}
	r, err := root.NewTrustedRootFromJSON(trustedRoot)
	if err != nil {
		return nil, fail(CodeTrustedRootMismatch, "the trusted root does not parse: %v", err)
	}
	m.root = newTrustedRoot(r)
	return m, nil
}

// certificateIdentity is the sigstore-go matcher of a policy's identity
// signer: issuer exact, SAN exact or by expression, extensions exact.
func certificateIdentity(ci *trustpolicy.CertificateIdentity) (verify.CertificateIdentity, error) {
	san, err := verify.NewSANMatcher(ci.Identity, ci.IdentityRegexp)
	if err != nil {
		return verify.CertificateIdentity{}, err
	}
	iss, err := verify.NewIssuerMatcher(ci.Issuer, "")
	if err != nil {
		return verify.CertificateIdentity{}, err
	}
	var ext certificate.Extensions
	if e := ci.Extensions; e != nil {
		ext = certificate.Extensions{
			SourceRepositoryURI: e.SourceRepositoryURI, SourceRepositoryRef: e.SourceRepositoryRef,
			SourceRepositoryDigest: e.SourceRepositoryDigest, SourceRepositoryIdentifier: e.SourceRepositoryIdentifier,
			SourceRepositoryOwnerURI: e.SourceRepositoryOwnerURI, SourceRepositoryOwnerIdentifier: e.SourceRepositoryOwnerIdentifier,
			SourceRepositoryVisibilityAtSigning: e.SourceRepositoryVisibilityAtSigning,
			BuildSignerURI:                      e.BuildSignerURI, BuildSignerDigest: e.BuildSignerDigest,
			BuildConfigURI: e.BuildConfigURI, BuildConfigDigest: e.BuildConfigDigest,
			BuildTrigger: e.BuildTrigger, RunnerEnvironment: e.RunnerEnvironment,
		}
	}
	return verify.NewCertificateIdentity(san, iss, ext)
}

// Certify verifies one Sigstore bundle offline against the material and
// binds it to an envelope of the attested bundle wrapper, in this order,
// each failure its own Code: the bundle reads (certificate + DSSE); it
// has an RFC 3161 timestamp; one verifies under a trusted timestamp
// authority; it is inside the certificate's validity; the certificate
// chains to a trusted Fulcio CA at that time; its SCTs verify when the
// trusted root lists CT logs; the signature verifies under the
// certificate key (each step sigstore-go's); an identity signer's issuer, identity and
// extensions match the certificate; an envelope of wrapper carries the
// same payload and signature, under the certified key, with the
// certificate's identity as its signer identity.
func (m *Material) Certify(sigstoreBundle []byte, wrapper *canonjson.Value) (*Certification, error) {
	return m.certify(sigstoreBundle, wrapper, false)
}

// certify is [Material.Certify]. With gated, the certification is for a
// policy that only the gate evaluates ([Material.Resolved]): the gate
// verifies every envelope's signature under the envelope's key (E6), so
// when an envelope of wrapper carries the Sigstore bundle's payload type,
// payload and signature under the certificate's key, sigstore-go's
// verification of that signature is the gate's E6 done twice and is left
// to the gate (a bad signature is then the gate's
// MCP_RES_ATTESTATION_SIGNATURE_INVALID); when none does, sigstore-go
// verifies it here as Certify does, so every other diagnostic stays
// where it is.
func (m *Material) certify(sigstoreBundle []byte, wrapper *canonjson.Value, gated bool) (*Certification, error) {
	if len(sigstoreBundle) > maxSigstoreBundle {
		return nil, fail(CodeMaterialInvalid, "the Sigstore bundle is larger than %d bytes", maxSigstoreBundle)
	}
	var b sgbundle.Bundle
	if err := b.UnmarshalJSON(sigstoreBundle); err != nil {
		return nil, fail(CodeMaterialInvalid, "not a Sigstore bundle: %v", err)
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, fail(CodeMaterialInvalid, "%v", err)
	}
	leaf := vc.Certificate()
	if leaf == nil {
		return nil, fail(CodeMaterialInvalid, "the Sigstore bundle holds a public key, not a certificate: it is not a keyless signature")
	}
	env := b.GetDsseEnvelope()
	if env == nil || len(env.Signatures) != 1 {
		return nil, fail(CodeMaterialInvalid, "the Sigstore bundle does not hold one DSSE signature")
	}
	if ts, err := b.Timestamps(); err != nil || len(ts) == 0 {
		return nil, fail(CodeNoTimestamp, "the Sigstore bundle has no RFC 3161 timestamp: nothing proves the signature was made while the certificate was valid")
	}
	verified, err := verify.VerifySignedTimestampWithThreshold(&b, m.root, 1)
	if err != nil || len(verified) == 0 {
		return nil, fail(CodeUntrustedTSA, "no timestamp verifies under a timestamp authority of the trusted root: %v", err)
	}
	at := verified[0].Time
	if at.Before(leaf.NotBefore) || at.After(leaf.NotAfter) {
		return nil, fail(CodeOutsideValidity, "the timestamp %s is outside the certificate's validity %s … %s", at.UTC().Format(time.RFC3339), leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	chains, err := verify.VerifyLeafCertificate(at, leaf, m.root)
	if err != nil {
		return nil, fail(CodeUntrustedCA, "the certificate does not chain to a Fulcio CA of the trusted root at %s: %v", at.UTC().Format(time.RFC3339), err)
	}
	if len(m.root.CTLogs()) > 0 {
		if err := verify.VerifySignedCertificateTimestamp(chains, 1, m.root); err != nil {
			return nil, fail(CodeSCTInvalid, "the trusted root lists CT logs and the certificate has no SCT from one of them: %v", err)
		}
	}
	sigContent, err := b.SignatureContent()
	if err != nil {
		return nil, fail(CodeMaterialInvalid, "%v", err)
	}
	if !gated || !carried(wrapper, env, leaf.PublicKey) {
		if err := verify.VerifySignature(sigContent, vc, m.root); err != nil {
			return nil, fail(CodeSignatureInvalid, "the signature does not verify under the certificate's key (sigstore-go: %v)", err)
		}
	}
	sum, err := certificate.SummarizeCertificate(leaf)
	if err != nil {
		return nil, fail(CodeMaterialInvalid, "the certificate's identity cannot be read: %v", err)
	}
	signer, err := m.match(sum)
	if err != nil {
		return nil, err
	}
	key, ok := leaf.PublicKey.(ed25519.PublicKey)
	if !ok {
		return nil, fail(CodeOtherKey, "the certificate's key is not Ed25519 (MCPRES-AUTHN-003)")
	}
	i, err := bindEnvelope(wrapper, env.PayloadType, env.Payload, env.Signatures[0].Sig, key, sum.SubjectAlternativeName)
	if err != nil {
		return nil, err
	}
	return &Certification{Signer: signer, Identity: sum.SubjectAlternativeName, Issuer: sum.Extensions.Issuer, Key: key, Timestamp: at, Envelope: i}, nil
}

// match returns the first identity signer whose issuer, identity and
// extensions match the certificate, or the most specific mismatch: issuer
// (no signer has this issuer), then identity, then extension.
func (m *Material) match(sum certificate.Summary) (string, error) {
	var issuerOK, identityOK *identitySigner
	var identityErr, extErr error
	for i := range m.ids {
		s := &m.ids[i]
		if err := s.id.Issuer.Verify(sum); err != nil {
			continue
		}
		issuerOK = s
		if err := s.id.SubjectAlternativeName.Verify(sum); err != nil {
			identityErr = err
			continue
		}
		identityOK = s
		if err := certificate.CompareExtensions(s.id.Extensions, sum.Extensions); err != nil {
			extErr = err
			continue
		}
		return s.name, nil
	}
	switch {
	case issuerOK == nil:
		return "", fail(CodeIssuerMismatch, "the certificate's issuer %q is no identity signer's", sum.Extensions.Issuer)
	case identityOK == nil:
		return "", fail(CodeIdentityMismatch, "the certificate's identity %q matches no identity signer of issuer %q (%v)", sum.SubjectAlternativeName, sum.Extensions.Issuer, identityErr)
	}
	return "", fail(CodeExtensionMismatch, "the certificate of %q: %v", sum.SubjectAlternativeName, extErr)
}

// carried says whether an envelope of wrapper carries env's payload type,
// payload and one signature, the same as env's, under key.
func carried(wrapper *canonjson.Value, env *protodsse.Envelope, key crypto.PublicKey) bool {
	k, ok := key.(ed25519.PublicKey)
	if !ok || len(env.Signatures) != 1 {
		return false
	}
	_, s := findEnvelope(wrapper, env.PayloadType, env.Payload, env.Signatures[0].Sig)
	if s == nil {
		return false
	}
	pub, err := signatureKey(s)
	return err == nil && pub.Equal(k)
}

// signatureKey is the Ed25519 key of signature s of an envelope
// (publicKeySpkiBase64), or why it has none.
func signatureKey(s *canonjson.Value) (ed25519.PublicKey, error) {
	der, ok := b64(s, "publicKeySpkiBase64")
	if !ok {
		return nil, errors.New("publicKeySpkiBase64 is not strict base64")
	}
	return keyfile.ParseSPKI(der)
}

// findEnvelope is the first envelope of wrapper with this payload type,
// payload and one signature sig, and that signature; -1 and nil when
// there is none (or wrapper has no envelopes).
func findEnvelope(wrapper *canonjson.Value, payloadType string, payload, sig []byte) (int, *canonjson.Value) {
	envs := wrapper.Path("authenticity", "envelopes")
	if !envs.Is(canonjson.Array) {
		return -1, nil
	}
	for i, e := range envs.Items {
		p, ok1 := b64(e, "payload")
		pt := e.Get("payloadType")
		sigs := e.Get("signatures")
		if !ok1 || !pt.Is(canonjson.String) || pt.Str != payloadType || !sigs.Is(canonjson.Array) || len(sigs.Items) != 1 {
			continue
		}
		s := sigs.Items[0]
		if es, ok := b64(s, "sig"); ok && bytes.Equal(p, payload) && bytes.Equal(es, sig) {
			return i, s
		}
	}
	return -1, nil
}

// bindEnvelope finds the envelope of wrapper with this payload type,
// payload and signature and checks its key and signer identity; it
// returns its index.
func bindEnvelope(wrapper *canonjson.Value, payloadType string, payload, sig []byte, key ed25519.PublicKey, identity string) (int, error) {
	if !wrapper.Path("authenticity", "envelopes").Is(canonjson.Array) {
		return 0, fail(CodeEnvelopeMissing, "the document is not an attested bundle with envelopes")
	}
	i, s := findEnvelope(wrapper, payloadType, payload, sig)
	if s != nil {
		pub, err := signatureKey(s)
		if err != nil {
			return i, fail(CodeOtherKey, "envelope %d: %v", i, err)
		}
		if !pub.Equal(key) {
			return i, fail(CodeOtherKey, "envelope %d is under another key than the certificate's", i)
		}
		if got := s.Get("signerIdentity"); !got.Is(canonjson.String) || got.Str != identity {
			return i, fail(CodeStatementIdentity, "envelope %d does not name the certificate's identity %q as its signer identity", i, identity)
		}
		return i, nil
	}
	return 0, fail(CodeEnvelopeMissing, "no envelope of the attested bundle carries the Sigstore bundle's signature")
}

// b64 decodes the strict base64 string member key of obj (false when obj
// is not an object, the member is absent, not a string or not strict
// base64).
func b64(obj *canonjson.Value, key string) ([]byte, bool) {
	if !obj.Is(canonjson.Object) {
		return nil, false
	}
	v := obj.Get(key)
	if !v.Is(canonjson.String) {
		return nil, false
	}
	b, err := keyfile.DecodeStrictBase64(v.Str)
	return b, err == nil
}

// Resolve returns the policy with a key signer added for each
// certification ([Material.ResolveIn] of the material's own policy).
func (m *Material) Resolve(certs []*Certification) (*trustpolicy.Document, error) {
	return m.ResolveIn(m.policy, certs)
}

// ResolveIn returns base (the material's policy, or the same policy bound
// to another trustPolicyId) with a key signer added for each
// certification: the certified key under the certificate's identity, with
// the identity signer's roles, subjects and window, named NAME.N and
// listed among the witnesses where NAME is. Identity signers stay (they
// trust no key): an envelope without a certification is not trusted.
func (m *Material) ResolveIn(base *trustpolicy.Document, certs []*Certification) (*trustpolicy.Document, error) {
	d := base.Clone()
	seen := map[string]bool{} // certified keys already added (a Sigstore bundle given twice counts once)
	for n, c := range certs {
		if seen[string(c.Key)] {
			continue
		}
		seen[string(c.Key)] = true
		var from *trustpolicy.Signer
		for i := range d.Signers {
			if d.Signers[i].Name == c.Signer && d.Signers[i].CertificateIdentity != nil {
				from = &d.Signers[i]
			}
		}
		if from == nil {
			return nil, fmt.Errorf("certification %d names no identity signer of the policy", n)
		}
		spki, err := x509.MarshalPKIXPublicKey(c.Key)
		if err != nil {
			return nil, err
		}
		base := c.Signer
		if len(base) > 56 {
			base = base[:56]
		}
		name := base + "." + strconv.Itoa(n)
		if d.Witnesses != nil && slices.Contains(d.Witnesses.Members, c.Signer) {
			d.Witnesses.Members = append(d.Witnesses.Members, name)
		}
		d.AddSigner(trustpolicy.Signer{Name: name, Identity: c.Identity, PublicKey: base64.StdEncoding.EncodeToString(spki),
			Roles: from.Roles, ValidFrom: from.ValidFrom, ValidUntil: from.ValidUntil, Subjects: from.Subjects})
	}
	return d, nil
}

// PolicyFor is the policy one attested bundle is verified against (what
// attest verify asks of mcpres-sigstore): [Material.Resolved] opened with
// o. When a Sigstore bundle does not verify, the policy is base refusing
// the bundle with the failing check's code ([attest.LoadedPolicy.Refused]):
// the result is INVALID with it.
func (m *Material) PolicyFor(base *trustpolicy.Document, wrapper *canonjson.Value, sigstoreBundles [][]byte, o trustpolicy.OpenOptions) (*attest.LoadedPolicy, []string) {
	d, notes, f := m.Resolved(base, wrapper, sigstoreBundles)
	if f != nil {
		return trustpolicy.Open(base.Value(), o).Refused(&attest.Failure{Code: f.Code, Detail: f.Detail}), nil
	}
	return trustpolicy.Open(d.Value(), o), notes
}

// Resolved certifies each of sigstoreBundles against wrapper (as
// [Material.Certify] does, except that a signature an envelope of wrapper
// carries is left to the gate that evaluates the policy returned, which
// verifies every envelope: see certify) and returns base with the
// certified keys added ([Material.ResolveIn]) and one note per
// certification, for the result's evaluation notes; or the first failing
// check. Its policy is for the gate only: nothing else may take a key it
// adds as proof that the signature verified.
func (m *Material) Resolved(base *trustpolicy.Document, wrapper *canonjson.Value, sigstoreBundles [][]byte) (*trustpolicy.Document, []string, *Failure) {
	if len(sigstoreBundles) > maxSigstoreBundlesPerRun {
		return nil, nil, fail(CodeMaterialInvalid, "%d Sigstore bundles for one attested bundle: at most %d", len(sigstoreBundles), maxSigstoreBundlesPerRun)
	}
	var certs []*Certification
	var notes []string
	for i, sb := range sigstoreBundles {
		c, err := m.certify(sb, wrapper, true)
		if err != nil {
			f, ok := err.(*Failure)
			if !ok {
				f = fail(CodeMaterialInvalid, "%v", err)
			}
			if len(sigstoreBundles) > 1 {
				f = &Failure{Code: f.Code, Detail: fmt.Sprintf("Sigstore bundle %d: %s", i+1, f.Detail)}
			}
			return nil, nil, f
		}
		certs = append(certs, c)
		notes = append(notes, fmt.Sprintf("keyless: envelope %d is certified for identity signer %q: %s (issuer %s), timestamp %s",
			c.Envelope, c.Signer, c.Identity, c.Issuer, c.Timestamp.UTC().Format(time.RFC3339)))
	}
	d, err := m.ResolveIn(base, certs)
	if err != nil {
		return nil, nil, fail(CodeMaterialInvalid, "%v", err)
	}
	return d, notes, nil
}

// ErrNoMaterial is the error when an attested bundle was given no
// Sigstore bundle.
var ErrNoMaterial = errors.New("no Sigstore bundle")
