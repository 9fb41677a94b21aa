// Command sign signs a conformance bundle as its producer and co-signs it
// as a witness, writing the attested bundle (claiming WITNESSED) to
// standard output.
//
// The keys are the RFC 8032 §7.1 TEST 1 and TEST 2 keys: TEST-ONLY, their
// private keys are published. A real signer loads its key with
// keyfile.ParsePrivateKeyPEM, or opens any key reference (a file, a
// variable, a PKCS#11 token, an ssh-agent) with keyref.Open.
//
//	go run ./sign ../../testdata/bundles/example.json > example.witnessed.json
package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"log"
	"os"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
)

// testOnlyKey returns the Ed25519 key of an RFC 8032 test seed. TEST-ONLY.
func testOnlyKey(seedHex string) ed25519.PrivateKey {
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		panic(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: sign BUNDLE")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	b, err := canonjson.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	producer := testOnlyKey("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60") // RFC 8032 TEST 1
	witness := testOnlyKey("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")  // RFC 8032 TEST 2
	opts := attest.SignOptions{
		SigningTime:   "2026-08-27T18:00:00.000Z", // no clock is read: the signer states the time
		TrustPolicyID: "mcp-res/test-policy",      // the id of the policy the verifiers use
	}
	opts.SignerIdentity = "test://mcp-res/disposable/signer-one"
	s, err := attest.SignBundle(b, producer, attest.BundleSignOptions{SignOptions: opts}) // validates b first
	if err != nil {
		log.Fatal(err) // an *attest.SignError says what was refused
	}
	fmt.Fprintln(os.Stderr, "signed by", s.KeyID, "claim", s.Claim)

	opts.SignerIdentity = "test://mcp-res/disposable/signer-two"
	witnessed := attest.Witnessed
	s, err = attest.Cosign(s.Attested, witness, attest.BundleSignOptions{SignOptions: opts, Claim: &witnessed})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(os.Stderr, "co-signed by", s.KeyID, "claim", s.Claim, "envelopes", s.Envelopes)
	out, err := canonjson.Pretty(s.Attested)
	if err != nil {
		log.Fatal(err)
	}
	os.Stdout.Write(out)
}
