package attest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// Diagnostic codes of the attestation validator (REFERENCE §5.8).
const (
	CodeSignatureMissing        = "MCP_RES_ATTESTATION_SIGNATURE_MISSING"
	CodeAlgorithmUnsupported    = "MCP_RES_ATTESTATION_ALGORITHM_UNSUPPORTED"
	CodeSchemaInvalid           = "MCP_RES_ATTESTATION_SCHEMA_INVALID"
	CodeAttestedEvidenceInvalid = "MCP_RES_ATTESTED_EVIDENCE_INVALID"
	CodeClassificationOverclaim = "MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM"
	CodeTrustPolicyExpired      = "MCP_RES_TRUST_POLICY_EXPIRED"
	CodeDuplicateSigner         = "MCP_RES_ATTESTATION_DUPLICATE_SIGNER"
	CodeSignatureInvalid        = "MCP_RES_ATTESTATION_SIGNATURE_INVALID"
	CodeIdentityMismatch        = "MCP_RES_ATTESTATION_IDENTITY_MISMATCH"
	CodeBindingMismatch         = "MCP_RES_ATTESTATION_BINDING_MISMATCH"
	CodeKeyRevoked              = "MCP_RES_ATTESTATION_KEY_REVOKED"
	CodeUntrustedSigner         = "MCP_RES_ATTESTATION_UNTRUSTED_SIGNER"
	CodeTransparencyInvalid     = "MCP_RES_TRANSPARENCY_REFERENCE_INVALID"
	TransparencyNone            = "NONE"
	TransparencyDigestOnly      = "DIGEST_ONLY"
	TransparencyVerifiedOffline = "VERIFIED_OFFLINE"
	TransparencyFailed          = "FAILED"
)

// Options configure one verification.
type Options struct {
	// Policy is the trust policy, opened once for any number of
	// verifications (trustpolicy.Open reads either format; a document
	// that does not load is reported at step G6, as the reference does),
	// or nil when no policy was supplied: at most SIGNED is then derived.
	Policy *LoadedPolicy
	// EvaluatedAt is the evaluation time as it is echoed in the result; it
	// must be a valid date-time (REFERENCE §1.7). Verify never reads a clock.
	EvaluatedAt string
	// Validator validates the embedded bundle and the schemas.
	Validator *validator.Validator
}

// EnvelopeEvaluation says what was established about one envelope.
type EnvelopeEvaluation struct {
	Index          int    `json:"index"`
	KeyFingerprint string `json:"keyFingerprint"`
	SignerIdentity string `json:"signerIdentity"`
	SignatureValid bool   `json:"signatureValid"`
	Trusted        bool   `json:"trusted"`
	Revoked        bool   `json:"revoked"`
	// Transparency is NONE, or DIGEST_ONLY when the statement carries a
	// transparency reference whose proof bytes match their SHA-256: no log,
	// inclusion proof or checkpoint was verified (REFERENCE §6.10), or
	// VERIFIED_OFFLINE when a policy verified the proof against a log it
	// trusts (inclusion, signed checkpoint, witness cosignatures), or FAILED
	// when the reference failed its digest check or the policy's offline
	// verification (MCP_RES_TRANSPARENCY_REFERENCE_INVALID or the policy's
	// diagnostic: the result is invalid).
	Transparency string `json:"transparency"`
	// Verified is what the policy verified about the transparency reference
	// when Transparency is VERIFIED_OFFLINE, else nil. It is not part of
	// the result object.
	Verified *VerifiedTransparency `json:"-"`
	// SigningTime is the statement's signingTime as signed, once the
	// statement decoded and bound the bundle (E10), else "". It is not
	// part of the result object.
	SigningTime string `json:"-"`
	// Reference is the statement's transparency reference as signed, once
	// its proof digest matched (DIGEST_ONLY or VERIFIED_OFFLINE), else nil;
	// its logId and entryUuid are the signer's claim unless Verified says
	// otherwise. It is not part of the result object.
	Reference *TransparencyReference `json:"-"`
}

// Evaluation records what a verification evaluated, for the result.
type Evaluation struct {
	EvaluatedAt string `json:"evaluatedAt"`
	// PolicySupplied is true when a policy was given; PolicyID and
	// PolicyVersion are set once it has been evaluated (G6), and stay null
	// when an earlier check decided the result.
	PolicySupplied bool                 `json:"policySupplied"`
	PolicyID       *string              `json:"policyId"`
	PolicyVersion  *string              `json:"policyVersion"`
	Envelopes      []EnvelopeEvaluation `json:"envelopes"`
	// DistinctKeys counts the envelopes' keys by SPKI fingerprint.
	DistinctKeys int `json:"distinctKeys"`
	// Notes explain the derived level, with counts.
	Notes []string `json:"notes"`
}

// Result is the outcome of verifying an attested bundle (REFERENCE §5.3).
type Result struct {
	validator.Result
	// Level is the derived authenticity level; meaningful only when Valid.
	Level Level
	// EvidenceClass is bundle.statement.evidenceClass, echoed unchanged
	// (the schema holds it to the enum), when HasEvidenceClass: a valid
	// result with envelopes. Without envelopes the upstream result omits
	// it, and so does this one.
	EvidenceClass    bundle.EvidenceClass
	HasEvidenceClass bool
	EvaluatedAt      string
	Evaluation       Evaluation
	// Subject is what the attested bundle is about; set only when Valid.
	Subject Subject
	// StatementResult is bundle.statement.result (PASS, FAIL or
	// INCOMPLETE): the reliability result the evidence records, which no
	// signature changes (MCPRES-AUTHN-001); set only when Valid. It is not
	// part of the upstream result object: a [Gate] judges it.
	StatementResult string
}

// Value renders the result object: the upstream members
// {"valid","diagnostics","schemaErrors","authenticityClassification",
// "evidenceClass","evaluatedAt"} followed by mcpres's "evaluation".
func (r Result) Value() *canonjson.Value {
	v := r.Result.Value()
	if r.Valid {
		v.Set("authenticityClassification", canonjson.NewString(r.Level.String()))
		if r.HasEvidenceClass {
			v.Set("evidenceClass", canonjson.NewString(r.EvidenceClass.String()))
		}
	}
	v.Set("evaluatedAt", canonjson.NewString(r.EvaluatedAt))
	v.Set("evaluation", r.Evaluation.value())
	return v
}

// value is canonjson.FromGo(ev), built without reflection (a batch
// builds one per file); TestEvaluationValue holds the two equal.
func (ev Evaluation) value() *canonjson.Value {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	optional := func(s *string) *canonjson.Value {
		if s == nil {
			return canonjson.NewNull()
		}
		return canonjson.NewString(*s)
	}
	envelopes := canonjson.NewNull()
	if ev.Envelopes != nil {
		items := make([]*canonjson.Value, len(ev.Envelopes))
		for i, e := range ev.Envelopes {
			items[i] = canonjson.NewObject(
				m("index", canonjson.NewInt(int64(e.Index))),
				m("keyFingerprint", canonjson.NewString(e.KeyFingerprint)),
				m("signerIdentity", canonjson.NewString(e.SignerIdentity)),
				m("signatureValid", canonjson.NewBool(e.SignatureValid)),
				m("trusted", canonjson.NewBool(e.Trusted)),
				m("revoked", canonjson.NewBool(e.Revoked)),
				m("transparency", canonjson.NewString(e.Transparency)))
		}
		envelopes = canonjson.NewArray(items...)
	}
	notes := canonjson.NewNull()
	if ev.Notes != nil {
		items := make([]*canonjson.Value, len(ev.Notes))
		for i, n := range ev.Notes {
			items[i] = canonjson.NewString(n)
		}
		notes = canonjson.NewArray(items...)
	}
	return canonjson.NewObject(
		m("evaluatedAt", canonjson.NewString(ev.EvaluatedAt)),
		m("policySupplied", canonjson.NewBool(ev.PolicySupplied)),
		m("policyId", optional(ev.PolicyID)),
		m("policyVersion", optional(ev.PolicyVersion)),
		m("envelopes", envelopes),
		m("distinctKeys", canonjson.NewInt(int64(ev.DistinctKeys))),
		m("notes", notes))
}

type predicate struct {
	EvidenceBundleDigest    string                 `json:"evidenceBundleDigest"`
	ScenarioFingerprint     string                 `json:"scenarioFingerprint"`
	ExecutionInstanceDigest string                 `json:"executionInstanceDigest"`
	Profile                 *canonjson.Value       `json:"profile"`
	Validator               *canonjson.Value       `json:"validator"`
	SignerIdentity          string                 `json:"signerIdentity"`
	SignerKeyFingerprint    string                 `json:"signerKeyFingerprint"`
	SignatureAlgorithm      string                 `json:"signatureAlgorithm"`
	SigningTime             string                 `json:"signingTime"`
	TrustPolicyID           string                 `json:"trustPolicyId"`
	TransparencyReference   *TransparencyReference `json:"transparencyReference"`
}

type statementSubject struct {
	Name   string `json:"name"`
	Digest struct {
		Sha256 string `json:"sha256"`
	} `json:"digest"`
}

type statement struct {
	Type          string             `json:"_type"`
	Subject       []statementSubject `json:"subject"`
	PredicateType string             `json:"predicateType"`
	Predicate     predicate          `json:"predicate"`
}

type verification struct {
	o       Options
	wrapper *canonjson.Value
	bundle  *canonjson.Value
	policy  TrustPolicy
	at      datetime.Instant
	res     Result
	keyIDs  map[string]bool
	facts   []EnvelopeFacts
	// claim, when not nil, is verified instead of the wrapper's claim
	// (signing checks what is there at the level any signer can check).
	claim *Level
	// canon holds the canonical encoding of the last envelope's statement
	// (E8), its array reused by the next envelope's.
	canon []byte
}

// Verify verifies an attested conformance bundle in exactly the order of
// REFERENCE §5.3 and §6.3–§6.4 (G1–G8, E1–E14) and derives its
// authenticity level (§6.2). It uses only the wrapper, the embedded public
// keys, the embedded schemas and the optional policy: no network, no clock
// (the evaluation time is o.EvaluatedAt).
//
// What Verify checks: the core validity of the embedded bundle (a valid
// signature over invalid evidence is invalid), each envelope's single
// signature with strict Ed25519 rules (small-order keys and R, S ≥ L and
// non-canonical encodings rejected), the canonical statement and its
// binding to the bundle, signer identity and key fingerprint, a
// transparency reference's proof bytes against their SHA-256 (E14: a
// mismatch is MCP_RES_TRANSPARENCY_REFERENCE_INVALID), and, with a
// policy, its window, the signing times, revocations and trust, and the
// transparency reference as the policy verifies it offline
// ([TrustPolicy.Transparency]; trustpolicy.Policy with a transparency
// section verifies the log entry's binding, the inclusion proof, the log's
// signed checkpoint and the witness quorum): the envelope's evaluation
// then says VERIFIED_OFFLINE and carries what was verified
// ([VerifiedTransparency]), and a reference the policy rejects fails with
// the policy's diagnostic (FAILED). What it does not check: a reference no
// policy verifies beyond the SHA-256 of its proof bytes (without a policy,
// with mcp-res.trust-policy/0.2.0, or with a policy that leaves it: the
// evaluation says DIGEST_ONLY and its logId and entryUuid stay the
// signer's claim), and anything about who a signer identity really is
// beyond the policy's pairing of identity and key.
//
// A non-nil error is an *validator.InputError (MCP_RES_INPUT_INVALID, exit
// 2); otherwise the Result holds the verdict.
func Verify(wrapper *canonjson.Value, o Options) (Result, error) {
	var v verification
	if err := v.init(wrapper, o); err != nil {
		return Result{}, err
	}
	if err := v.run(); err != nil {
		return Result{}, err
	}
	return v.res, nil
}

// VerifySigned is [Verify] without judging the claimed classification,
// which only a trust policy can: everything any verifier can check
// without a policy is checked, in Verify's order (the wrapper's schema,
// the embedded bundle's core validity, and each envelope's signature,
// canonical statement, binding and identity, E1–E14), with the claim
// read as SIGNED (UNSIGNED_INTEGRITY_ONLY when there is no envelope). It
// is what Cosign checks before adding an envelope, and what a
// transparency log checks before it logs an attested bundle. A claim above
// SIGNED is left to the verifier's policy; the result's notes say so. o
// must carry no policy. Errors are Verify's.
func VerifySigned(wrapper *canonjson.Value, o Options) (Result, error) {
	if o.Policy != nil {
		return Result{}, errors.New("attest: VerifySigned takes no policy")
	}
	var v verification
	if err := v.initSigned(wrapper, o); err != nil {
		return Result{}, err
	}
	if err := v.run(); err != nil {
		return Result{}, err
	}
	return v.res, nil
}

// initSigned is init for VerifySigned: the claim is SIGNED, or
// UNSIGNED_INTEGRITY_ONLY for a wrapper whose envelopes are an empty array.
func (v *verification) initSigned(wrapper *canonjson.Value, o Options) error {
	if err := v.init(wrapper, o); err != nil {
		return err
	}
	probe := Signed
	if envs := wrapper.Path("authenticity", "envelopes"); envs.Is(canonjson.Array) && len(envs.Items) == 0 {
		probe = UnsignedIntegrityOnly
	}
	v.claim = &probe
	return nil
}

// init prepares the verification of wrapper. (A method on a value the
// caller declares, so that Verify keeps it off the heap.)
func (v *verification) init(wrapper *canonjson.Value, o Options) error {
	at, err := datetime.Parse(o.EvaluatedAt)
	if err != nil {
		return fmt.Errorf("attest: evaluation time: %w", err)
	}
	if o.Validator == nil {
		o.Validator = validator.New()
	}
	*v = verification{o: o, wrapper: wrapper, at: at, keyIDs: map[string]bool{}}
	v.res.EvaluatedAt = o.EvaluatedAt
	v.res.Evaluation = Evaluation{EvaluatedAt: o.EvaluatedAt, PolicySupplied: o.Policy != nil, Envelopes: []EnvelopeEvaluation{}, Notes: []string{}}
	return nil
}

func (v *verification) fail(code, detail string) error {
	v.res.Result = validator.Fail(code, detail)
	return errDone
}

func (v *verification) failSchema(detail string, errs []schema.Error) error {
	v.res.Result = validator.Fail(CodeSchemaInvalid, detail)
	v.res.SchemaErrors = errs
	return errDone
}

// errDone stops the check sequence once the result is decided.
var errDone = errors.New("decided")

func (v *verification) run() error {
	err := v.checks()
	if errors.Is(err, errDone) {
		return nil
	}
	return err
}

func (v *verification) checks() error {
	if err := v.preScan(); err != nil { // G1
		return err
	}
	if errs := v.o.Validator.SchemaErrors(schema.AttestedConformanceBundle, v.wrapper); len(errs) > 0 { // G2
		return v.failSchema("attested bundle: "+schema.Summary(errs), errs)
	}
	v.bundle = v.wrapper.Get("bundle")
	// G3. G2 checked the bundle against its schema (a plain $ref).
	core, err := v.o.Validator.BundleWith(v.bundle, validator.BundleOptions{SchemaChecked: true})
	if err != nil {
		return err
	}
	if !core.Valid {
		v.res.Result = validator.Result{
			Diagnostics:  append([]string{CodeAttestedEvidenceInvalid}, core.Diagnostics...),
			SchemaErrors: core.SchemaErrors,
			Detail:       "the attested bundle is invalid: " + core.Detail,
		}
		return errDone
	}
	auth := v.wrapper.Get("authenticity")
	claim, _ := ParseLevel(auth.Get("claimedClassification").Str) // schema-checked enum
	if v.claim != nil {
		if claim != *v.claim {
			v.res.Evaluation.Notes = append(v.res.Evaluation.Notes, fmt.Sprintf("the claim %s was not judged (that needs a trust policy): verified as %s", claim, *v.claim))
		}
		claim = *v.claim
	}
	envelopes := auth.Get("envelopes").Items
	if len(envelopes) == 0 { // G4
		if claim == UnsignedIntegrityOnly {
			v.res.Result = validator.Pass()
			v.res.Level = UnsignedIntegrityOnly
			v.res.Subject = BundleSubject(v.bundle)
			v.res.StatementResult = v.bundle.Path("statement", "result").Str
			return errDone
		}
		return v.fail(CodeSignatureMissing, "claim "+claim.String()+" without any envelope")
	}
	if claim == UnsignedIntegrityOnly { // G5
		return v.fail(CodeClassificationOverclaim, "claim UNSIGNED_INTEGRITY_ONLY with envelopes present")
	}
	if err := v.loadPolicy(); err != nil { // G6
		return err
	}
	for i, env := range envelopes { // G7
		if err := v.envelope(i, env); err != nil {
			return err
		}
	}
	return v.decide(claim, len(envelopes)) // G8
}

// preScan is G1: envelope shapes checked before the schema, so that a
// missing signature or a foreign algorithm gets its own diagnostic.
func (v *verification) preScan() error {
	auth := v.wrapper.Get("authenticity")
	if !auth.Is(canonjson.Object) {
		return nil
	}
	envs := auth.Get("envelopes")
	switch {
	case envs == nil || envs.Kind == canonjson.Null:
		return nil
	case envs.Kind == canonjson.Object && len(envs.Members) == 0, envs.Kind == canonjson.String && envs.Str == "":
		return nil
	case envs.Kind == canonjson.String:
		// The JavaScript reference iterates the characters; none has signatures.
		return v.fail(CodeSignatureMissing, "authenticity.envelopes is a string")
	case envs.Kind != canonjson.Array:
		return &validator.InputError{Reason: "authenticity.envelopes is a " + envs.Kind.String() + ", not an array"}
	}
	for i, env := range envs.Items {
		switch env.Kind {
		case canonjson.Null:
			return &validator.InputError{Reason: fmt.Sprintf("authenticity.envelopes[%d] is null", i)}
		case canonjson.Object:
		default:
			return v.fail(CodeSignatureMissing, fmt.Sprintf("envelope %d is not an object", i))
		}
		sigs := env.Get("signatures")
		if !sigs.Is(canonjson.Array) || len(sigs.Items) == 0 {
			return v.fail(CodeSignatureMissing, fmt.Sprintf("envelope %d has no signatures", i))
		}
		for j, sig := range sigs.Items {
			switch sig.Kind {
			case canonjson.Null:
				return &validator.InputError{Reason: fmt.Sprintf("authenticity.envelopes[%d].signatures[%d] is null", i, j)}
			case canonjson.Object:
			default:
				return v.fail(CodeAlgorithmUnsupported, fmt.Sprintf("envelope %d signature %d is not an object", i, j))
			}
			if alg := sig.Get("algorithm"); !alg.Is(canonjson.String) || alg.Str != Algorithm {
				return v.fail(CodeAlgorithmUnsupported, fmt.Sprintf("envelope %d signature %d: algorithm is not Ed25519", i, j))
			}
		}
	}
	return nil
}

// loadPolicy is G6: take the policy loaded for the batch, report a load
// that failed, then check that it is in force at the evaluation time.
func (v *verification) loadPolicy() error {
	if v.o.Policy == nil {
		return nil
	}
	lp := v.o.Policy
	if lp.err != nil {
		return lp.err
	}
	if len(lp.errs) > 0 {
		return v.failSchema("trust policy: "+schema.Summary(lp.errs), prefixErrors(lp.errs, "policy"))
	}
	p := lp.policy
	v.policy = p
	id, version := p.ID(), p.Version()
	v.res.Evaluation.PolicyID, v.res.Evaluation.PolicyVersion = &id, &version
	if f := p.InForce(v.at.Time(), v.o.EvaluatedAt); f != nil {
		return v.fail(f.Code, f.Detail)
	}
	if f := lp.refusal; f != nil {
		return v.fail(f.Code, f.Detail)
	}
	return nil
}

// prefixErrors marks schema errors of the policy so they are not mistaken
// for errors in the attested bundle. The pointer stays RFC 6901 relative to
// the policy document; the keyword is unchanged.
func prefixErrors(errs []schema.Error, doc string) []schema.Error {
	out := slices.Clone(errs)
	for i := range out {
		out[i].Message = doc + ": " + out[i].Message
	}
	return out
}

// statementArenas lend envelope the memory of its statement's parse tree:
// a batch reads two statements a bundle, thousands of bundles, each the
// shape of the one before (canonjson.Arena).
var statementArenas = sync.Pool{New: func() any { return new(canonjson.Arena) }}

// envelope runs E1–E14 on envelope i (schema-valid at this point).
func (v *verification) envelope(i int, env *canonjson.Value) error {
	where := "envelope " + strconv.Itoa(i) + ": "
	sigs := env.Get("signatures").Items
	if len(sigs) != 1 { // E1
		return v.fail(CodeDuplicateSigner, where+fmt.Sprintf("%d signatures; each envelope carries exactly one", len(sigs)))
	}
	sig := sigs[0]
	keyID := sig.Get("keyid").Str
	identity := sig.Get("signerIdentity").Str
	ee := EnvelopeEvaluation{Index: i, KeyFingerprint: keyID, SignerIdentity: identity, Transparency: TransparencyNone}
	v.res.Evaluation.Envelopes = append(v.res.Evaluation.Envelopes, ee)
	record := func(f func(*EnvelopeEvaluation)) { f(&v.res.Evaluation.Envelopes[len(v.res.Evaluation.Envelopes)-1]) }
	if v.keyIDs[keyID] { // E2
		return v.fail(CodeDuplicateSigner, where+"key "+keyID+" already signed this bundle")
	}
	v.keyIDs[keyID] = true
	v.res.Evaluation.DistinctKeys = len(v.keyIDs)

	payload, err := keyfile.DecodeStrictBase64(env.Get("payload").Str) // E3
	if err != nil {
		return v.fail(CodeSignatureInvalid, where+"payload: "+err.Error())
	}
	der, err := keyfile.DecodeStrictBase64(sig.Get("publicKeySpkiBase64").Str)
	if err != nil {
		return v.fail(CodeSignatureInvalid, where+"publicKeySpkiBase64: "+err.Error())
	}
	rawSig, err := keyfile.DecodeStrictBase64(sig.Get("sig").Str)
	if err != nil {
		return v.fail(CodeSignatureInvalid, where+"sig: "+err.Error())
	}
	if ed25519strict.SPKIFingerprint(der) != keyID { // E4
		return v.fail(CodeIdentityMismatch, where+"keyid is not the SHA-256 of the public key")
	}
	pub, err := keyfile.ParseSPKI(der) // E5
	if err != nil {
		return v.fail(CodeSignatureInvalid, where+err.Error())
	}
	if err := ed25519strict.Verify(pub, PAE(env.Get("payloadType").Str, payload), rawSig); err != nil { // E6
		return v.fail(CodeSignatureInvalid, where+err.Error())
	}
	record(func(e *EnvelopeEvaluation) { e.SignatureValid = true })

	arena := statementArenas.Get().(*canonjson.Arena)
	defer func() { arena.Reset(); statementArenas.Put(arena) }() // nothing below keeps a part of the tree: st's *Value fields die with st
	parsed, err := arena.ParseLenient(payload)                   // E7
	if err != nil {
		return v.fail(CodeSchemaInvalid, where+"payload is not JSON: "+err.Error())
	}
	if cap(v.canon) < len(payload) {
		v.canon = make([]byte, 0, len(payload))
	}
	canon, err := canonjson.AppendCanonical(v.canon[:0], parsed)
	v.canon = canon // the next envelope's, most often the same size
	if err != nil {
		return &validator.InputError{Reason: where + "signed payload has no canonical form: " + err.Error()}
	}
	if !bytes.Equal(canon, payload) { // E8
		return v.fail(CodeSchemaInvalid, where+"payload is not the canonical encoding of the statement")
	}
	if errs := v.o.Validator.SchemaErrors(schema.InTotoStatement, parsed); len(errs) > 0 { // E9
		return v.failSchema(where+"statement: "+schema.Summary(errs), prefixErrors(errs, fmt.Sprintf("envelope %d statement", i)))
	}
	var st statement
	if err := canonjson.Unmarshal(parsed, &st); err != nil {
		return &validator.InputError{Reason: where + "schema-valid statement does not decode: " + err.Error()}
	}
	if why := v.binding(&st); why != "" { // E10
		return v.fail(CodeBindingMismatch, where+why)
	}
	record(func(e *EnvelopeEvaluation) { e.SigningTime = st.Predicate.SigningTime })
	p := &st.Predicate
	if p.SignerIdentity != identity || p.SignerKeyFingerprint != keyID { // E11
		return v.fail(CodeIdentityMismatch, where+"signed signerIdentity/signerKeyFingerprint differ from the signature's")
	}
	if p.SignatureAlgorithm != Algorithm { // E12
		return v.fail(CodeAlgorithmUnsupported, where+"predicate.signatureAlgorithm is not Ed25519")
	}
	t, err := datetime.Parse(p.SigningTime)
	if err != nil {
		return &validator.InputError{Reason: where + "signingTime: " + err.Error()}
	}
	facts := EnvelopeFacts{Index: i, KeyID: keyID, PublicKey: pub, SignerIdentity: identity,
		SigningTime: t.Time(), SigningTimeText: p.SigningTime, TrustPolicyID: p.TrustPolicyID, Transparency: p.TransparencyReference,
		SubjectName: st.Subject[0].Name, SubjectDigest: st.Subject[0].Digest.Sha256, EvidenceBundleDigest: p.EvidenceBundleDigest,
		ScenarioFingerprint: p.ScenarioFingerprint, ExecutionInstanceDigest: p.ExecutionInstanceDigest, EvaluatedAt: v.at.Time()}
	ev := &v.res.Evaluation.Envelopes[len(v.res.Evaluation.Envelopes)-1]
	if v.policy != nil { // E13
		if f := v.policy.Envelope(&facts, v.at.Time(), ev); f != nil {
			return v.fail(f.Code, where+f.Detail)
		}
	}
	if ref := p.TransparencyReference; ref != nil { // E14
		proof, err := keyfile.DecodeStrictBase64(ref.InclusionProofBase64)
		if err != nil {
			ev.Transparency = TransparencyFailed
			return v.fail(CodeTransparencyInvalid, where+"inclusionProofBase64: "+err.Error())
		}
		if canonjson.BytesDigest(proof) != ref.InclusionProofSha256 {
			ev.Transparency = TransparencyFailed
			return v.fail(CodeTransparencyInvalid, where+"inclusionProofSha256 is not the SHA-256 of the proof bytes")
		}
		ev.Transparency, ev.Reference = TransparencyDigestOnly, ref
		if v.policy != nil {
			verified, f := v.policy.Transparency(&facts, proof)
			if f != nil {
				ev.Transparency = TransparencyFailed
				return v.fail(f.Code, where+f.Detail)
			}
			if verified != nil {
				ev.Transparency, ev.Verified = TransparencyVerifiedOffline, verified
			}
		}
		// A reference to an entry that names its signers binds only theirs
		// (after the policy's check of the bundle binding, which names a
		// reference for another bundle as such; with no policy, too).
		if err := offline.CheckEntrySigner(proof, keyID, identity); err != nil {
			ev.Transparency, ev.Verified = TransparencyFailed, nil
			return v.fail(CodeTransparencyInvalid, where+err.Error())
		}
	}
	v.facts = append(v.facts, facts)
	return nil
}

// binding is E10: the statement must attest exactly this bundle.
func (v *verification) binding(st *statement) string {
	b := v.bundle
	ev := b.Get("evidence")
	p := &st.Predicate
	switch {
	case len(st.Subject) != 1:
		return fmt.Sprintf("statement has %d subjects, want exactly 1", len(st.Subject))
	case st.Subject[0].Name != ev.Path("subject", "name").Str:
		return "subject name differs from the bundle's subject"
	case st.Subject[0].Digest.Sha256 != ev.Path("subject", "artifactSha256").Str:
		return "subject digest differs from the bundle's subject artifact"
	case p.EvidenceBundleDigest != b.Path("integrity", "bundleDigest").Str:
		return "evidenceBundleDigest differs from the bundle's bundleDigest"
	case p.ScenarioFingerprint != ev.Path("scenario", "fingerprint").Str:
		return "scenarioFingerprint differs from the bundle's"
	case p.ExecutionInstanceDigest != b.Path("statement", "executionInstanceDigest").Str:
		return "executionInstanceDigest differs from the bundle's"
	case !canonjson.Equal(p.Profile, ev.Get("profile")):
		return "profile differs from the bundle's"
	case !canonjson.Equal(p.Validator, b.Path("statement", "validator")):
		return "validator differs from the bundle's"
	}
	return ""
}

// decide is G8 (REFERENCE §6.2): the policy derives the level; a claim of
// SIGNED_WITH_IDENTITY or more needs every signer trusted, and no claim may
// exceed the derived level.
func (v *verification) decide(claim Level, n int) error {
	d := Derivation{Level: Signed, Notes: []string{"no trust policy: only SIGNED can be derived"}}
	if v.policy != nil {
		d = v.policy.Derive(v.facts, v.res.Evaluation.Envelopes)
	}
	v.res.Evaluation.Notes = append(v.res.Evaluation.Notes, d.Notes...)
	if claim >= SignedWithIdentity && !d.AllTrusted {
		why := "no trust policy was supplied"
		if v.policy != nil {
			why = "not every envelope's key and identity are trusted by the policy"
		}
		return v.fail(CodeUntrustedSigner, fmt.Sprintf("claim %s needs every signer trusted: %s", claim, why))
	}
	if claim > d.Level {
		return v.fail(CodeClassificationOverclaim, fmt.Sprintf("claim %s exceeds the derived level %s (%s); %s", claim, d.Level, strings.Join(d.Notes, "; "), overclaimRemedy(claim, d.Level)))
	}
	v.res.Result = validator.Pass()
	v.res.Level = d.Level
	v.res.Subject = BundleSubject(v.bundle)
	v.res.StatementResult = v.bundle.Path("statement", "result").Str
	class, err := bundle.ParseEvidenceClass(v.bundle.Path("statement", "evidenceClass").Str)
	if err != nil {
		return &validator.InputError{Reason: "schema-valid statement.evidenceClass does not parse: " + err.Error()}
	}
	v.res.EvidenceClass, v.res.HasEvidenceClass = class, true
	return errDone
}

// overclaimRemedy says what each side can do about a claim above the
// level the verifier's policy derives. The claim is the producer's and is
// judged whatever the verifier's gate asks (REFERENCE §6.2: a claim above
// the derived level fails): the producer can sign again claiming no more
// than what its consumers' policies derive, and the consumer can give its
// policy what the claimed level needs.
func overclaimRemedy(claim, derived Level) string {
	needs := map[Level]string{
		SignedWithIdentity:   "a trusted key and identity for every signer",
		Witnessed:            "a witnesses rule that the co-signers meet",
		TransparencyRecorded: "a transparency section naming the log and the witnesses that cosign its checkpoints",
	}[claim]
	s := fmt.Sprintf("what each side can do: the producer can sign again claiming %s or less (a claim is judged whatever the verifier's gate requires, and a claim of %s meets a gate that requires %s)", derived, derived, derived)
	if needs != "" {
		s += fmt.Sprintf("; the verifier's trust policy can establish %s with %s", claim, needs)
	}
	return s
}
