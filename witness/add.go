package witness

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// Limits of an add-checkpoint request (C2SP tlog-witness).
const (
	// MaxProofLines is the most consistency proof lines a client may send.
	MaxProofLines = 63
	// MaxAddRequestBytes bounds a request body: the old size line, 63
	// proof lines of 44 base64 characters and a checkpoint of at most
	// signednote.MaxBytes.
	MaxAddRequestBytes = len("old 18446744073709551615\n") + MaxProofLines*45 + 1 + signednote.MaxBytes
)

// Errors of the add-checkpoint protocol besides the refusals of [CosignCheckpoint].
var (
	// ErrMalformedRequest: the body is not an add-checkpoint request, or
	// its old size is larger than the checkpoint's, or a size is larger
	// than MaxTreeSize, or it carries a proof from size 0 (HTTP 400).
	ErrMalformedRequest = errors.New("witness: malformed add-checkpoint request")
	// ErrBadProof: the consistency proof from the recorded tree to the
	// checkpoint does not verify (HTTP 422). It wraps ErrRefused.
	ErrBadProof = fmt.Errorf("%w: the consistency proof does not verify", ErrRefused)
	// ErrKeyUnavailable: the witness's key could not sign (a token or an
	// agent that is gone, or a signature that did not verify under the
	// key): nothing was cosigned (HTTP 503; the next request tries again).
	ErrKeyUnavailable = errors.New("witness: the witness key could not sign")
)

// A ConflictError says that the old size of a request is not the size this
// witness last cosigned, or that the checkpoint has that size with another
// root hash (HTTP 409, the body giving Size). It wraps ErrRefused, and
// also ErrFork in the second case.
type ConflictError struct {
	Size uint64 // the size this witness last cosigned (0: never)
	Fork bool   // same size, another root hash
	Msg  string
}

func (e *ConflictError) Error() string { return "witness: refused: " + e.Msg }

// Is makes a ConflictError match ErrRefused, and ErrFork when it is one.
func (e *ConflictError) Is(target error) bool {
	return target == ErrRefused || (e.Fork && target == ErrFork)
}

// An AddRequest is a parsed add-checkpoint request body.
type AddRequest struct {
	OldSize uint64
	// Proof is the consistency proof, 32-byte hashes.
	Proof [][]byte
	// Checkpoint is the checkpoint note as sent (not yet verified).
	Checkpoint []byte
}

// ParseAddRequest parses an add-checkpoint request body strictly (C2SP
// tlog-witness): "old N\n" with N in decimal without leading zeros, at most
// [MaxProofLines] lines each the canonical base64 of a 32-byte hash, an
// empty line, then the checkpoint note (parsed later, with the log's key).
// Every line ends with a newline. The old size, and the checkpoint's size
// line, must be at most [MaxTreeSize]. Errors wrap [ErrMalformedRequest].
func ParseAddRequest(body []byte) (*AddRequest, error) {
	if len(body) > MaxAddRequestBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrMalformedRequest, len(body), MaxAddRequestBytes)
	}
	line, rest, ok := bytes.Cut(body, []byte("\n"))
	if !ok {
		return nil, fmt.Errorf("%w: no old size line", ErrMalformedRequest)
	}
	n, ok := bytes.CutPrefix(line, []byte("old "))
	if !ok {
		return nil, fmt.Errorf("%w: the first line is not \"old SIZE\"", ErrMalformedRequest)
	}
	size, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil || strconv.FormatUint(size, 10) != string(n) {
		return nil, fmt.Errorf("%w: old size %q is not a decimal number without leading zeros", ErrMalformedRequest, truncate(n, 24))
	}
	if size > MaxTreeSize {
		return nil, fmt.Errorf("%w: old size %d is larger than %d, the largest a witness records", ErrMalformedRequest, size, uint64(MaxTreeSize))
	}
	req := &AddRequest{OldSize: size}
	for {
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("%w: no empty line before the checkpoint", ErrMalformedRequest)
		}
		if len(line) == 0 {
			break
		}
		if len(req.Proof) == MaxProofLines {
			return nil, fmt.Errorf("%w: more than %d consistency proof lines", ErrMalformedRequest, MaxProofLines)
		}
		h, err := signednote.ParseHash(string(line))
		if err != nil {
			return nil, fmt.Errorf("%w: consistency proof line %d is not the canonical base64 of a %d-byte hash", ErrMalformedRequest, len(req.Proof)+1, sha256.Size)
		}
		req.Proof = append(req.Proof, h[:])
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("%w: no checkpoint", ErrMalformedRequest)
	}
	if size == 0 && len(req.Proof) > 0 {
		return nil, fmt.Errorf("%w: a consistency proof from size 0 must be empty", ErrMalformedRequest)
	}
	if n, ok := signednote.UnverifiedSize(rest); ok && n > MaxTreeSize {
		return nil, fmt.Errorf("%w: checkpoint size %d is larger than %d, the largest a witness records", ErrMalformedRequest, n, uint64(MaxTreeSize))
	}
	req.Checkpoint = bytes.Clone(rest)
	return req, nil
}

// Marshal encodes the request body.
func (r *AddRequest) Marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", r.OldSize)
	for _, h := range r.Proof {
		b.WriteString(base64.StdEncoding.EncodeToString(h))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.Write(r.Checkpoint)
	return b.Bytes()
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// AddCheckpoint is what a C2SP tlog-witness does with an add-checkpoint
// request for the log of logKey: authenticate the checkpoint, check the
// request against prev (the recorded state, nil when this witness never
// cosigned the log), verify the consistency proof, and sign at time now.
//
// The checks, in order:
//
//   - the checkpoint verifies with logKey and is for its origin, else an
//     error wrapping [ErrBadCheckpoint] (HTTP 403), or [ErrMalformedRequest]
//     when the note or body is malformed (400);
//   - the checkpoint size is at most [MaxTreeSize] ([ErrMalformedRequest],
//     400);
//   - the old size is at most the checkpoint size ([ErrMalformedRequest],
//     400): a smaller tree than the old size is never cosigned;
//   - the old size is the size last cosigned (0 when never): else a
//     [*ConflictError] with that size (409). A log that rolled back below
//     the recorded size can only send a smaller old size, so this also
//     refuses a rollback;
//   - at the same size, the root hash is the recorded one (else a
//     [*ConflictError] that is also an [ErrFork], 409);
//   - from a non-empty recorded tree, the proof verifies from the recorded
//     root to the checkpoint's root with merkle's proof.VerifyConsistency
//     (else [ErrBadProof], 422).
//
// The caller MUST record the returned State durably before it answers
// with the cosignature, and MUST serialise calls for one log, so that the
// check and the update are atomic (C2SP tlog-witness).
func AddCheckpoint(req *AddRequest, logKey *signednote.Verifier, w *signednote.WitnessSigner, prev *LogState, now time.Time) (*Cosignature, error) {
	origin := logKey.Name()
	if prev != nil && prev.Origin != origin {
		return nil, fmt.Errorf("witness: the recorded state is not a state of log %q", origin)
	}
	cp, err := signednote.Open(req.Checkpoint, logKey)
	if err != nil {
		var unv *note.UnverifiedNoteError
		var inv *note.InvalidSignatureError
		if errors.As(err, &unv) || errors.As(err, &inv) {
			return nil, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformedRequest, err)
	}
	if cp.Size > MaxTreeSize {
		return nil, fmt.Errorf("%w: checkpoint size %d is larger than %d, the largest a witness records", ErrMalformedRequest, cp.Size, uint64(MaxTreeSize))
	}
	if cp.Size == 0 && !bytes.Equal(cp.Hash[:], rfc6962.DefaultHasher.EmptyRoot()) {
		return nil, fmt.Errorf("%w: checkpoint of size 0 with root %s, not the empty tree's", ErrBadCheckpoint, cp.Hash)
	}
	if req.OldSize > cp.Size {
		return nil, fmt.Errorf("%w: old size %d is larger than the checkpoint size %d", ErrMalformedRequest, req.OldSize, cp.Size)
	}
	var recorded uint64
	if prev != nil {
		recorded = prev.Size
	}
	if req.OldSize != recorded {
		return nil, &ConflictError{Size: recorded,
			Msg: fmt.Sprintf("old size %d is not the size %d this witness last cosigned for %q", req.OldSize, recorded, origin)}
	}
	switch {
	case prev == nil:
		// Trust on first use: the protocol's old size 0.
	case cp.Size == prev.Size:
		if cp.Hash != prev.Hash {
			return nil, &ConflictError{Size: recorded, Fork: true,
				Msg: fmt.Sprintf("checkpoint of %q at size %d has root %s, but this witness cosigned root %s at that size", origin, cp.Size, cp.Hash, prev.Hash)}
		}
	case prev.Size == 0:
		if !bytes.Equal(prev.Hash[:], rfc6962.DefaultHasher.EmptyRoot()) {
			return nil, fmt.Errorf("%w: the recorded tree of size 0 of %q has root %s, not the empty tree's", ErrFork, origin, prev.Hash)
		}
	default:
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, prev.Size, cp.Size, req.Proof, prev.Hash[:], cp.Hash[:]); err != nil {
			return nil, fmt.Errorf("%w: from size %d (root %s) to %d (root %s) of %q: %v", ErrBadProof, prev.Size, prev.Hash, cp.Size, cp.Hash, origin, err)
		}
	}
	var cproof [][]byte
	if prev != nil && cp.Size != prev.Size {
		cproof = req.Proof
	}
	return sign(cp, w, prev, cproof, now)
}

// sign cosigns the checkpoint cp that passed the checks against prev.
func sign(cp *signednote.Checkpoint, w *signednote.WitnessSigner, prev *LogState, cproof [][]byte, now time.Time) (*Cosignature, error) {
	signed, err := note.Sign(&note.Note{Text: cp.Text}, w.At(now))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyUnavailable, err)
	}
	// note.Sign returns the text, a blank line and the signature line.
	c := &Cosignature{
		Checkpoint:       cp,
		Line:             signed[len(cp.Text)+1:],
		Time:             time.Unix(now.Unix(), 0).UTC(),
		State:            LogState{Origin: cp.Origin, Size: cp.Size, Hash: cp.Hash},
		ConsistencyProof: cproof,
	}
	if prev != nil {
		from := *prev
		c.From = &from
	}
	return c, nil
}
