// Package checkpoint opens signed log checkpoints (C2SP tlog-checkpoint):
// it authenticates the note with the log's key first, and only then parses
// the body, strictly.
//
// A checkpoint is a signed note (golang.org/x/mod/sumdb/note) whose text is
//
//	ORIGIN "\n" DECIMAL(SIZE) "\n" BASE64(ROOT HASH) "\n" [EXTENSION LINES]
//
// followed by a blank line and signature lines: the log's own, and any
// witness cosignatures. Open accepts one encoding per value: the size
// without leading zeros, the 32-byte root hash in canonical padded base64
// (formats' log.Checkpoint.Unmarshal is lenient on both), and the origin
// must be the log key's name.
package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	flog "github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
)

// MaxBytes is the largest checkpoint note accepted: a body and up to 100
// signature lines (note.Open's own limit) fit with room to spare.
const MaxBytes = 64 << 10

// A Checkpoint is an authenticated, parsed checkpoint.
type Checkpoint struct {
	Origin string
	Size   uint64
	Hash   []byte // the 32-byte RFC 6962 root hash
	// Text is the note text: the checkpoint body, with any extension lines.
	Text string
	// Note is the whole signed note as read.
	Note []byte
	// Sigs are the verified signatures: the log's, then those of the other
	// verifiers given to Open, in note order.
	Sigs []note.Signature
	// UnverifiedSigs are signatures by keys Open was not given.
	UnverifiedSigs []note.Signature
}

// Open authenticates data with logKey (and verifies any signature by the
// other verifiers) and parses the body. The log signature must be present
// and valid, and the origin must equal logKey.Name(). A signature by a
// given key that does not verify is an error (note.InvalidSignatureError,
// wrapped); signatures by other keys are returned unverified.
func Open(data []byte, logKey note.Verifier, others ...note.Verifier) (*Checkpoint, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("checkpoint is %d bytes, more than %d", len(data), MaxBytes)
	}
	vs := append([]note.Verifier{logKey}, others...)
	n, err := note.Open(data, note.VerifierList(vs...))
	if err != nil {
		var unv *note.UnverifiedNoteError
		if errors.As(err, &unv) {
			return nil, fmt.Errorf("checkpoint is not signed by the log key %s+%08x: %w", logKey.Name(), logKey.KeyHash(), err)
		}
		return nil, fmt.Errorf("checkpoint signatures: %w", err)
	}
	signed := false
	for _, s := range n.Sigs {
		if s.Name == logKey.Name() && s.Hash == logKey.KeyHash() {
			signed = true
		}
	}
	if !signed {
		return nil, fmt.Errorf("checkpoint is not signed by the log key %s+%08x", logKey.Name(), logKey.KeyHash())
	}
	// Authenticated: now it is safe to parse.
	var c flog.Checkpoint
	if _, err := c.Unmarshal([]byte(n.Text)); err != nil {
		return nil, fmt.Errorf("checkpoint body: %w", err)
	}
	if len(c.Hash) != sha256.Size {
		return nil, fmt.Errorf("checkpoint root hash is %d bytes, want %d", len(c.Hash), sha256.Size)
	}
	if !bytes.HasPrefix([]byte(n.Text), c.Marshal()) {
		return nil, errors.New("checkpoint body is not in canonical form (size with leading zeros or non-canonical base64)")
	}
	if c.Origin != logKey.Name() {
		return nil, fmt.Errorf("checkpoint origin is %q, want %q", c.Origin, logKey.Name())
	}
	return &Checkpoint{
		Origin:         c.Origin,
		Size:           c.Size,
		Hash:           c.Hash,
		Text:           n.Text,
		Note:           bytes.Clone(data),
		Sigs:           n.Sigs,
		UnverifiedSigs: n.UnverifiedSigs,
	}, nil
}
