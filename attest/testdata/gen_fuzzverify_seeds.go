//go:build ignore

// gen_fuzzverify_seeds writes the committed seed corpus of FuzzVerify
// (testdata/fuzz/FuzzVerify) from the committed attestation corpus
// (../testdata/attestation): a handful of textual mutations of its
// wrappers and policies that probe edges the corpus itself does not. Every
// unmodified wrapper of the corpus is added by FuzzVerify itself (f.Add).
//
// Run from the attest directory:
//
//	go run testdata/gen_fuzzverify_seeds.go
//
// Standard library only; the output is deterministic.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

const (
	corpusDir = "../testdata/attestation"
	outDir    = "testdata/fuzz/FuzzVerify"
)

func compact(name string) string {
	raw, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	return buf.String()
}

// replace replaces old by new exactly once, or fails.
func replace(s, old, new string) string {
	if n := strings.Count(s, old); n != 1 {
		log.Fatalf("%q occurs %d times, want 1", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

func main() {
	witnessed, witnessedPolicy := compact("witnessed.json"), compact("witnessed.trust-policy.json")
	unsigned := compact("unsigned-integrity-only.json")
	signed := compact("signed-untrusted-allowed-at-signed-level.json")
	seeds := []struct{ name, wrapper, policy string }{
		// Claim above the derived level: one more than WITNESSED.
		{"witnessed_claims_transparency", replace(witnessed, `"claimedClassification":"WITNESSED"`, `"claimedClassification":"TRANSPARENCY_RECORDED"`), witnessedPolicy},
		// A policy file holding null is a schema failure, not "no policy".
		{"witnessed_policy_null", witnessed, "null"},
		// The window is inclusive: validUntil = evaluation time is valid ...
		{"witnessed_policy_until_evaluation_time", witnessed, replace(witnessedPolicy, `"validUntil":"2027-01-01T00:00:00.000Z"`, `"validUntil":"2026-08-27T18:05:00.000Z"`)},
		// ... and one millisecond later is expired.
		{"witnessed_policy_from_after_evaluation", witnessed, replace(witnessedPolicy, `"validFrom":"2026-01-01T00:00:00.000Z"`, `"validFrom":"2026-08-27T18:05:00.001Z"`)},
		// A null envelope aborts (MCP_RES_INPUT_INVALID, REFERENCE §5.3 G1).
		{"unsigned_null_envelope", replace(unsigned, `"envelopes":[]`, `"envelopes":[null]`), ""},
		// Key one's signature over the example ends "Dw==". Non-zero unused
		// bits ("Dx==") decode to the same bytes and are accepted (REFERENCE
		// §6.8, §10 row 36): still valid.
		{"signed_sig_nonzero_trailing_bits", replace(signed, `Dw==","algorithm"`, `Dx==","algorithm"`), ""},
		// Superfluous padding after the final group is rejected (§10 row 42).
		{"signed_sig_superfluous_padding", replace(signed, `Dw==","algorithm"`, `Dw======","algorithm"`), ""},
	}

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, s := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\n", s.wrapper, s.policy)
		if err := os.WriteFile(filepath.Join(outDir, s.name), []byte(body), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
