// Package attesttest builds deterministic attestation fixtures for tests:
// the RFC 8032 §7.1 test keys (public knowledge, never to be trusted
// outside tests), the upstream test trust policy, and the 17-case
// attestation corpus of REFERENCE §9.4 plus mcpres's own negative cases.
//
// It must only be imported by tests.
package attesttest

import (
	"crypto/ed25519"
	"encoding/hex"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
)

// RFC 8032 §7.1 TEST 1 and TEST 2 seeds. TEST-ONLY: these private keys are
// published in the RFC.
const (
	testOnlySeedOneHex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	testOnlySeedTwoHex = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
)

// Identities and constants of the corpus (REFERENCE §9.4).
const (
	IdentityOne   = "test://mcp-res/disposable/signer-one"
	IdentityTwo   = "test://mcp-res/disposable/signer-two"
	SigningTime   = "2026-08-27T18:00:00.000Z"
	EvaluatedAt   = "2026-08-27T18:05:00.000Z"
	TrustPolicyID = "mcp-res/test-policy"
)

func seed(h string) ed25519.PrivateKey {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	return ed25519.NewKeyFromSeed(b)
}

// TestOnlyKeyOne returns the RFC 8032 TEST 1 private key.
func TestOnlyKeyOne() ed25519.PrivateKey { return seed(testOnlySeedOneHex) }

// TestOnlyKeyTwo returns the RFC 8032 TEST 2 private key.
func TestOnlyKeyTwo() ed25519.PrivateKey { return seed(testOnlySeedTwoHex) }

// KeyID returns the key ID (SPKI fingerprint) of priv's public key.
func KeyID(priv ed25519.PrivateKey) string {
	return ed25519strict.Fingerprint(priv.Public().(ed25519.PublicKey))
}

// Options returns the corpus sign options for identity.
func Options(identity string) attest.SignOptions {
	return attest.SignOptions{SignerIdentity: identity, SigningTime: SigningTime, TrustPolicyID: TrustPolicyID}
}

// TestTransparency is the test transparency reference of REFERENCE §6.10.
func TestTransparency() *attest.TransparencyReference {
	return attest.NewTransparencyReference("test-log", "test-entry-0001", []byte("offline-test-inclusion-proof-v1"))
}

// PolicyOptions adjust the test policy.
type PolicyOptions struct {
	ValidUntil string   // default 2027-01-01T00:00:00.000Z
	Trusted    []string // "one", "two"; nil means both
	Revoked    []string // key IDs
}

// Policy returns the upstream corpus test policy (REFERENCE §3.2.5).
func Policy(o PolicyOptions) *canonjson.Value {
	until := o.ValidUntil
	if until == "" {
		until = "2027-01-01T00:00:00.000Z"
	}
	trusted := o.Trusted
	if trusted == nil {
		trusted = []string{"one", "two"}
	}
	s := canonjson.NewString
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	signers := []*canonjson.Value{}
	for _, t := range trusted {
		key, id := TestOnlyKeyOne(), IdentityOne
		if t == "two" {
			key, id = TestOnlyKeyTwo(), IdentityTwo
		}
		signers = append(signers, canonjson.NewObject(m("keyFingerprint", s(KeyID(key))), m("signerIdentity", s(id))))
	}
	revoked := []*canonjson.Value{}
	for _, r := range o.Revoked {
		revoked = append(revoked, s(r))
	}
	return canonjson.NewObject(
		m("schemaVersion", s(bundle.SchemaVersionTrustPolicy)),
		m("id", s(TrustPolicyID)),
		m("version", s("1.0.0")),
		m("validFrom", s("2026-01-01T00:00:00.000Z")),
		m("validUntil", s(until)),
		m("requiredAlgorithm", s("Ed25519")),
		m("trustedSigners", canonjson.NewArray(signers...)),
		m("revokedKeyFingerprints", canonjson.NewArray(revoked...)),
	)
}
