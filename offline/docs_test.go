package offline_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/doctest"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/trustpolicy"
)

// docsExample is the worked example of docs/transparency.md: a log of four
// leaves whose leaf 2 is the example bundle's entry, cosigned by two
// witnesses at fixed times, with test-only keys.
type docsExample struct {
	proof  []byte
	policy string
	want   offline.Entry
}

func newDocsExample(t *testing.T) docsExample {
	t.Helper()
	_, b, err := canonjson.ReadFile(filepath.Join("..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := offline.EntryFor(b)
	l := offlinetest.NewLog("log.example.org/mcpres", "docs example log")
	entry, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	l.Append([]byte("leaf 0"), []byte("leaf 1"), entry, []byte("leaf 3"))
	wa := offlinetest.NewWitness("WA", "witness-a.example.org", "docs example witness a", 1767225600)
	wb := offlinetest.NewWitness("WB", "witness-b.example.org", "docs example witness b", 1767225660)
	policy := "log " + l.VKey + "\nwitness WA " + wa.VKey + "\nwitness WB " + wb.VKey + "\ngroup witnesses 2 WA WB\nquorum witnesses\n"
	return docsExample{proof: l.Proof(2, wa, wb).Marshal(), policy: policy, want: want}
}

// The worked example of docs/transparency.md is what this code produces
// and verifies: the proof bytes, the tlog policy, and the reference.
func TestDocsExample(t *testing.T) {
	ex := newDocsExample(t)
	raw, err := os.ReadFile(filepath.Join("..", "docs", "transparency.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	if got := doctest.Block(t, doc, "### The proof bytes", "text"); got != string(ex.proof) {
		t.Errorf("docs proof:\n%s\nactual:\n%s", got, ex.proof)
	}
	if got := doctest.Block(t, doc, "### The policy", "text"); got != ex.policy {
		t.Errorf("docs policy:\n%s\nactual:\n%s", got, ex.policy)
	}
	tp, errs := trustpolicy.ParseTLogPolicy(ex.policy)
	if errs != nil {
		t.Fatal(errs)
	}
	v, err := offline.Verify(ex.proof, ex.want, tp.Trust())
	if err != nil {
		t.Fatal(err)
	}
	ref := doctest.Block(t, doc, "### The reference", "json")
	want := `{
  "logId": "` + v.LogID + `",
  "entryUuid": "` + v.EntryUUID + `",
  "inclusionProofBase64": "` + base64.StdEncoding.EncodeToString(ex.proof) + `",
  "inclusionProofSha256": "` + canonjson.BytesDigest(ex.proof) + `"
}
`
	if ref != want {
		t.Errorf("docs reference:\n%s\nactual:\n%s", ref, want)
	}
	if os.Getenv("MCPRES_PRINT_DOCS_EXAMPLE") != "" {
		t.Logf("proof:\n%s\npolicy:\n%s\nreference:\n%s", ex.proof, ex.policy, want)
	}
}
