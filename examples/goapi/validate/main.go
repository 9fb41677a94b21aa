// Command validate validates MCP-RES documents from their bytes, as a
// registry does on upload: every kind mcpres knows (conformance bundles,
// attested bundles, migration results, …) through one call. It prints one
// line per file and exits 1 when one is invalid.
//
//	go run ./validate ../../testdata/bundles/example.json
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
)

func main() {
	evaluatedAt := flag.String("evaluated-at", "", "evaluation time of attested bundles (RFC 3339; default now)")
	flag.Parse()
	if *evaluatedAt == "" {
		*evaluatedAt = time.Now().UTC().Format(time.RFC3339Nano)
	}
	val := document.New(nil) // safe for concurrent use: make one, validate many
	invalid := false
	for _, path := range flag.Args() {
		data, err := os.ReadFile(path) // bytes from anywhere: an upload, a database
		if err != nil {
			log.Fatal(err)
		}
		doc, err := canonjson.Parse(data) // strict JSON: no duplicate keys, no lone surrogates
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		r, err := val.Validate(doc, document.Options{EvaluatedAt: *evaluatedAt})
		if err != nil {
			log.Fatalf("%s: %v", path, err) // not a document at all (MCP_RES_INPUT_INVALID)
		}
		if r.Valid {
			fmt.Printf("%s: VALID %s\n", path, r.Kind)
			continue
		}
		invalid = true
		fmt.Printf("%s: INVALID %s %s: %s\n", path, r.Kind, strings.Join(r.Diagnostics, " "), r.Detail)
	}
	if invalid {
		os.Exit(1)
	}
}
