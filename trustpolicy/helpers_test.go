package trustpolicy

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/validator"
)

// testOnlyKeyThree is the RFC 8032 §7.1 TEST 3 key. TEST-ONLY: its
// private key is published in the RFC.
func testOnlyKeyThree() ed25519.PrivateKey {
	seed, err := hex.DecodeString("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")
	if err != nil {
		panic(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

const identityThree = "test://mcp-res/disposable/signer-three"

var testVal = validator.New()

func pub(priv ed25519.PrivateKey) ed25519.PublicKey { return priv.Public().(ed25519.PublicKey) }

// spki returns the base64 SPKI of priv's public key.
func spki(priv ed25519.PrivateKey) string {
	return base64.StdEncoding.EncodeToString(ed25519strict.MarshalSPKI(pub(priv)))
}

func fp(priv ed25519.PrivateKey) string { return attesttest.KeyID(priv) }

// testPolicy is the v1 counterpart of the upstream corpus test policy: the
// id and window of REFERENCE §3.2.5, signer-one (role signer) and
// signer-two (roles signer and witness), no witnesses rule.
func testPolicy() *Document {
	d := New(attesttest.TrustPolicyID, "2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
	d.AddSigner(Signer{Name: "signer-one", Identity: attesttest.IdentityOne, PublicKey: spki(attesttest.TestOnlyKeyOne()), Roles: []string{RoleSigner}})
	d.AddSigner(Signer{Name: "signer-two", Identity: attesttest.IdentityTwo, PublicKey: spki(attesttest.TestOnlyKeyTwo()), Roles: []string{RoleSigner, RoleWitness}})
	return d
}

func mustLoad(t testing.TB, d *Document) *Policy {
	t.Helper()
	p, problems := Load(d.Value(), testVal)
	if len(problems) > 0 {
		t.Fatalf("policy does not load: %v", problems)
	}
	return p
}

// fixture reads a committed attestation fixture.
func fixture(t testing.TB, name string) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(filepath.Join("..", "testdata", "attestation", name))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func parseJSON(t testing.TB, text string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return v
}
