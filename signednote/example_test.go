package signednote_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

// A log signs a checkpoint and a witness cosigns it; a verifier that holds
// both public keys opens it: the log signature must verify and the origin
// must be the log key's name before the body is parsed; the witness's
// cosignature is verified too, and its time read. The keys are test-only
// (fixed seeds); GenerateKey with crypto/rand.Reader makes real ones.
func ExampleOpen() {
	lskey, lvkey, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{1}, 32)), signednote.TypeEd25519, "log.example.org/demo")
	wskey, wvkey, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{2}, 32)), signednote.TypeCosignatureV1, "witness.example.org")
	fmt.Println("log key:", lvkey)
	logSigner, _ := signednote.ParseLogSigner(lskey)
	w, _ := signednote.ParseWitnessSigner(wskey)

	body := "log.example.org/demo\n4\n" + strings.Repeat("A", 43) + "=\n" // origin, size, root hash
	signed, err := note.Sign(&note.Note{Text: body}, logSigner, w.At(time.Unix(1767225600, 0)))
	if err != nil {
		panic(err)
	}

	logKey, err := signednote.ParseLogVerifier(lvkey) // strict: small-order keys and bad hashes are refused
	if err != nil {
		panic(err)
	}
	witnessKey, err := signednote.ParseWitnessVerifier(wvkey)
	if err != nil {
		panic(err)
	}
	cp, err := signednote.Open(signed, logKey, witnessKey)
	if err != nil {
		panic(err)
	}
	fmt.Println(cp.Origin, cp.Size, len(cp.Sigs), "signatures verified")
	ts, _ := signednote.CosignatureTimestamp(cp.Sigs[1]) // seconds since the Unix epoch, as the witness wrote it
	fmt.Println("cosigned by", cp.Sigs[1].Name, "at", time.Unix(int64(ts), 0).UTC().Format(time.RFC3339))

	// Another size under the same signatures does not open.
	_, err = signednote.Open(bytes.Replace(signed, []byte("\n4\n"), []byte("\n5\n"), 1), logKey, witnessKey)
	fmt.Println(err != nil)
	// Output:
	// log key: log.example.org/demo+a32fddd4+AYqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29c
	// log.example.org/demo 4 2 signatures verified
	// cosigned by witness.example.org at 2026-01-01T00:00:00Z
	// true
}
