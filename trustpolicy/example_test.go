package trustpolicy_test

import (
	"fmt"
	"log"
	"path/filepath"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
)

// policyText is an mcpres.trust-policy/v1 whose two signers have the
// RFC 8032 §7.1 TEST 1 and TEST 2 public keys (TEST-ONLY: their private
// keys are published): signer-one signs, signer-two also witnesses.
const policyText = `{
  "schemaVersion": "mcpres.trust-policy/v1",
  "id": "example/release-policy",
  "version": 3,
  "validFrom": "2026-01-01T00:00:00.000Z",
  "validUntil": "2027-01-01T00:00:00.000Z",
  "signers": [
    {"name": "signer-one", "identity": "test://mcp-res/disposable/signer-one",
     "publicKey": "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", "roles": ["signer"]},
    {"name": "signer-two", "identity": "test://mcp-res/disposable/signer-two",
     "publicKey": "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=", "roles": ["signer", "witness"]}
  ],
  "revocations": [],
  "witnesses": {"quorum": 1, "members": ["signer-two"], "distinctIdentities": true}
}`

// Load a trust policy strictly: every problem is reported with its path,
// and a policy that loads is ready for attest.Verify (it is an
// attest.TrustPolicy; trustpolicy.Open gives it to attest.Options).
func ExampleLoad() {
	doc, err := canonjson.Parse([]byte(policyText))
	if err != nil {
		log.Fatal(err) // not strict JSON
	}
	p, problems := trustpolicy.Load(doc, nil)
	if len(problems) > 0 {
		log.Fatal(problems)
	}
	fmt.Println("policy", p.ID(), "version", p.Version())
	d := p.Document()
	for _, s := range d.Signers {
		fmt.Println("signer", s.Name, s.Roles)
	}
	fmt.Println("witness quorum", d.Witnesses.Quorum, "of", d.Witnesses.Members)

	// One key listed twice is one signer, never two: the policy does not load.
	bad := strings.Replace(policyText, "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=", "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", 1)
	doc, err = canonjson.Parse([]byte(bad))
	if err != nil {
		log.Fatal(err)
	}
	_, problems = trustpolicy.Load(doc, nil)
	for _, pr := range problems {
		fmt.Println("problem:", pr)
	}
	// Output:
	// policy example/release-policy version 3
	// signer signer-one [signer]
	// signer signer-two [signer witness]
	// witness quorum 1 of [signer-two]
	// problem: /signers/1/publicKey: key 06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9 is already listed as /signers/0 ("signer-one"); one key is one signer and counts once (uniqueKey)
}

// Verify an attested bundle against an mcpres.trust-policy/v1 file: Open
// reads either kind of policy file (v1, or the upstream 0.2.0) once, for
// any number of verifications. This policy
// (testdata/transparency/policy.json) trusts a producer and a witness and
// has a tlog policy, so the bundle's transparency reference is verified
// offline (inclusion, the log's signature, the log witness's
// cosignature): TRANSPARENCY_RECORDED.
func ExampleOpen() {
	dir := filepath.Join("..", "testdata", "transparency")
	_, policy, err := canonjson.ReadFile(filepath.Join(dir, "policy.json"))
	if err != nil {
		log.Fatal(err)
	}
	_, signed, err := canonjson.ReadFile(filepath.Join(dir, "example.signed.json"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := attest.Verify(signed, attest.Options{
		Policy:      trustpolicy.Open(policy, trustpolicy.OpenOptions{}),
		EvaluatedAt: "2026-08-27T18:05:00.000Z"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("valid:", r.Valid, "level:", r.Level)
	for _, e := range r.Evaluation.Envelopes {
		fmt.Printf("envelope %d: %s trusted %t transparency %s\n", e.Index, e.SignerIdentity, e.Trusted, e.Transparency)
		if v := e.Verified; v != nil {
			fmt.Printf("  leaf %d of %s (tree size %d), quorum %s\n", v.LeafIndex, v.Origin, v.TreeSize, v.Quorum)
		}
	}
	// Output:
	// valid: true level: TRANSPARENCY_RECORDED
	// envelope 0: test://mcp-res/disposable/signer-one trusted true transparency VERIFIED_OFFLINE
	//   leaf 2 of log.example.org/mcpres-example (tree size 4), quorum W
	// envelope 1: test://mcp-res/disposable/signer-two trusted true transparency NONE
}
