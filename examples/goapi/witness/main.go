// Command witness is a C2SP tlog-witness deciding on a log's checkpoint:
// it authenticates the checkpoint with the log's key, checks it against
// what it last cosigned for that log, and cosigns it. Here the checkpoint
// is the one in a transparency reference, the log key comes from a tlog
// policy, and the witness key is generated at run time (test-only: it is
// thrown away). A second request that ignores the recorded state is
// refused, as a rolled-back or forked log would be.
//
//	go run ./witness -tlog-policy ../../testdata/transparency/tlog-policy.txt \
//	    ../../testdata/transparency/example.ref.json
package main

import (
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/witness"
)

func main() {
	policyFile := flag.String("tlog-policy", "", "the tlog-policy `FILE` whose (first) log is cosigned")
	flag.Parse()
	if *policyFile == "" || flag.NArg() != 1 {
		log.Fatal("usage: witness -tlog-policy FILE REFERENCE")
	}
	text, err := os.ReadFile(*policyFile)
	if err != nil {
		log.Fatal(err)
	}
	tp, errs := trustpolicy.ParseTLogPolicy(string(text))
	if errs != nil {
		log.Fatal(errs)
	}
	logKey := tp.Logs[0].Key
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	_, proofBytes, err := attest.ParseTransparencyReference(data)
	if err != nil {
		log.Fatal(err)
	}
	proof, err := offline.ParseProof(proofBytes)
	if err != nil {
		log.Fatal(err)
	}

	// TEST-ONLY: a fresh witness key, never written anywhere.
	skey, vkey, err := signednote.GenerateKey(rand.Reader, signednote.TypeCosignatureV1, "witness.goapi.example")
	if err != nil {
		log.Fatal(err)
	}
	w, err := signednote.ParseWitnessSigner(skey)
	if err != nil {
		log.Fatal(err)
	}
	// The request a log sends: the size this witness last cosigned (0: never), a consistency proof, the checkpoint.
	req := &witness.AddRequest{OldSize: 0, Checkpoint: proof.Checkpoint}
	c, err := witness.AddCheckpoint(req, logKey, w, nil, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	state := c.State // a witness records this durably before it answers with c.Line
	fmt.Printf("cosigned %s at size %d: %s", c.Checkpoint.Origin, state.Size, c.Line)

	// Anyone with the witness's public key can check the cosignature on the checkpoint.
	wv, err := signednote.ParseWitnessVerifier(vkey)
	if err != nil {
		log.Fatal(err)
	}
	cosigned, err := witness.Cosigners(append(proof.Checkpoint, c.Line...), logKey, []*signednote.Verifier{wv})
	if err != nil || len(cosigned) != 1 {
		log.Fatalf("the cosignature does not verify: %v", err)
	}
	fmt.Println("verified cosignature by", cosigned[0].Name)

	// The same request again claims the witness never cosigned: refused with the recorded size.
	_, err = witness.AddCheckpoint(req, logKey, w, &state, time.Now())
	var conflict *witness.ConflictError
	if !errors.As(err, &conflict) {
		log.Fatalf("a stale request was not refused: %v", err)
	}
	fmt.Printf("refused a stale request: %v (recorded size %d)\n", err, conflict.Size)
}
