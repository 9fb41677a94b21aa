package signednote

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpres/mcpres/internal/truncate"
	flog "github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
)

// MaxBytes is the largest checkpoint note accepted: a body and up to 100
// signature lines (note.Open's own limit) fit with room to spare.
const MaxBytes = 64 << 10

// UnverifiedSize reads the tree size line (the second line) of a
// checkpoint note whose signatures have not been verified. It is a hint
// for what may be decided before verification — refusing a size that could
// never be recorded, or comparing a storage's own rows — and never
// establishes anything: [Open] parses a note once its signature verifies.
func UnverifiedSize(note []byte) (uint64, bool) {
	_, rest, ok := bytes.Cut(note, []byte("\n"))
	if !ok {
		return 0, false
	}
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(string(line), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// MaxSignatures is the most signature lines a note may carry (sumdb/note's
// limit).
const MaxSignatures = 100

// HashSize is the size of a [Hash]: a SHA-256 digest.
const HashSize = sha256.Size

// A Hash is an RFC 6962 tree hash, such as the root hash a checkpoint
// commits to (golang.org/x/mod/sumdb/tlog.Hash is the same type, and
// converts to and from it).
type Hash [HashSize]byte

// String returns the hash as a checkpoint writes it: standard base64 with
// padding.
func (h Hash) String() string { return base64.StdEncoding.EncodeToString(h[:]) }

// ParseHash reads a hash as a checkpoint writes it: the canonical padded
// base64 of exactly [HashSize] bytes (one encoding per hash).
func ParseHash(s string) (Hash, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != HashSize || base64.StdEncoding.EncodeToString(b) != s {
		return Hash{}, fmt.Errorf("hash %q is not the canonical base64 of %d bytes", truncate.String(s, 64), HashSize)
	}
	return Hash(b), nil
}

// A Checkpoint is an authenticated, parsed checkpoint.
type Checkpoint struct {
	Origin string
	Size   uint64
	Hash   Hash // the RFC 6962 root hash
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
// other verifiers) and parses the body. The keys are *Verifier, never any
// note.Verifier, so that only a strictly parsed key can authenticate a
// checkpoint (sumdb/note's own verifiers accept small-order keys). The
// note is at most [MaxBytes]; its signatures are checked by [OpenNote],
// whose errors Open returns (a malformed note or a signature that does
// not verify wrapped as "checkpoint signatures: …", a note without the
// log's signature as the *[NotSignedByLogError] itself); then the body
// must pass [ParseBody] and the origin must equal logKey.Name().
// Signatures by keys not given are returned unverified.
func Open(data []byte, logKey *Verifier, others ...*Verifier) (*Checkpoint, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("checkpoint is %d bytes, more than %d", len(data), MaxBytes)
	}
	n, err := OpenNote(data, logKey, others...)
	if err != nil {
		if ns := (*NotSignedByLogError)(nil); errors.As(err, &ns) {
			return nil, err
		}
		return nil, fmt.Errorf("checkpoint signatures: %w", err)
	}
	// Authenticated: now it is safe to parse.
	b, err := ParseBody([]byte(n.Text))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if b.Origin != logKey.Name() {
		return nil, fmt.Errorf("checkpoint origin is %q, want %q", b.Origin, logKey.Name())
	}
	return &Checkpoint{
		Origin:         b.Origin,
		Size:           b.Size,
		Hash:           b.Hash,
		Text:           n.Text,
		Note:           bytes.Clone(data),
		Sigs:           n.Sigs,
		UnverifiedSigs: n.UnverifiedSigs,
	}, nil
}

// A NotSignedByLogError is a signed note that carries no valid signature
// by the log key (Key is its NAME+HASH, 8 hex digits). Err is sumdb/note's
// *note.UnverifiedNoteError when no signature verified at all, else nil.
type NotSignedByLogError struct {
	Key string
	Err error
}

func (e *NotSignedByLogError) Error() string {
	if e.Err != nil {
		return "checkpoint is not signed by the log key " + e.Key + ": " + e.Err.Error()
	}
	return "checkpoint is not signed by the log key " + e.Key
}

func (e *NotSignedByLogError) Unwrap() error { return e.Err }

// OpenNote verifies the signatures of the signed note data: sumdb/note's
// Open with logKey and others (strict verifiers only, as [Open]), then the
// log's signature must be among the verified ones. It reads neither the
// text nor the size of data (the caller bounds it: [Open] at [MaxBytes]).
// It returns the note (Sigs: the verified signatures, in note order;
// UnverifiedSigs: those by keys not given), or one of:
//
//   - sumdb/note's *note.InvalidSignatureError, as it is: a line by one of
//     the keys given does not verify;
//   - a *[NotSignedByLogError]: no signature by logKey verified;
//   - sumdb/note's error for a malformed note, as it is.
func OpenNote(data []byte, logKey *Verifier, others ...*Verifier) (*note.Note, error) {
	n, err := note.Open(data, verifierList(logKey, others))
	key := fmt.Sprintf("%s+%08x", logKey.Name(), logKey.KeyHash())
	if err != nil {
		var unv *note.UnverifiedNoteError
		if errors.As(err, &unv) {
			return nil, &NotSignedByLogError{Key: key, Err: err}
		}
		return nil, err
	}
	if !signedBy(n, logKey) {
		return nil, &NotSignedByLogError{Key: key}
	}
	return n, nil
}

// verifierList is the note.Verifiers of first and rest.
func verifierList(first *Verifier, rest []*Verifier) note.Verifiers {
	vs := make([]note.Verifier, 0, 1+len(rest))
	if first != nil {
		vs = append(vs, first)
	}
	for _, v := range rest {
		vs = append(vs, v)
	}
	return note.VerifierList(vs...)
}

// signedBy reports whether an opened note carries a verified signature by
// key (same name and key hash).
func signedBy(n *note.Note, key *Verifier) bool {
	for _, s := range n.Sigs {
		if s.Name == key.Name() && s.Hash == key.KeyHash() {
			return true
		}
	}
	return false
}

// A Body is a parsed checkpoint body: the first three lines, and Rest, the
// extension lines after them (nil when there are none).
type Body struct {
	Origin string
	Size   uint64
	Hash   Hash
	Rest   []byte
}

// A BodyError is a checkpoint body that is not strict: Msg says which rule
// failed; Err is formats' error when its parser rejected the text.
type BodyError struct {
	Msg string
	Err error
}

func (e *BodyError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *BodyError) Unwrap() error { return e.Err }

// ParseBody reads a checkpoint body strictly: formats'
// Checkpoint.Unmarshal, then the re-encoding must give the text back (a
// size without leading zeros, canonical base64) and the root hash must be
// 32 bytes. Extension lines after the hash are allowed and returned in
// Rest. Any failure is a *[BodyError]. It authenticates nothing: call it on
// the text of a note whose log signature verified, as [Open] does.
func ParseBody(text []byte) (*Body, error) {
	var cp flog.Checkpoint
	rest, err := cp.Unmarshal(text)
	if err != nil {
		return nil, &BodyError{Msg: "malformed body", Err: err}
	}
	if len(cp.Hash) != HashSize {
		return nil, &BodyError{Msg: fmt.Sprintf("root hash is %d bytes, want %d", len(cp.Hash), HashSize)}
	}
	if !bytes.Equal(append(cp.Marshal(), rest...), text) {
		return nil, &BodyError{Msg: "body is not in canonical form (a size with leading zeros or non-canonical base64)"}
	}
	return &Body{Origin: cp.Origin, Size: cp.Size, Hash: Hash(cp.Hash), Rest: rest}, nil
}

// A SigLine is one signature line of a signed note, unverified: the key
// name, the key hash and the signature bytes after it.
type SigLine struct {
	Name string
	Hash uint32
	Sig  []byte
}

// Split checks the shape of a signed note without verifying anything:
// sumdb/note's rules (text, an empty line, 1 to [MaxSignatures] lines
// "— NAME BASE64\n" with a valid name and at least a key hash and one
// signature byte), and canonical padded base64 in the signature lines,
// which sumdb/note does not require: one signature has one encoding. It
// returns the text (with its final newline) and the signature lines.
func Split(n []byte) (text []byte, sigs []SigLine, err error) {
	i := bytes.LastIndex(n, []byte("\n\n"))
	if i < 0 {
		return nil, nil, fmt.Errorf("not a signed note: no empty line before the signatures")
	}
	text, block := n[:i+1], n[i+2:]
	if len(block) == 0 || block[len(block)-1] != '\n' {
		return nil, nil, fmt.Errorf("not a signed note: no signature lines, or the last one does not end in LF")
	}
	for _, line := range strings.SplitAfter(string(block), "\n") {
		if line == "" {
			continue
		}
		rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "— ")
		name, b64, _ := strings.Cut(rest, " ")
		sig, err := base64.StdEncoding.DecodeString(b64)
		if !ok || !validName(name) || err != nil || len(sig) < 5 || base64.StdEncoding.EncodeToString(sig) != b64 {
			return nil, nil, fmt.Errorf("malformed signature line %q", truncate.String(line, 40))
		}
		sigs = append(sigs, SigLine{name, binary.BigEndian.Uint32(sig), sig[4:]})
	}
	if len(sigs) > MaxSignatures {
		return nil, nil, fmt.Errorf("%d signature lines, more than sumdb/note's limit of %d", len(sigs), MaxSignatures)
	}
	return text, sigs, nil
}

// validName is sumdb/note's rule for the name of a signature line, which
// is looser than [CheckName]: a line by a key this program would not parse
// is still a well-formed line, reported as a signature by an unknown key.
func validName(name string) bool {
	return name != "" && utf8.ValidString(name) && strings.IndexFunc(name, unicode.IsSpace) < 0 && !strings.Contains(name, "+")
}

// VerifyLine verifies one signature line, "— NAME BASE64\n" as a witness
// returns it (C2SP tlog-witness), against the text of c with keys: as if
// it were the only signature of the note. It returns the signature and
// the key that made it, or:
//
//   - a *note.UnknownVerifierError: the line is by none of keys (matched by
//     name and key hash);
//   - sumdb/note's *note.InvalidSignatureError, as it is: the line is by one
//     of keys but does not verify (a cosignature of another checkpoint, or
//     a corrupt one);
//   - sumdb/note's error for a malformed line, as it is, or an error for
//     line not being one line ending in a newline.
func (c *Checkpoint) VerifyLine(line []byte, keys ...*Verifier) (note.Signature, *Verifier, error) {
	if len(line) == 0 || bytes.IndexByte(line, '\n') != len(line)-1 {
		return note.Signature{}, nil, errors.New("not one signature line ending in a newline")
	}
	n, err := note.Open(append([]byte(c.Text+"\n"), line...), verifierList(nil, keys))
	if err != nil {
		var unv *note.UnverifiedNoteError
		if errors.As(err, &unv) && len(unv.Note.UnverifiedSigs) == 1 {
			s := unv.Note.UnverifiedSigs[0]
			return note.Signature{}, nil, &note.UnknownVerifierError{Name: s.Name, KeyHash: s.Hash}
		}
		return note.Signature{}, nil, err
	}
	for _, s := range n.Sigs { // exactly one: the line
		for _, k := range keys {
			if k.Name() == s.Name && k.KeyHash() == s.Hash {
				return s, k, nil
			}
		}
	}
	return note.Signature{}, nil, errors.New("not one signature line") // unreachable: note.Open verified one line
}
