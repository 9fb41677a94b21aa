// Command transparency verifies a transparency reference offline: the log
// entry binds the bundle, it is included in a checkpoint the trusted log
// signed, and the checkpoint's witness cosignatures meet the quorum of a
// tlog policy. No network is used.
//
//	go run ./transparency -tlog-policy ../../testdata/transparency/tlog-policy.txt \
//	    -bundle ../../testdata/bundles/example.json ../../testdata/transparency/example.ref.json
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/trustpolicy"
)

func main() {
	policyFile := flag.String("tlog-policy", "", "the tlog-policy `FILE`: trusted logs, witnesses and quorum")
	bundleFile := flag.String("bundle", "", "the conformance bundle `FILE` the reference is for (or an attested bundle of it)")
	at := flag.String("evaluated-at", time.Now().UTC().Format(time.RFC3339), "cosignatures dated later do not count")
	flag.Parse()
	if *policyFile == "" || *bundleFile == "" || flag.NArg() != 1 {
		log.Fatal("usage: transparency -tlog-policy FILE -bundle FILE [-evaluated-at TIME] REFERENCE")
	}
	text, err := os.ReadFile(*policyFile)
	if err != nil {
		log.Fatal(err)
	}
	tp, errs := trustpolicy.ParseTLogPolicy(string(text))
	if errs != nil {
		log.Fatal(errs)
	}
	trust := tp.Trust()
	if trust.EvaluatedAt, err = time.Parse(time.RFC3339Nano, *at); err != nil {
		log.Fatal(err)
	}
	_, b, err := canonjson.ReadFile(*bundleFile)
	if err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	ref, proof, err := attest.ParseTransparencyReference(data) // what `mcpres log add -o` writes
	if err != nil {
		log.Fatal(err)
	}
	v, err := offline.Verify(proof, offline.EntryFor(document.CoreBundle(b)), trust)
	if err == nil {
		err = v.MatchesReference(ref.LogID, ref.EntryUUID) // the reference names what was proved
	}
	if err != nil {
		fmt.Println("NOT VERIFIED:", err)
		os.Exit(1)
	}
	cp := v.Checkpoint
	fmt.Printf("verified offline: %s leaf %d of %s (tree size %d), log key %s\n", v.Kind, v.Index, cp.Origin, cp.Size, cp.LogKey)
	for _, w := range cp.Witnesses {
		fmt.Printf("  cosigned by %s at %s\n", w.Name, time.Unix(int64(w.Time), 0).UTC().Format(time.RFC3339))
	}
	fmt.Println("  quorum:", cp.Quorum)
}
