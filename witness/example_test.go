package witness_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/internal/signednote"
	"github.com/mcpres/mcpres/witness"
	"golang.org/x/mod/sumdb/note"
)

// A C2SP tlog-witness request, decided: the first checkpoint of a log is
// cosigned from "old 0"; the same request again is a conflict whose size
// is the one now recorded.
func ExampleAddCheckpoint() {
	// Test-only keys from fixed seeds.
	skey, vkey, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{1}, 32)), signednote.TypeEd25519, "example.org/log")
	logSigner, _ := signednote.ParseLogSigner(skey)
	logKey, _ := signednote.ParseLogVerifier(vkey)
	wkey, _, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{2}, 32)), signednote.TypeCosignatureV1, "example.org/witness")
	w, _ := signednote.ParseWitnessSigner(wkey)

	cp, _ := note.Sign(&note.Note{Text: "example.org/log\n1\n" + strings.Repeat("A", 43) + "=\n"}, logSigner)
	req, err := witness.ParseAddRequest(append([]byte("old 0\n\n"), cp...))
	if err != nil {
		panic(err)
	}
	c, err := witness.AddCheckpoint(req, logKey, w, nil, time.Unix(1767225600, 0))
	if err != nil {
		panic(err)
	}
	// Record c.State durably, then answer c.Line.
	fmt.Printf("cosigned size %d: %s\n", c.State.Size, strings.Fields(string(c.Line))[1])
	_, err = witness.AddCheckpoint(req, logKey, w, &c.State, time.Unix(1767225601, 0))
	var conflict *witness.ConflictError
	fmt.Println(errors.As(err, &conflict), conflict.Size)
	// Output:
	// cosigned size 1: example.org/witness
	// true 1
}
