package attesttest

import (
	"crypto/ed25519"
	"encoding/base64"
	"math/big"
	"slices"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
)

// A Case is one attestation corpus case.
type Case struct {
	ID          string
	Wrapper     *canonjson.Value
	Policy      *canonjson.Value // nil: no policy
	Expected    []string         // expected diagnostics; empty when valid
	Level       string           // derived level when valid
	EvaluatedAt string
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sign(b *canonjson.Value, key ed25519.PrivateKey, o attest.SignOptions) *canonjson.Value {
	return must(attest.Sign(b, key, o))
}

// sig returns the single signature object of env.
func sig(env *canonjson.Value) *canonjson.Value { return env.Get("signatures").Items[0] }

// Corpus builds the 17 cases of REFERENCE §9.4 over base (a valid sealed
// bundle) and other (a different valid bundle, for the "signature over a
// different bundle" case), followed by mcpres's own cases (§9.4 recommended
// additions and issue #3's acceptance list).
func Corpus(base, other *canonjson.Value) []Case {
	one, two := TestOnlyKeyOne(), TestOnlyKeyTwo()
	env1 := func() *canonjson.Value { return sign(base, one, Options(IdentityOne)) }
	env2 := func() *canonjson.Value { return sign(base, two, Options(IdentityTwo)) }
	b := func() *canonjson.Value { return base.Clone() }
	test := Policy(PolicyOptions{})
	wrap := attest.Wrap
	var cs []Case
	add := func(id string, w, policy *canonjson.Value, level string, expected ...string) {
		if expected == nil {
			expected = []string{}
		}
		cs = append(cs, Case{ID: id, Wrapper: w, Policy: policy, Expected: expected, Level: level, EvaluatedAt: EvaluatedAt})
	}

	add("unsigned-integrity-only", wrap(b(), attest.UnsignedIntegrityOnly), nil, "UNSIGNED_INTEGRITY_ONLY")
	add("signed-untrusted-allowed-at-signed-level", wrap(b(), attest.Signed, env1()), nil, "SIGNED")
	add("signed-with-identity", wrap(b(), attest.SignedWithIdentity, env1()), test, "SIGNED_WITH_IDENTITY")
	add("witnessed", wrap(b(), attest.Witnessed, env1(), env2()), test, "WITNESSED")
	withRef := Options(IdentityOne)
	withRef.Transparency = TestTransparency()
	add("transparency-recorded", wrap(b(), attest.TransparencyRecorded, sign(base, one, withRef)), test, "TRANSPARENCY_RECORDED")

	altered := env1()
	payload := must(base64.StdEncoding.DecodeString(altered.Get("payload").Str))
	payload[len(payload)-1] ^= 0x01
	altered.Set("payload", canonjson.NewString(base64.StdEncoding.EncodeToString(payload)))
	add("altered-payload", wrap(b(), attest.Signed, altered), test, "", attest.CodeSignatureInvalid)

	st := attest.Statement(base, KeyID(one), Options(IdentityOne))
	st.Get("subject").Items[0].Path("digest").Set("sha256", canonjson.NewString(zeros64))
	add("altered-subject", wrap(b(), attest.Signed, must(attest.SignPayload(must(canonjson.Canonical(st)), one, IdentityOne))), test, "", attest.CodeBindingMismatch)

	wrongKey := env1()
	twoDER := ed25519strict.MarshalSPKI(two.Public().(ed25519.PublicKey))
	sig(wrongKey).Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString(twoDER)))
	sig(wrongKey).Set("keyid", canonjson.NewString(ed25519strict.SPKIFingerprint(twoDER)))
	add("wrong-key", wrap(b(), attest.Signed, wrongKey), test, "", attest.CodeSignatureInvalid)

	missing := env1()
	missing.Set("signatures", canonjson.NewArray())
	add("missing-signature", wrap(b(), attest.Signed, missing), test, "", attest.CodeSignatureMissing)

	rsa := env1()
	sig(rsa).Set("algorithm", canonjson.NewString("RSA-PSS"))
	add("unsupported-algorithm", wrap(b(), attest.Signed, rsa), test, "", attest.CodeAlgorithmUnsupported)

	add("signature-over-different-bundle", wrap(b(), attest.Signed, sign(other, one, Options(IdentityOne))), test, "", attest.CodeBindingMismatch)
	add("expired-trust-policy", wrap(b(), attest.SignedWithIdentity, env1()), Policy(PolicyOptions{ValidUntil: "2026-01-02T00:00:00.000Z"}), "", attest.CodeTrustPolicyExpired)
	add("revoked-test-key", wrap(b(), attest.SignedWithIdentity, env1()), Policy(PolicyOptions{Revoked: []string{KeyID(one)}}), "", attest.CodeKeyRevoked)
	add("duplicate-signer", wrap(b(), attest.Witnessed, env1(), env1()), test, "", attest.CodeDuplicateSigner)

	mismatch := env1()
	sig(mismatch).Set("signerIdentity", canonjson.NewString("test://mcp-res/disposable/different"))
	add("signer-identity-mismatch", wrap(b(), attest.SignedWithIdentity, mismatch), test, "", attest.CodeIdentityMismatch)
	add("valid-signature-untrusted-key", wrap(b(), attest.SignedWithIdentity, env1()), Policy(PolicyOptions{Trusted: []string{}}), "", attest.CodeUntrustedSigner)

	bad := b()
	bad.Path("evidence", "operations").Items[1].Get("negativeObservation").Set("observedStopReason", canonjson.NewString("WRONG_REASON"))
	if err := bundle.SealFrom(bad, bundle.StageObservations); err != nil {
		panic(err)
	}
	add("valid-signature-invalid-evidence", wrap(bad, attest.SignedWithIdentity, sign(bad, one, Options(IdentityOne))), test, "",
		attest.CodeAttestedEvidenceInvalid, "MCP_RES_WRONG_STOP_REASON")

	// mcpres's own cases (REFERENCE §9.4 recommended additions; issue #3).
	forged := forgedIdentityEnvelope(base)
	add("identity-key-forgery", wrap(b(), attest.Signed, forged), nil, "", attest.CodeSignatureInvalid)

	malleable := env1()
	raw := must(base64.StdEncoding.DecodeString(sig(malleable).Get("sig").Str))
	sig(malleable).Set("sig", canonjson.NewString(base64.StdEncoding.EncodeToString(addL(raw))))
	add("signature-s-plus-l", wrap(b(), attest.Signed, malleable), nil, "", attest.CodeSignatureInvalid)

	leap := Policy(PolicyOptions{})
	leap.Set("validUntil", canonjson.NewString("2026-12-31T23:59:60Z"))
	add("trust-policy-leap-second", wrap(b(), attest.SignedWithIdentity, env1()), leap, "", attest.CodeSchemaInvalid)
	add("trust-policy-null", wrap(b(), attest.SignedWithIdentity, env1()), canonjson.NewNull(), "", attest.CodeSchemaInvalid)

	astral := Options("test://mcp-res/disposable/signer-😀")
	add("non-bmp-signer-identity", wrap(b(), attest.Signed, sign(base, one, astral)), nil, "SIGNED")

	twoIdentities := sign(base, one, Options(IdentityTwo))
	add("one-key-two-identities", wrap(b(), attest.Witnessed, env1(), twoIdentities), test, "", attest.CodeDuplicateSigner)

	late := Options(IdentityOne)
	late.SigningTime = "2026-08-27T18:05:00.001Z"
	add("signing-time-after-evaluation", wrap(b(), attest.SignedWithIdentity, sign(base, one, late)), test, "", attest.CodeTrustPolicyExpired)
	after := Options(IdentityOne)
	after.SigningTime = "2027-01-01T00:00:00.001Z"
	add("signing-time-after-policy-window", wrap(b(), attest.SignedWithIdentity, sign(base, one, after)), test, "", attest.CodeTrustPolicyExpired)
	cs[len(cs)-1].EvaluatedAt = "2026-12-31T23:59:59.999Z"
	before := Options(IdentityOne)
	before.SigningTime = "2025-12-31T23:59:59.999Z"
	add("signing-time-before-policy-window", wrap(b(), attest.SignedWithIdentity, sign(base, one, before)), test, "", attest.CodeTrustPolicyExpired)

	for _, lvl := range []attest.Level{attest.Signed, attest.Witnessed} {
		add("revoked-key-claim-"+lvl.String(), wrap(b(), lvl, env1()), Policy(PolicyOptions{Revoked: []string{KeyID(one)}}), "", attest.CodeKeyRevoked)
	}
	add("overclaim-witnessed-one-signer", wrap(b(), attest.Witnessed, env1()), test, "", attest.CodeClassificationOverclaim)
	add("overclaim-identity-without-policy", wrap(b(), attest.SignedWithIdentity, env1()), nil, "", attest.CodeUntrustedSigner)
	return cs
}

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"

// forgedIdentityEnvelope is the key-less forgery of REFERENCE §6.7: public
// key = the identity point, R = identity, S = 0. Go's crypto/ed25519
// accepts it for every message.
func forgedIdentityEnvelope(base *canonjson.Value) *canonjson.Value {
	pub := make([]byte, 32)
	pub[0] = 1
	der := ed25519strict.MarshalSPKI(pub)
	keyID := ed25519strict.SPKIFingerprint(der)
	st := attest.Statement(base, keyID, Options(IdentityOne))
	payload := must(canonjson.Canonical(st))
	forgedSig := make([]byte, 64)
	forgedSig[0] = 1 // R = identity, S = 0
	env := must(attest.SignPayload(payload, TestOnlyKeyOne(), IdentityOne))
	s := sig(env)
	s.Set("keyid", canonjson.NewString(keyID))
	s.Set("sig", canonjson.NewString(base64.StdEncoding.EncodeToString(forgedSig)))
	s.Set("publicKeySpkiBase64", canonjson.NewString(base64.StdEncoding.EncodeToString(der)))
	return env
}

// addL returns the signature with S replaced by S + L (a malleable twin).
func addL(sig []byte) []byte {
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	le := slices.Clone(sig[32:])
	slices.Reverse(le)
	s := new(big.Int).SetBytes(le)
	s.Add(s, l)
	out := make([]byte, 32)
	s.FillBytes(out)
	slices.Reverse(out)
	return append(slices.Clone(sig[:32]), out...)
}
