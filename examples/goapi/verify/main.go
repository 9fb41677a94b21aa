// Command verify is the gate an MCP gateway or a registry runs before it
// trusts a server: it verifies an attested bundle offline against a trust
// policy, checks that it is about the expected artifact and that it
// reaches a required level, and prints the level and what was verified.
// It exits 0 when the gate passes, 1 when it does not.
//
//	go run ./verify -policy ../../testdata/transparency/policy.json \
//	    -subject-sha256 6f1f1b2c… -require-level TRANSPARENCY_RECORDED \
//	    ../../testdata/transparency/example.signed.json
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
)

func main() {
	policyFile := flag.String("policy", "", "trust policy `FILE` (mcpres.trust-policy/v1 or mcp-res.trust-policy/0.2.0)")
	subject := flag.String("subject-sha256", "", "the artifact's SHA-256 the evidence must be about (lowercase hex)")
	require := flag.String("require-level", "SIGNED_WITH_IDENTITY", "the lowest acceptable authenticity level")
	at := flag.String("evaluated-at", time.Now().UTC().Format(time.RFC3339Nano), "evaluation time (RFC 3339)")
	flag.Parse()
	want, err := attest.ParseLevel(*require)
	if err != nil || *policyFile == "" || *subject == "" || flag.NArg() != 1 {
		log.Fatal("usage: verify -policy FILE -subject-sha256 HEX [-require-level LEVEL] [-evaluated-at TIME] ATTESTED")
	}
	_, policy, err := canonjson.ReadFile(*policyFile) // a regular file, strict JSON
	if err != nil {
		log.Fatal(err)
	}
	_, doc, err := canonjson.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	r, err := attest.Verify(doc, attest.Options{Policy: policy, EvaluatedAt: *at,
		PolicyLoaders: map[string]attest.PolicyLoader{trustpolicy.SchemaVersionPolicy: trustpolicy.Loader}})
	if err != nil {
		log.Fatal(err) // not an attested bundle at all
	}
	if !r.Valid {
		fmt.Println("REFUSED:", r.Diagnostics, r.Detail)
		os.Exit(1)
	}
	// The signed statement binds the bundle, so its subject is what was signed.
	b, err := bundle.Decode(doc.Get("bundle"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("verified: %s, evidence class %s, subject %s %s\n", r.Level, r.EvidenceClass, b.Evidence.Subject.Name, b.Evidence.Subject.Version)
	for _, e := range r.Evaluation.Envelopes {
		fmt.Printf("  envelope %d: %s key %s trusted %t transparency %s\n", e.Index, e.SignerIdentity, e.KeyFingerprint, e.Trusted, e.Transparency)
	}
	for _, n := range r.Evaluation.Notes {
		fmt.Println("  note:", n)
	}
	switch {
	case b.Evidence.Subject.ArtifactSha256 != *subject:
		fmt.Printf("REFUSED: the evidence is about artifact %s, not %s\n", b.Evidence.Subject.ArtifactSha256, *subject)
		os.Exit(1)
	case r.Level < want:
		fmt.Printf("REFUSED: level %s is below the required %s\n", r.Level, want)
		os.Exit(1)
	}
	fmt.Println("PASSED:", r.Level, "at least", want)
}
