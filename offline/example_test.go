package offline_test

import (
	"fmt"
	"log"
	"path/filepath"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

// Verify a c2sp.org/tlog-proof offline: the entry that binds the bundle,
// its RFC 6962 inclusion in a checkpoint signed by a trusted log, and the
// witness cosignatures counted against the quorum. The log and the
// witnesses are offlinetest's in-memory ones, with test-only keys and
// fixed cosignature times.
func ExampleVerify() {
	_, b, err := canonjson.ReadFile(filepath.Join("..", "testdata", "bundles", "example.json"))
	if err != nil {
		log.Fatal(err)
	}
	want := offline.EntryFor(b) // what the proof's entry must say
	entry, err := want.Marshal()
	if err != nil {
		log.Fatal(err)
	}
	l := offlinetest.NewLog("log.example.org/mcpres", "example log")
	l.Append([]byte("leaf 0"), []byte("leaf 1"), entry, []byte("leaf 3"))
	wa := offlinetest.NewWitness("WA", "witness-a.example.org", "example witness a", 1767225600)
	wb := offlinetest.NewWitness("WB", "witness-b.example.org", "example witness b", 1767225660)
	proof := l.Proof(2, wa, wb).Marshal()

	// The verifier's trust: the log, two witnesses, both needed.
	trust := offline.Trust{
		Logs:      []offline.Log{{Origin: "log.example.org/mcpres", Key: l.Key}},
		Witnesses: []offline.Witness{{Name: "WA", Key: wa.Key}, {Name: "WB", Key: wb.Key}},
		Groups:    []offline.Group{{Name: "witnesses", Threshold: 2, Members: []string{"WA", "WB"}}},
		Quorum:    "witnesses",
	}
	v, err := offline.Verify(proof, want, trust)
	if err != nil {
		log.Fatal(err)
	}
	cp := v.Checkpoint
	fmt.Printf("%s: leaf %d of %s, tree size %d\n", v.Kind, v.Index, cp.Origin, cp.Size)
	fmt.Println("log key:", cp.LogKey)
	for _, w := range cp.Witnesses {
		fmt.Println("cosigned by", w.Name)
	}
	fmt.Println("quorum:", cp.Quorum)

	// The same proof does not vouch for another bundle.
	other := want
	other.ScenarioFingerprint = strings.Repeat("cd", 32)
	_, err = offline.Verify(proof, other, trust)
	fmt.Println("another bundle rejected:", err != nil)
	// Output:
	// c2sp.org/tlog-proof@v1: leaf 2 of log.example.org/mcpres, tree size 4
	// log key: log.example.org/mcpres+c2cba0c2
	// cosigned by WA
	// cosigned by WB
	// quorum: witnesses
	// another bundle rejected: true
}
