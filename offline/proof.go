package offline

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpres/mcpres/internal/truncate"
	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/formats/proof"
)

// ProofHeader is the first line of a C2SP tlog-proof, newline included: proof
// bytes that start with it are [KindTLogProof].
const ProofHeader = "c2sp.org/tlog-proof@v1\n"

// Limits of [ParseProof].
const (
	// MaxProofSize is the largest proof accepted: what a reference can
	// carry (inclusionProofBase64 is at most 1,048,576 base64 characters).
	MaxProofSize = 786432
	// MaxProofHashes is the most inclusion hashes a tree of fewer than
	// 2^64 leaves needs.
	MaxProofHashes = 64
)

// A Kind is what proof bytes are, by their first bytes (see [DetectKind]).
type Kind int

const (
	// KindOpaque is anything else: only its SHA-256 can be checked
	// (upstream's DIGEST_ONLY meaning, REFERENCE §6.10).
	KindOpaque Kind = iota
	// KindTLogProof is a C2SP tlog-proof: the bytes start with
	// [ProofHeader]. This package verifies it.
	KindTLogProof
	// KindRekorV1 is a Rekor v1 log entry (a LogEntryAnon JSON object):
	// the first byte is "{". Package offline/rekor verifies it.
	KindRekorV1
)

func (k Kind) String() string {
	switch k {
	case KindTLogProof:
		return "c2sp.org/tlog-proof@v1"
	case KindRekorV1:
		return "Rekor v1 log entry"
	}
	return "opaque bytes"
}

// DetectKind tells the proof kinds apart by their first bytes: a
// tlog-proof starts with [ProofHeader] ("c2sp.org/tlog-proof@v1\n"), a Rekor
// v1 entry with "{" (no byte order mark or whitespace before it), anything
// else is opaque.
func DetectKind(b []byte) Kind {
	switch {
	case bytes.HasPrefix(b, []byte(ProofHeader)):
		return KindTLogProof
	case len(b) > 0 && b[0] == '{':
		return KindRekorV1
	}
	return KindOpaque
}

// A Proof is a parsed mcpres tlog-proof: a C2SP tlog-proof whose extra data
// is the log entry.
type Proof struct {
	// Index is the leaf index of the entry in the log.
	Index uint64
	// Hashes is the RFC 6962 inclusion proof of the leaf in the tree of
	// the checkpoint's size.
	Hashes [][sha256.Size]byte
	// Checkpoint is the signed note: the log's signature and any witness
	// cosignature/v1 lines.
	Checkpoint []byte
	// Entry is the leaf data: the canonical bytes of an
	// mcpres.transparency-entry/v1 or /v2 (see [ParseEntry]).
	Entry []byte

	// text and sigs are Checkpoint split by ParseProof (signednote.Split),
	// so that a verification splits the note once.
	text []byte
	sigs []signednote.SigLine
}

// Marshal returns the tlog-proof bytes of p (transparency-dev/formats'
// TLogProof.Marshal): what [ParseProof] reads back.
func (p *Proof) Marshal() []byte {
	return proof.TLogProof{Index: p.Index, Hashes: p.Hashes, Checkpoint: p.Checkpoint, ExtraData: p.Entry}.Marshal()
}

// ParseProof reads proof bytes strictly and returns the proof, or a nil
// proof and a *[ProofError] (wrapping [ErrNotTLogProof] when the header is
// missing). It checks the whole input first: at most [MaxProofSize] bytes,
// the header, UTF-8, no control character but LF (a CR is reported as
// such). Then the layout:
//
//	c2sp.org/tlog-proof@v1
//	extra BASE64(entry)          required: the log entry, the leaf data
//	index N                      decimal, no leading zeros
//	BASE64(hash)                 0..64 lines, 32-byte hashes
//	                             an empty line
//	CHECKPOINT                   a signed note, to the end of the input
//
// transparency-dev/formats' TLogProof.Unmarshal is lenient (it reads lines
// with bufio.Scanner, accepts CRLF, non-canonical base64 and leading zeros,
// and appends a newline to the checkpoint), so ParseProof re-marshals what
// it read and requires the input bytes back: one proof has one encoding.
// The checkpoint must have the shape of a signed note (text, an empty line,
// signature lines starting with "— " and ending in LF); its signatures and
// body are checked by [Verify], not here.
func ParseProof(b []byte) (*Proof, error) {
	if len(b) > MaxProofSize {
		return nil, &ProofError{Msg: fmt.Sprintf("%d bytes, more than the limit of %d", len(b), MaxProofSize)}
	}
	if bytes.HasPrefix(b, []byte(strings.TrimSuffix(ProofHeader, "\n")+"\r\n")) {
		return nil, &ProofError{Msg: fmt.Sprintf("carriage return at byte %d: lines end with LF only", len(ProofHeader)-1)}
	}
	if !bytes.HasPrefix(b, []byte(ProofHeader)) {
		return nil, &ProofError{Msg: fmt.Sprintf("%s (first line %q)", DetectKind(b), firstLine(b)), Err: ErrNotTLogProof}
	}
	if !utf8.Valid(b) {
		return nil, &ProofError{Msg: "not valid UTF-8"}
	}
	for i, c := range b {
		if c == '\r' {
			return nil, &ProofError{Msg: fmt.Sprintf("carriage return at byte %d: lines end with LF only", i)}
		}
		if c < 0x20 && c != '\n' {
			return nil, &ProofError{Msg: fmt.Sprintf("control character 0x%02x at byte %d", c, i)}
		}
	}
	if !bytes.HasPrefix(b[len(ProofHeader):], []byte("extra ")) {
		return nil, &ProofError{Msg: "no extra line after the header: an mcpres proof carries its log entry as extra data"}
	}
	var tp proof.TLogProof
	if err := tp.Unmarshal(b); err != nil {
		return nil, &ProofError{Msg: "malformed", Err: err}
	}
	if len(tp.Hashes) > MaxProofHashes {
		return nil, &ProofError{Msg: fmt.Sprintf("%d inclusion hashes, more than the limit of %d", len(tp.Hashes), MaxProofHashes)}
	}
	if !bytes.Equal(tp.Marshal(), b) {
		return nil, &ProofError{Msg: "not in canonical form (re-encoding gives other bytes: non-canonical base64, a leading zero, a missing empty line or trailing data)"}
	}
	text, sigs, err := signednote.Split(tp.Checkpoint)
	if err != nil {
		return nil, &ProofError{Msg: "checkpoint", Err: err}
	}
	return &Proof{Index: tp.Index, Hashes: tp.Hashes, Checkpoint: tp.Checkpoint, Entry: tp.ExtraData, text: text, sigs: sigs}, nil
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return truncate.String(strings.ToValidUTF8(string(b), "\uFFFD"), 40)
}

// parseCheckpointBody is signednote.ParseBody with its error as a
// *CheckpointError: formats' Checkpoint.Unmarshal, then the re-encoding
// must give the text back (a size without leading zeros, canonical base64)
// and the root hash must be 32 bytes. Extension lines are allowed.
func parseCheckpointBody(text []byte) (*signednote.Body, error) {
	b, err := signednote.ParseBody(text)
	if be := (*signednote.BodyError)(nil); errors.As(err, &be) {
		return nil, &CheckpointError{Msg: be.Msg, Err: be.Err}
	}
	return b, err
}
