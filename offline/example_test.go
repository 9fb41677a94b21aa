package offline_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
)

// Verify a transparency reference offline (testdata/transparency: the
// example bundle logged at leaf 2, its checkpoint cosigned by one log
// witness; test-only keys): the entry binds the bundle, its RFC 6962
// inclusion in a checkpoint signed by a trusted log, and the witness
// cosignatures counted against the quorum at the evaluation time. A
// cosignature dated after the evaluation time does not count.
func ExampleVerify() {
	dir := filepath.Join("..", "testdata")
	_, b, err := canonjson.ReadFile(filepath.Join(dir, "bundles", "example.json"))
	if err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "transparency", "example.ref.json"))
	if err != nil {
		log.Fatal(err)
	}
	ref, proof, err := attest.ParseTransparencyReference(data) // what `mcpres log add -o` writes
	if err != nil {
		log.Fatal(err)
	}

	// The verifier's trust (testdata/transparency/tlog-policy.txt, which
	// trustpolicy.ParseTLogPolicy turns into the same Trust).
	logKey, err := signednote.ParseVerifier("log.example.org/mcpres-example+40660f02+AcZ/KI37VNJtlYMSUxKBorcOMQySROD5uUn/h00861ZU")
	if err != nil {
		log.Fatal(err)
	}
	witnessKey, err := signednote.ParseVerifier("witness.example.org+f01c5977+BOqblaoW6l6wu0bXTl+aY9Qwk+01EW8gJ8prWWSU33Wg")
	if err != nil {
		log.Fatal(err)
	}
	trust := offline.Trust{
		Logs:        []offline.Log{{Origin: "log.example.org/mcpres-example", Key: logKey}},
		Witnesses:   []offline.Witness{{Name: "W", Key: witnessKey}},
		Quorum:      "W",
		EvaluatedAt: time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC),
	}
	v, err := offline.Verify(proof, offline.EntryFor(b), trust)
	if err != nil {
		log.Fatal(err)
	}
	cp := v.Checkpoint
	fmt.Printf("%s: leaf %d of %s, tree size %d\n", v.Kind, v.Index, cp.Origin, cp.Size)
	fmt.Println("log key:", cp.LogKey)
	for _, w := range cp.Witnesses {
		fmt.Println("cosigned by", w.Name, "at", time.Unix(int64(w.Time), 0).UTC().Format(time.RFC3339))
	}
	fmt.Println("quorum:", cp.Quorum)
	fmt.Println("reference names it:", v.MatchesReference(ref.LogID, ref.EntryUUID) == nil)

	// The same proof does not vouch for another bundle.
	other := offline.EntryFor(b)
	other.ScenarioFingerprint = strings.Repeat("cd", 32)
	_, err = offline.Verify(proof, other, trust)
	fmt.Println("another bundle rejected:", err != nil)

	// Before the witness cosigned, its cosignature does not count.
	trust.EvaluatedAt = time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	_, err = offline.Verify(proof, offline.EntryFor(b), trust)
	fmt.Println(err)
	// Output:
	// c2sp.org/tlog-proof@v1: leaf 2 of log.example.org/mcpres-example, tree size 4
	// log key: log.example.org/mcpres-example+40660f02
	// cosigned by W at 2026-01-01T00:00:00Z
	// quorum: W
	// reference names it: true
	// another bundle rejected: true
	// cosignatures: 0 of 1 required (W missing); not counted: W (cosigned 2026-01-01T00:00:00Z: dated after the evaluation time 2025-12-31T00:00:00Z)
}
