package attest_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"log"
	"path/filepath"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
)

// Sign a conformance bundle: SignBundle validates it, signs its statement
// and returns the attested bundle to write.
func ExampleSignBundle() {
	_, b, err := canonjson.ReadFile(filepath.Join("..", "testdata", "bundles", "example.json"))
	if err != nil {
		log.Fatal(err)
	}
	// TEST-ONLY: the RFC 8032 §7.1 TEST 1 seed, a published private key.
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	priv := ed25519.NewKeyFromSeed(seed)

	s, err := attest.SignBundle(b, priv, attest.BundleSignOptions{SignOptions: attest.SignOptions{
		SignerIdentity: "test://mcp-res/disposable/signer-one",
		SigningTime:    "2026-08-27T18:00:00.000Z",
		TrustPolicyID:  "mcp-res/test-policy",
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("key:", s.KeyID)
	fmt.Println("claim:", s.Claim, "envelopes:", s.Envelopes)
	fmt.Println("signature:", s.Envelope.Get("signatures").Items[0].Get("sig").Str)

	// Without a trust policy only SIGNED can be derived.
	r, err := attest.Verify(s.Attested, attest.Options{EvaluatedAt: "2026-08-27T18:05:00.000Z"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified:", r.Valid, r.Level)
	// Output:
	// key: 06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9
	// claim: SIGNED envelopes: 1
	// signature: HUqUH0Qu1hfqC9B6IBgFhjhZlo1A6VLWiIRRJI9koIuiRX1W/qaA5zlDAEJtxw0DDl7VFgfQcezekGB0420oDw==
	// verified: true SIGNED
}

// Co-sign an attested bundle: a witness (or a second producer) adds its
// envelope over the same statement fields, and the claim is raised to
// WITNESSED. With the upstream test policy, which trusts both keys, the
// verifier derives WITNESSED. Signing is deterministic: the result is
// testdata/attestation/witnessed.json byte for byte.
func ExampleCosign() {
	dir := filepath.Join("..", "testdata")
	_, b, err := canonjson.ReadFile(filepath.Join(dir, "bundles", "example.json"))
	if err != nil {
		log.Fatal(err)
	}
	// TEST-ONLY: the RFC 8032 §7.1 TEST 1 and TEST 2 seeds, published private keys.
	seed1, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	seed2, _ := hex.DecodeString("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
	o := attest.SignOptions{SigningTime: "2026-08-27T18:00:00.000Z", TrustPolicyID: "mcp-res/test-policy"}

	o.SignerIdentity = "test://mcp-res/disposable/signer-one"
	s, err := attest.SignBundle(b, ed25519.NewKeyFromSeed(seed1), attest.BundleSignOptions{SignOptions: o})
	if err != nil {
		log.Fatal(err)
	}
	o.SignerIdentity = "test://mcp-res/disposable/signer-two"
	witnessed := attest.Witnessed
	s, err = attest.Cosign(s.Attested, ed25519.NewKeyFromSeed(seed2), attest.BundleSignOptions{SignOptions: o, Claim: &witnessed})
	if err != nil {
		log.Fatal(err) // an *attest.SignError: e.g. the same key twice, or a claim the envelopes cannot reach
	}
	fmt.Println("claim:", s.Claim, "envelopes:", s.Envelopes)

	_, policy, err := canonjson.ReadFile(filepath.Join(dir, "attestation", "witnessed.trust-policy.json"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := attest.Verify(s.Attested, attest.Options{Policy: trustpolicy.Open(policy, trustpolicy.OpenOptions{}), EvaluatedAt: "2026-08-27T18:05:00.000Z"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified:", r.Valid, r.Level, "distinct keys:", r.Evaluation.DistinctKeys)
	committed, _, _ := canonjson.ReadFile(filepath.Join(dir, "attestation", "witnessed.json"))
	out, _ := canonjson.Pretty(s.Attested)
	fmt.Println("same as testdata/attestation/witnessed.json:", bytes.Equal(out, committed))
	// Output:
	// claim: WITNESSED envelopes: 2
	// verified: true WITNESSED distinct keys: 2
	// same as testdata/attestation/witnessed.json: true
}

// Verify an attested bundle offline against a trust policy (here the
// upstream test policy, which trusts both signers) at a fixed evaluation
// time.
func ExampleVerify() {
	dir := filepath.Join("..", "testdata", "attestation")
	_, w, err := canonjson.ReadFile(filepath.Join(dir, "witnessed.json"))
	if err != nil {
		log.Fatal(err)
	}
	_, policy, err := canonjson.ReadFile(filepath.Join(dir, "witnessed.trust-policy.json"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := attest.Verify(w, attest.Options{
		// Either policy format, opened once by package trustpolicy.
		Policy:      trustpolicy.Open(policy, trustpolicy.OpenOptions{}),
		EvaluatedAt: "2026-08-27T18:05:00.000Z"})
	if err != nil {
		log.Fatal(err) // not an attested bundle at all (exit 2)
	}
	fmt.Println("valid:", r.Valid, r.Diagnostics)
	fmt.Println("level:", r.Level, "evidence class:", r.EvidenceClass)
	for _, e := range r.Evaluation.Envelopes {
		fmt.Printf("envelope %d: %s trusted %t\n", e.Index, e.SignerIdentity, e.Trusted)
	}
	for _, n := range r.Evaluation.Notes {
		fmt.Println("note:", n)
	}
	// Output:
	// valid: true []
	// level: WITNESSED evidence class: FIXTURE_BACKED_PROTOCOL
	// envelope 0: test://mcp-res/disposable/signer-one trusted true
	// envelope 1: test://mcp-res/disposable/signer-two trusted true
	// note: trusted signers: 2 of 2 envelopes, by (keyFingerprint, signerIdentity) pair
	// note: witnessed: 2 distinct keys, 2 required (counted by key fingerprint)
}

// A release gate: one Verifier, built once from the policy, the evaluation
// time and the Gate, applied to each bundle. The zero Gate requires a PASS
// result and a trusted signer; this one also asks WITNESSED and binds the
// gate to the artifact that ships. Every check is in the verdict.
func ExampleNewVerifier() {
	dir := filepath.Join("..", "testdata", "attestation")
	_, w, err := canonjson.ReadFile(filepath.Join(dir, "witnessed.json"))
	if err != nil {
		log.Fatal(err)
	}
	_, policy, err := canonjson.ReadFile(filepath.Join(dir, "witnessed.trust-policy.json"))
	if err != nil {
		log.Fatal(err)
	}
	subject := "sha256:" + w.Path("bundle", "evidence", "subject", "artifactSha256").Str
	v, err := attest.NewVerifier(attest.VerifierOptions{
		Policy:      trustpolicy.Open(policy, trustpolicy.OpenOptions{}),
		EvaluatedAt: "2026-08-27T18:05:00.000Z",
		Gate:        attest.Gate{MinLevel: attest.Witnessed, Subject: attest.SubjectRequirement{Digests: []string{subject}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	_, verdict, err := v.Verify(w)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("passed:", verdict.Passed, "result:", verdict.Result)
	for _, c := range verdict.Checks {
		fmt.Printf("  %s: required %s, found %s, passed %t\n", c.Check, c.Required, c.Found[:min(len(c.Found), 20)], c.Passed)
	}
	// A Verifier without a policy is asked for by name.
	_, err = attest.NewVerifier(attest.VerifierOptions{EvaluatedAt: "2026-08-27T18:05:00.000Z"})
	fmt.Println(err)
	// Output:
	// passed: true result: PASS
	//   valid: required valid, found valid, passed true
	//   level: required WITNESSED, found WITNESSED, passed true
	//   result: required PASS, found PASS, passed true
	//   digest: required sha256:6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a, found sha256:6f1f1b2c33142, passed true
	// attest: a Verifier needs a trust policy (Policy or PolicyFor), or NoPolicyUnsafe said by name
}
