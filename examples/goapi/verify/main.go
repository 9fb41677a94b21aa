// Command verify is the gate an MCP gateway or a registry runs before it
// trusts a server: it verifies an attested bundle offline against a trust
// policy, and lets attest.Gate decide: the evidence must record a PASS
// result, be signed by a signer the policy trusts, reach the required
// level and be about the expected artifact (and, if given, name and
// version). It prints the level and what was verified. It exits 0 when the gate passes, 1 when it
// does not, 2 on a usage error.
//
//	go run ./verify -policy ../../testdata/transparency/policy.json \
//	    -subject-digest sha256:6f1f1b2c… -require-level TRANSPARENCY_RECORDED \
//	    ../../testdata/transparency/example.signed.json
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
)

func main() {
	policyFile := flag.String("policy", "", "trust policy `FILE` (mcpres.trust-policy/v1 or mcp-res.trust-policy/0.2.0)")
	digest := flag.String("subject-digest", "", "the digest of the artifact the evidence must be about (sha256:HEX)")
	name := flag.String("subject-name", "", "the subject name the evidence must be about (optional)")
	version := flag.String("subject-version", "", "the subject version the evidence must be about (optional)")
	require := flag.String("require-level", "SIGNED_WITH_IDENTITY", "the lowest acceptable authenticity level")
	at := flag.String("evaluated-at", time.Now().UTC().Format(time.RFC3339Nano), "evaluation time (RFC 3339)")
	flag.Parse()
	usage := func(why string) {
		fmt.Fprintln(os.Stderr, "usage: verify -policy FILE -subject-digest sha256:HEX [-subject-name N] [-subject-version V] [-require-level LEVEL] [-evaluated-at TIME] ATTESTED:", why)
		os.Exit(2)
	}
	want, err := attest.ParseLevel(*require)
	if err != nil {
		usage(err.Error())
	}
	if *policyFile == "" || *digest == "" || flag.NArg() != 1 {
		usage("-policy, -subject-digest and one ATTESTED are required")
	}
	_, policy, err := canonjson.ReadFile(*policyFile) // a regular file, strict JSON
	if err != nil {
		log.Fatal(err)
	}
	// One verifier: the policy (either format, opened once), the time and
	// the gate — a PASS result, a trusted signer, at least the level asked,
	// and the artifact that ships. Its zero value is the safe one.
	v, err := attest.NewVerifier(attest.VerifierOptions{
		Policy:      trustpolicy.Open(policy, trustpolicy.OpenOptions{}),
		EvaluatedAt: *at,
		Gate:        attest.Gate{MinLevel: want, Subject: attest.SubjectRequirement{Digests: []string{*digest}, Name: *name, Version: *version}},
	})
	if err != nil {
		usage(err.Error()) // a digest as sha512:, uppercase, short: never "no check"
	}
	_, doc, err := canonjson.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	r, verdict, err := v.Verify(doc)
	if err != nil {
		log.Fatal(err) // not an attested bundle at all
	}
	if !r.Valid {
		fmt.Println("REFUSED:", r.Diagnostics, r.Detail) // the verdict says so too; the detail helps
		os.Exit(1)
	}
	// The signed statement binds the bundle, so r.Subject is what was signed.
	fmt.Printf("verified: %s, evidence class %s, subject %s %s\n", r.Level, r.EvidenceClass, r.Subject.Name, r.Subject.Version)
	for _, e := range r.Evaluation.Envelopes {
		fmt.Printf("  envelope %d: %s key %s trusted %t transparency %s\n", e.Index, e.SignerIdentity, e.KeyFingerprint, e.Trusted, e.Transparency)
	}
	for _, n := range r.Evaluation.Notes {
		fmt.Println("  note:", n)
	}
	for _, reason := range verdict.Reasons() {
		fmt.Println("REFUSED:", reason) // MCPRES_SUBJECT_MISMATCH: digest: expected …, found …
	}
	if !verdict.Passed {
		os.Exit(1)
	}
	fmt.Println("PASSED:", r.Level, "at least", v.Gate().RequiredLevel(), "result", verdict.Result)
}
