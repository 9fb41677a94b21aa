package attest

import (
	"crypto"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// MaxEnvelopes is the most envelopes an attested bundle may carry: the
// maxItems of authenticity.envelopes in the schema (REFERENCE §3.2.2).
const MaxEnvelopes = 8

// BundleSignOptions configure [SignBundle] and [Cosign].
type BundleSignOptions struct {
	SignOptions
	// Claim is the claimed classification of the attested bundle. When nil,
	// SignBundle claims SIGNED, the highest level a signer can honestly
	// claim without knowing the verifier's trust policy, and Cosign keeps
	// the claim (SIGNED when there was no envelope yet: envelopes under
	// UNSIGNED_INTEGRITY_ONLY would be an over-claim).
	Claim *Level
	// Validator validates the bundle; nil means a new one.
	Validator *validator.Validator
	// RequireQuorum, when not nil, is the trust (a tlog policy's: the logs
	// and witnesses consumers verify references with) whose quorum the
	// transparency reference of the new envelope (SignOptions.Transparency)
	// must satisfy: it is verified with offline.Witnessed (the log's
	// signature, the binding to the bundle, each witness's cosignature,
	// counted under the verifier's time rule at its EvaluatedAt, which is
	// required: the signer's clock) and a reference that does not satisfy
	// the quorum, or is not a c2sp.org/tlog-proof, is refused
	// (RefusedQuorum). Without a reference it is ignored.
	RequireQuorum *offline.Trust
}

// Signing is what [SignBundle] or [Cosign] did.
type Signing struct {
	// Attested is the attested bundle to write.
	Attested *canonjson.Value
	// Envelope is the envelope that was added, the last of Attested's.
	Envelope *canonjson.Value
	// KeyID is the signing key's SPKI fingerprint (lowercase hex SHA-256).
	KeyID string
	// Claim is Attested's claimed classification; Envelopes counts its
	// envelopes.
	Claim     Level
	Envelopes int
	// Cosigned is true when the envelope was appended to an attested
	// bundle (Cosign).
	Cosigned bool
	// References counts the envelopes whose statement carries a
	// transparency reference.
	References int
	// Transparency is the kind of the proof of the new envelope's
	// transparency reference (SignOptions.Transparency; offline.DetectKind),
	// when it has one. A c2sp.org/tlog-proof was checked to bind the
	// bundle; of another kind only the SHA-256 could be checked at
	// signing ([Signing.TransparencyUnchecked]).
	Transparency *offline.Kind
	// Witnessing is what the witnesses of BundleSignOptions.RequireQuorum
	// gave the reference's checkpoint, when it was given (the quorum is
	// then satisfied); else nil.
	Witnessing *offline.Witnessing
	// cosignatures are the cosignature-shaped lines of the reference's
	// checkpoint, unverified, when it is a c2sp.org/tlog-proof.
	cosignatures []signednote.SigLine
}

// QuorumUnchecked says, for an attested bundle that claims
// TRANSPARENCY_RECORDED on the strength of the new envelope's reference,
// what signing could not know about the witness quorum consumers will
// require, or "" when there is nothing to say (another claim, no
// reference, or a quorum checked with BundleSignOptions.RequireQuorum): a
// checkpoint with no cosignature satisfies no witness quorum, and
// cosignatures that were not verified may not satisfy the consumers'.
func (s *Signing) QuorumUnchecked() string {
	if s.Claim != TransparencyRecorded || s.Transparency == nil || *s.Transparency != offline.KindTLogProof || s.Witnessing != nil {
		return ""
	}
	if len(s.cosignatures) == 0 {
		return "the transparency reference's checkpoint carries no witness cosignature: it satisfies no witness quorum, so a trust policy that requires one fails " +
			TransparencyRecorded.String() + " (have the witnesses cosign, then get a fresh reference)"
	}
	return fmt.Sprintf("the transparency reference's checkpoint carries %d cosignature(s) (%s), not verified at signing: whether they satisfy the consumers' witness quorum is known only when they verify (check it now with --require-quorum TLOG-POLICY)",
		len(s.cosignatures), offline.FormatSigLines(s.cosignatures))
}

// TransparencyUnchecked says what signing could not check of the new
// envelope's transparency reference, or "" when it checked all of it
// (none given, or a c2sp.org/tlog-proof that binds the bundle).
func (s *Signing) TransparencyUnchecked() string {
	if s.Transparency == nil || *s.Transparency == offline.KindTLogProof {
		return ""
	}
	return fmt.Sprintf("the transparency reference is %s: only its SHA-256 was checked; a trust policy with a transparency section verifies c2sp.org/tlog-proof references (and Rekor v1 entries, with mcpres-sigstore)", *s.Transparency)
}

// transparencyCheck is what checkTransparency established.
type transparencyCheck struct {
	kind         *offline.Kind
	witnessing   *offline.Witnessing
	cosignatures []signednote.SigLine
}

// checkTransparency checks, before b is signed, the transparency reference
// ref its statement will carry: its proof is strict base64 and, for a
// c2sp.org/tlog-proof, binds b and names its checkpoint origin and leaf
// index (offline.CheckReference). A proof of another kind can only be
// digest-checked here. A tlog-proof of an mcpres.transparency-entry/v2
// must name signer's key with identity (offline.CheckEntrySigner). With quorum, the reference must be a tlog-proof
// whose cosignatures satisfy the quorum (offline.Witnessed). It returns
// the proof's kind (nil without ref); a failure is a RefusedTransparency
// or RefusedQuorum *SignError.
func checkTransparency(ref *TransparencyReference, b *canonjson.Value, quorum *offline.Trust, signer crypto.Signer, identity string) (transparencyCheck, error) {
	var c transparencyCheck
	if ref == nil {
		return c, nil
	}
	proof, err := keyfile.DecodeStrictBase64(ref.InclusionProofBase64)
	if err != nil {
		return c, &SignError{Refusal: RefusedTransparency, Err: fmt.Errorf("inclusionProofBase64: %w", err)}
	}
	kind := offline.DetectKind(proof)
	if err := offline.CheckReference(ref.LogID, ref.EntryUUID, proof, b); err != nil && (!errors.Is(err, offline.ErrNotTLogProof) || kind == offline.KindTLogProof) {
		return c, &SignError{Refusal: RefusedTransparency, Err: err}
	}
	if pub, err := ed25519strict.SignerPublicKey(signer); err == nil { // else Sign refuses the signer
		if err := offline.CheckEntrySigner(proof, ed25519strict.Fingerprint(pub), identity); err != nil {
			return c, &SignError{Refusal: RefusedTransparency, Err: err}
		}
	}
	c.kind = &kind
	if kind == offline.KindTLogProof {
		c.cosignatures, _ = offline.CosignatureLines(proof) // CheckReference parsed it
	}
	if quorum == nil {
		return c, nil
	}
	if kind != offline.KindTLogProof {
		return c, &SignError{Refusal: RefusedQuorum, Err: fmt.Errorf("the reference is %s: only a c2sp.org/tlog-proof's cosignatures can be counted", kind)}
	}
	w, err := offline.Witnessed(proof, offline.EntryFor(b), *quorum)
	if err != nil {
		return c, &SignError{Refusal: RefusedQuorum, Err: err}
	}
	if !w.Satisfied() {
		return c, &SignError{Refusal: RefusedQuorum, Err: errors.New(w.String()), Witnessing: w}
	}
	c.witnessing = w
	return c, nil
}

// ClaimUnreachable says why no trust policy can derive the claim of the
// attested bundle as signed, or "" when one can: WITNESSED needs two
// distinct keys (every envelope's key is distinct: a key that already
// signed is refused), TRANSPARENCY_RECORDED a transparency reference.
// Verification fails such a claim (MCP_RES_AUTHENTICITY_CLASSIFICATION_
// OVERCLAIM) until co-signers add what is missing; co-signing keeps the
// claim.
func (s *Signing) ClaimUnreachable() string {
	switch {
	case s.Claim == Witnessed && s.Envelopes < 2:
		return fmt.Sprintf("%s needs at least two distinct keys, and the attested bundle has %d envelope", Witnessed, s.Envelopes)
	case s.Claim == TransparencyRecorded && s.References == 0:
		return fmt.Sprintf("%s needs a transparency reference, and no envelope of the attested bundle carries one", TransparencyRecorded)
	}
	return ""
}

// ClaimBeyond verifies the attested bundle s made against a trust policy
// (the producer's own, as its consumers are expected to have it) at
// evaluatedAt, and says why its claim exceeds what that policy derives,
// or "" when the policy derives the claim (or fails the bundle for
// another reason, which its verifier reports). Consumers judge the claim
// with their own policies: one that derives less fails the bundle
// (MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM or
// MCP_RES_ATTESTATION_UNTRUSTED_SIGNER) whatever its gate requires.
func (s *Signing) ClaimBeyond(policy *LoadedPolicy, evaluatedAt string, val *validator.Validator) (string, error) {
	r, err := Verify(s.Attested, Options{EvaluatedAt: evaluatedAt, Validator: val, Policy: policy})
	if err != nil {
		return "", err
	}
	if r.Valid || len(r.Diagnostics) != 1 {
		return "", nil
	}
	switch r.Diagnostics[0] {
	case CodeClassificationOverclaim, CodeUntrustedSigner:
		return r.Diagnostics[0] + ": " + r.Detail, nil
	}
	return "", nil
}

// references counts the envelopes verified so far that carry a
// transparency reference.
func (v *verification) references() int {
	n := 0
	for _, e := range v.res.Evaluation.Envelopes {
		if e.Transparency != TransparencyNone {
			n++
		}
	}
	return n
}

// A Refusal says why [SignBundle] or [Cosign] signed nothing.
type Refusal int

// The refusals, with what a [SignError] carries for each.
const (
	// RefusedInput: the bundle (or, co-signing, the attested bundle) is
	// not an input that can be validated; Err is the *validator.InputError.
	RefusedInput Refusal = iota + 1
	// RefusedInvalidEvidence: the bundle is invalid (Evidence); invalid
	// evidence is never signed.
	RefusedInvalidEvidence
	// RefusedUnverified: the attested bundle being co-signed does not
	// verify at SIGNED, or UNSIGNED_INTEGRITY_ONLY without an envelope,
	// with no policy (Verification).
	RefusedUnverified
	// RefusedFull: the attested bundle already holds MaxEnvelopes
	// envelopes (Envelopes).
	RefusedFull
	// RefusedKeyAlreadySigned: the key already signed the bundle, as
	// SignerIdentity; one key is one signer, never two witnesses.
	RefusedKeyAlreadySigned
	// RefusedWouldNotVerify: the new envelope does not verify (its
	// options are beyond the schema's bounds): Verification, or Err for an
	// input error.
	RefusedWouldNotVerify
	// RefusedTransparency: the transparency reference to embed
	// (SignOptions.Transparency) is a c2sp.org/tlog-proof that does not
	// bind the bundle, or names another log or entry, or its proof is not
	// strict base64 (Err).
	RefusedTransparency
	// RefusedQuorum: BundleSignOptions.RequireQuorum was given and the
	// reference's cosignatures do not satisfy its quorum (Witnessing says
	// who cosigned and who is missing), or the reference does not verify
	// against it (Err).
	RefusedQuorum
)

// A SignError is a refusal of [SignBundle] or [Cosign]; nothing was signed
// that could be written.
type SignError struct {
	Refusal      Refusal
	Err          error
	Evidence     *validator.Result
	Verification *Result
	Envelopes    int
	KeyID        string
	// SignerIdentity is the identity the key already signed as.
	SignerIdentity string
	// Witnessing is what the witnesses gave the reference (RefusedQuorum,
	// when it verified but the quorum is not satisfied).
	Witnessing *offline.Witnessing
}

func (e *SignError) Error() string {
	switch e.Refusal {
	case RefusedInput:
		return "attest: refusing to sign: " + e.Err.Error()
	case RefusedInvalidEvidence:
		return "attest: refusing to sign invalid evidence: " + strings.Join(e.Evidence.Diagnostics, ", ") + ": " + e.Evidence.Detail
	case RefusedUnverified:
		return "attest: refusing to co-sign an attested bundle that does not verify: " + strings.Join(e.Verification.Diagnostics, ", ") + ": " + e.Verification.Detail
	case RefusedFull:
		return fmt.Sprintf("attest: refusing to co-sign: the attested bundle already holds %d envelopes, the most an attested bundle may carry", e.Envelopes)
	case RefusedKeyAlreadySigned:
		return fmt.Sprintf("attest: refusing to co-sign: key %s already signed this bundle (as %q); one key is one signer, never two witnesses", e.KeyID, e.SignerIdentity)
	case RefusedWouldNotVerify:
		if e.Err != nil {
			return "attest: the attested bundle would not verify: " + e.Err.Error()
		}
		return "attest: refusing to write an attested bundle that would not verify: " + strings.Join(e.Verification.Diagnostics, ", ") + ": " + e.Verification.Detail
	case RefusedTransparency:
		return "attest: refusing to sign: the transparency reference does not bind this bundle: " + e.Err.Error()
	case RefusedQuorum:
		return "attest: refusing to sign: the transparency reference does not satisfy the required witness quorum: " + e.Err.Error()
	}
	return fmt.Sprintf("attest: refusal %d", int(e.Refusal))
}

func (e *SignError) Unwrap() error { return e.Err }

// SignBundle signs the conformance bundle b with signer (see [Sign]) and returns an
// mcp-res.attested-conformance-bundle/0.2.0 holding b itself and one
// envelope (REFERENCE §6.11). b is validated once, first: invalid evidence
// is never signed. The new envelope is then verified (schema, E1–E14, with
// no policy) without validating b again, so that options beyond the
// schema's bounds are refused before anything is written. A refusal is a
// *SignError; no clock is read (the signing time is o.SigningTime).
func SignBundle(b *canonjson.Value, signer crypto.Signer, o BundleSignOptions) (*Signing, error) {
	if o.Validator == nil {
		o.Validator = validator.New()
	}
	r, err := o.Validator.Bundle(b)
	if err != nil {
		return nil, &SignError{Refusal: RefusedInput, Err: err}
	}
	if !r.Valid {
		return nil, &SignError{Refusal: RefusedInvalidEvidence, Evidence: &r}
	}
	tc, err := checkTransparency(o.Transparency, b, o.RequireQuorum, signer, o.SignerIdentity)
	if err != nil {
		return nil, err
	}
	env, err := Sign(b, signer, o.SignOptions)
	if err != nil {
		return nil, err
	}
	claim := Signed
	if o.Claim != nil {
		claim = *o.Claim
	}
	w := Wrap(b, claim, env)
	v := &verification{}
	if err := v.init(w, Options{EvaluatedAt: o.SigningTime, Validator: o.Validator}); err != nil {
		return nil, err
	}
	v.bundle = b
	if err := v.addEnvelope(0, env); err != nil {
		return nil, err
	}
	return &Signing{Attested: w, Envelope: env, KeyID: env.Get("signatures").Items[0].Get("keyid").Str, Claim: claim, Envelopes: 1, References: v.references(),
		Transparency: tc.kind, Witnessing: tc.witnessing, cosignatures: tc.cosignatures}, nil
}

// Cosign appends an envelope signed by signer (see [Sign]) to the attested bundle
// wrapper, which it does not change: this is how a co-signer (witness)
// adds its signature, and how WITNESSED is reached. What is there is
// verified once, first, at the level any signer can check without a
// policy (SIGNED, or UNSIGNED_INTEGRITY_ONLY when there is no envelope
// yet); then a key that already signed is refused, and the new envelope is
// verified as the next one (schema, E1–E14) without verifying the others
// again. A refusal is a *SignError; no clock is read.
func Cosign(wrapper *canonjson.Value, signer crypto.Signer, o BundleSignOptions) (*Signing, error) {
	if o.Validator == nil {
		o.Validator = validator.New()
	}
	claim := o.Claim
	envs := wrapper.Path("authenticity", "envelopes")
	if envs.Is(canonjson.Array) && len(envs.Items) == 0 {
		if claim == nil {
			signed := Signed
			claim = &signed
		}
	} else if envs.Is(canonjson.Array) && len(envs.Items) >= MaxEnvelopes {
		return nil, &SignError{Refusal: RefusedFull, Envelopes: len(envs.Items)}
	}
	v := &verification{}
	if err := v.initSigned(wrapper, Options{EvaluatedAt: o.SigningTime, Validator: o.Validator}); err != nil {
		return nil, err
	}
	if err := v.run(); err != nil {
		return nil, &SignError{Refusal: RefusedInput, Err: err}
	}
	if !v.res.Valid {
		return nil, &SignError{Refusal: RefusedUnverified, Verification: &v.res}
	}
	tc, err := checkTransparency(o.Transparency, v.bundle, o.RequireQuorum, signer, o.SignerIdentity)
	if err != nil {
		return nil, err
	}
	env, err := Sign(v.bundle, signer, o.SignOptions)
	if err != nil {
		return nil, err
	}
	keyID := env.Get("signatures").Items[0].Get("keyid").Str
	for _, e := range v.res.Evaluation.Envelopes {
		if e.KeyFingerprint == keyID {
			return nil, &SignError{Refusal: RefusedKeyAlreadySigned, KeyID: keyID, SignerIdentity: e.SignerIdentity}
		}
	}
	n := len(v.res.Evaluation.Envelopes)
	if err := v.addEnvelope(n, env); err != nil {
		return nil, err
	}
	out := wrapper.Clone()
	auth := out.Get("authenticity")
	all := auth.Get("envelopes")
	all.Items = append(all.Items, env)
	if claim != nil {
		auth.Set("claimedClassification", canonjson.NewString(claim.String()))
	}
	level, _ := ParseLevel(auth.Get("claimedClassification").Str) // verified above
	return &Signing{Attested: out, Envelope: env, KeyID: keyID, Claim: level, Envelopes: len(all.Items), Cosigned: true, References: v.references(),
		Transparency: tc.kind, Witnessing: tc.witnessing, cosignatures: tc.cosignatures}, nil
}

// addEnvelope verifies env, just signed, as envelope i of the attestation
// verified so far (the bundle is valid, envelopes 0..i-1 verified): its
// schema, as step G2 would check it in the attested bundle, then E1–E14.
// Nothing before it is verified again.
func (v *verification) addEnvelope(i int, env *canonjson.Value) error {
	err := func() error {
		if errs := v.o.Validator.SchemaErrors(schema.DSSEEnvelope, env); len(errs) > 0 {
			at := fmt.Sprintf("/authenticity/envelopes/%d", i)
			for j := range errs {
				errs[j].InstancePath = at + errs[j].InstancePath
			}
			return v.failSchema("attested bundle: "+schema.Summary(errs), errs)
		}
		return v.envelope(i, env)
	}()
	switch {
	case errors.Is(err, errDone):
		return &SignError{Refusal: RefusedWouldNotVerify, Verification: &v.res}
	case err != nil:
		return &SignError{Refusal: RefusedWouldNotVerify, Err: err}
	}
	return nil
}
