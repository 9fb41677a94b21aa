package document_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
)

// ExampleValidator_Validate validates a document from its bytes as `mcpres
// validate` does (here the example bundle, testdata/bundles/example.json):
// the kind comes from schemaVersion, and the result object is the upstream
// one. A tampered copy fails with the first failing check. One Validator
// serves any number of documents, concurrently.
func ExampleValidator_Validate() {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "bundles", "example.json"))
	if err != nil {
		log.Fatal(err)
	}
	doc, err := canonjson.Parse(data) // the strict reader: duplicate keys, lone surrogates, … are errors
	if err != nil {
		log.Fatal(err)
	}
	val := document.New(nil)
	r, err := val.Validate(doc, document.Options{})
	if err != nil {
		log.Fatal(err) // MCP_RES_INPUT_INVALID: no result object (exit 2)
	}
	out, _ := canonjson.Compact(r.Value())
	fmt.Println(r.Kind, string(out))

	// Change one recorded value without resealing: a digest no longer binds.
	tampered := doc.Clone()
	tampered.Get("statement").Set("result", canonjson.NewString("FAIL"))
	r, err = val.Validate(tampered, document.Options{})
	if err != nil {
		log.Fatal(err)
	}
	out, _ = canonjson.Compact(r.Value())
	fmt.Println(string(out))
	fmt.Println(r.Detail)
	// Output:
	// conformance bundle {"valid":true,"diagnostics":[],"schemaErrors":[]}
	// {"valid":false,"diagnostics":["MCP_RES_DIGEST_MISMATCH"],"schemaErrors":[]}
	// conformance-statement.json entry is e4d07312a9c3a9537241abc9f5f9cde59b3b5ce573eaf83bb9ef9d753619c5dc (803 bytes), statement digests to eb2bc898d31fa87fc7b50244dc72a69c30ecc6d264d089aa668a703913357b5b (803 bytes)
}

// ExampleDetect shows the kind detected from a document's schemaVersion.
// A document of no known kind (here a trust policy, or an array) is
// Unknown, which Validate checks as a conformance bundle.
func ExampleDetect() {
	for _, text := range []string{
		`{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}`,
		`{"schemaVersion":"mcp-res.attested-conformance-bundle/0.2.0","bundle":{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}}`,
		`{"schemaVersion":"mcp-res.conformance-bundle/0.1.0"}`,
		`{"schemaVersion":"mcp-res.migration-result/0.2.0"}`,
		`{"schemaVersion":"mcp-res.trust-policy/0.2.0"}`,
		`[]`,
	} {
		doc, err := canonjson.Parse([]byte(text))
		if err != nil {
			panic(err)
		}
		k := document.Detect(doc)
		fmt.Printf("%s: %q\n", k, k.SchemaVersion())
	}
	// Output:
	// conformance bundle: "mcp-res.conformance-bundle/0.2.0"
	// attested conformance bundle: "mcp-res.attested-conformance-bundle/0.2.0"
	// v0.1.0 conformance bundle: "mcp-res.conformance-bundle/0.1.0"
	// migration result: "mcp-res.migration-result/0.2.0"
	// unknown: ""
	// unknown: ""
}

// ExampleCoreBundle finds the conformance bundle that a signature or a
// log entry binds: an attested bundle's "bundle" member, or the document.
func ExampleCoreBundle() {
	for _, text := range []string{
		`{"schemaVersion":"mcp-res.attested-conformance-bundle/0.2.0","bundle":{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}}`,
		`{"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}`,
	} {
		doc, err := canonjson.Parse([]byte(text))
		if err != nil {
			panic(err)
		}
		core, _ := canonjson.Compact(document.CoreBundle(doc))
		fmt.Println(string(core))
	}
	// Output:
	// {"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}
	// {"schemaVersion":"mcp-res.conformance-bundle/0.2.0"}
}
