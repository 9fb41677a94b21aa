// Command seal seals a draft conformance bundle, as a test harness does
// when it writes its evidence: every digest, statement mirror and
// generated manifest entry is computed, and the result validates. It
// writes the sealed bundle to standard output.
//
//	go run ./seal ../../testdata/drafts/example.draft.json > example.json
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: seal DRAFT")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	draft, err := canonjson.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	if err := bundle.Seal(draft); err != nil { // in place; a *bundle.SealError names the member
		log.Fatal(err)
	}
	r, err := validator.New().Bundle(draft) // a sealed draft is a valid bundle, or the draft says why not
	if err != nil {
		log.Fatal(err)
	}
	if !r.Valid {
		log.Fatalf("sealed, but invalid: %v %s", r.Diagnostics, r.Detail)
	}
	out, err := canonjson.Pretty(draft)
	if err != nil {
		log.Fatal(err)
	}
	os.Stdout.Write(out)
	fmt.Fprintln(os.Stderr, "sealed: bundleDigest", draft.Path("integrity", "bundleDigest").Str)
}
