package witness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"golang.org/x/mod/sumdb/note"
)

// checkpointOnly is a LogReader that has a checkpoint and no tiles: enough
// for a witness that has not cosigned the log before, or has cosigned this
// tree size (no consistency proof is needed). A real one reads a
// tlog-tiles log (tessera/client.FileFetcher, or HTTPFetcher).
type checkpointOnly []byte

func (c checkpointOnly) ReadCheckpoint(context.Context) ([]byte, error) { return c, nil }
func (c checkpointOnly) ReadTile(context.Context, uint64, uint64, uint8) ([]byte, error) {
	return nil, errors.New("no tiles here")
}

// Cosign a log's latest checkpoint as `mcpres witness cosign` does: the
// checkpoint is authenticated with the log's key and checked against the
// state this witness recorded for the log, then cosigned. Here the log is
// testdata/transparency's (its checkpoint taken from the reference's
// proof), and the witness key is a test-only key from a fixed seed. A
// checkpoint smaller than the recorded tree is a rollback: refused.
func ExampleCosignCheckpoint() {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "transparency", "example.ref.json"))
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
	logKey, err := signednote.ParseLogVerifier("log.example.org/mcpres-example+40660f02+AcZ/KI37VNJtlYMSUxKBorcOMQySROD5uUn/h00861ZU")
	if err != nil {
		log.Fatal(err)
	}
	skey, _, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{3}, 32)), signednote.TypeCosignatureV1, "witness.example.net")
	w, err := signednote.ParseWitnessSigner(skey)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := witness.CosignCheckpoint(ctx, checkpointOnly(proof.Checkpoint), logKey, w, nil, time.Unix(1767225600, 0))
	if err != nil {
		log.Fatal(err)
	}
	// Record c.State durably (witness.LockStateFile), then publish c.Line.
	fmt.Printf("cosigned %s at size %d\n%s", c.State.Origin, c.State.Size, c.Line)

	grown := c.State
	grown.Size = 5 // as if this witness had cosigned a larger tree of the log
	_, err = witness.CosignCheckpoint(ctx, checkpointOnly(proof.Checkpoint), logKey, w, &grown, time.Unix(1767225601, 0))
	fmt.Println(errors.Is(err, witness.ErrRefused), err)
	// Output:
	// cosigned log.example.org/mcpres-example at size 4
	// — witness.example.net wrQqZgAAAABpVbkAXjigpQ2mynkKojoj3RdsHbWh5i8fzoCgc+xKMHbZBxYc08gMvr3LDZPbi6wtEC4/F8yykesBN2gIsDqmFQFzBA==
	// true witness: refused: the log went backwards: checkpoint size 4 is smaller than the size 5 this witness cosigned for "log.example.org/mcpres-example"
}

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
