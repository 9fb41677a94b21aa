package bundle_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// ExampleSeal seals mcpres's example draft (testdata/drafts, the draft
// that `mcpres seal` and `mcpres demo` start from): every digest and
// derived member is computed in place, after which the core validator
// accepts the bundle. The sealed bytes are testdata/bundles/example.json.
func ExampleSeal() {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "drafts", "example.draft.json"))
	if err != nil {
		log.Fatal(err)
	}
	draft, err := canonjson.Parse(data)
	if err != nil {
		log.Fatal(err) // not strict JSON
	}
	fmt.Printf("draft bundleDigest: %q\n", draft.Path("integrity", "bundleDigest").Str)
	if err := bundle.Seal(draft); err != nil {
		log.Fatal(err) // a *bundle.SealError names the member that cannot be sealed
	}
	fmt.Println("schemaVersion:", draft.Get("schemaVersion").Str == bundle.SchemaVersionBundle)
	fmt.Println("evidenceClass:", draft.Path("statement", "evidenceClass").Str)
	fmt.Println("evidenceSha256:", draft.Path("statement", "evidenceSha256").Str)
	fmt.Println("bundleDigest:", draft.Path("integrity", "bundleDigest").Str)

	r, err := validator.New().Bundle(draft)
	if err != nil {
		log.Fatal(err)
	}
	out, _ := canonjson.Compact(r.Value())
	fmt.Println(string(out))
	// Output:
	// draft bundleDigest: ""
	// schemaVersion: true
	// evidenceClass: FIXTURE_BACKED_PROTOCOL
	// evidenceSha256: 4cc414e2195d8a7aa5b758f3bf1a4efb5a6239a7218055e0ca7a47d56dca6799
	// bundleDigest: 717475f8dba987227396dc437cd311cd925818609b8a06f2066676c1642a5d3e
	// {"valid":true,"diagnostics":[],"schemaErrors":[]}
}
