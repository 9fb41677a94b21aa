package witness_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
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

// A C2SP tlog-witness request body parsed strictly: the old size, the
// consistency proof hashes, then the checkpoint note; Marshal gives the
// same bytes back. A non-canonical size is malformed.
func ExampleParseAddRequest() {
	hash := strings.Repeat("A", 43) + "=" // base64 of 32 zero bytes
	body := "old 1\n" + hash + "\n\nexample.org/log\n2\n" + hash + "\n\n— example.org/log AAAA\n"
	req, err := witness.ParseAddRequest([]byte(body))
	if err != nil {
		panic(err)
	}
	fmt.Println(req.OldSize, len(req.Proof), bytes.Equal(req.Marshal(), []byte(body)))
	_, err = witness.ParseAddRequest([]byte("old 01\n\n" + body[len("old 1\n"+hash+"\n\n"):]))
	fmt.Println(errors.Is(err, witness.ErrMalformedRequest))
	// Output:
	// 1 1 true
	// true
}
