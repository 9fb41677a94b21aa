package witness

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

// Errors of Attach besides checkpoint and format errors.
var (
	// ErrBadCosignature: a cosignature does not verify against the
	// checkpoint body with its witness key (it is for another checkpoint,
	// or corrupt).
	ErrBadCosignature = errors.New("witness: cosignature does not verify against the checkpoint")
	// ErrUnknownWitness: a cosignature is by a key that was not given.
	ErrUnknownWitness = errors.New("witness: cosignature by a key that was not given")
	// ErrDuplicateWitnessKey: the same Ed25519 key was given twice.
	ErrDuplicateWitnessKey = errors.New("witness: the same witness key was given twice")
)

// maxNoteSignatures is note.Open's limit on signatures per note.
const maxNoteSignatures = 100

// A Dropped cosignature was not attached because its key had already
// cosigned.
type Dropped struct {
	Source string // as given to Attach
	Name   string
	Reason string
}

// An AttachResult says what Attach did.
type AttachResult struct {
	Checkpoint []byte                          // the checkpoint note with the cosignatures
	Added      []signednote.CountedCosignature // cosignatures added, in the order given (Name: the key's)
	Dropped    []Dropped
	Cosigners  []signednote.CountedCosignature // every distinct witness key now on the checkpoint
}

// A CosignatureInput is one collected cosignature file: one or more
// cosignature lines, each "— NAME BASE64\n".
type CosignatureInput struct {
	Source string // a name for messages, such as the file name
	Data   []byte
}

// Attach adds collected cosignatures to the checkpoint note cp, signed by
// logKey. witnesses are the keys the cosignatures may be by; no key may be
// given twice (compared by fingerprint, [ErrDuplicateWitnessKey]).
//
// The checkpoint must verify with logKey, and any cosignature it already
// carries by a given witness key must verify. Each new line must be a
// signature line by one of witnesses ([ErrUnknownWitness] otherwise) that
// verifies against the checkpoint body ([ErrBadCosignature]). A line by a
// key that already cosigned (on the checkpoint, or earlier in inputs) is
// dropped, so a key never counts twice. Signatures by keys that are not
// given are kept as they are. The result keeps the note's bytes and appends
// the new lines. Nothing is returned with an error. Attach judges no
// time: [AttachAt] does (tlog/witnessclient judges each cosignature as it
// arrives instead, so that one witness's date fails only that witness).
func Attach(cp []byte, logKey *signednote.Verifier, witnesses []*signednote.Verifier, inputs []CosignatureInput) (*AttachResult, error) {
	return attach(cp, logKey, witnesses, inputs, nil)
}

// AttachAt is [Attach] under the time rule every verifier applies: a new
// cosignature that does not count at the evaluation time at
// (signednote.JudgeCosignature, no maximum age: one dated after at) is
// refused with an error wrapping the *signednote.UncountedCosignature
// (Name: the key's name), and nothing is attached. A line that would be
// dropped (its key already cosigned) is not judged.
func AttachAt(cp []byte, logKey *signednote.Verifier, witnesses []*signednote.Verifier, inputs []CosignatureInput, at time.Time) (*AttachResult, error) {
	return attach(cp, logKey, witnesses, inputs, &at)
}

func attach(cp []byte, logKey *signednote.Verifier, witnesses []*signednote.Verifier, inputs []CosignatureInput, at *time.Time) (*AttachResult, error) {
	byFP := map[string]*signednote.Verifier{}
	vs := make([]*signednote.Verifier, 0, len(witnesses))
	for _, w := range witnesses {
		fp := w.Fingerprint()
		if prev, dup := byFP[fp]; dup {
			return nil, fmt.Errorf("%w: %s and %s (fingerprint %s)", ErrDuplicateWitnessKey, prev, w, fp)
		}
		if err := w.CheckType(signednote.TypeCosignatureV1); err != nil {
			return nil, fmt.Errorf("witness key %s: %w", w, err)
		}
		byFP[fp] = w
		vs = append(vs, w)
	}
	c, err := signednote.Open(cp, logKey, vs...)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, s := range c.Sigs {
		if w := findVerifier(witnesses, s); w != nil {
			have[w.Fingerprint()] = true
		}
	}
	res := &AttachResult{}
	out := bytes.Clone(cp)
	nsigs := len(c.Sigs) + len(c.UnverifiedSigs)
	for _, in := range inputs {
		lines, err := signatureLines(in)
		if err != nil {
			return nil, err
		}
		for _, line := range lines {
			s, w, err := verifyLine(c, line, vs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", in.Source, err)
			}
			fp := w.Fingerprint()
			if have[fp] {
				res.Dropped = append(res.Dropped, Dropped{Source: in.Source, Name: s.Name,
					Reason: fmt.Sprintf("key %s (fingerprint %s) already cosigned this checkpoint", w, fp)})
				continue
			}
			t, _ := signednote.CosignatureTimestamp(s) // verified by a type 0x04 key
			added := signednote.CountedCosignature{Name: s.Name, Fingerprint: fp, Time: t}
			if at != nil {
				if u := signednote.JudgeCosignature(added, *at, 0); u != nil {
					return nil, fmt.Errorf("%s: %w", in.Source, u)
				}
			}
			if nsigs++; nsigs > maxNoteSignatures {
				return nil, fmt.Errorf("%s: a checkpoint carries at most %d signatures", in.Source, maxNoteSignatures)
			}
			have[fp] = true
			out = append(out, line...)
			res.Added = append(res.Added, added)
		}
	}
	// Check the whole result as a reader will.
	final, err := signednote.Open(out, logKey, vs...)
	if err != nil {
		return nil, fmt.Errorf("witness: the cosigned checkpoint does not verify: %w", err)
	}
	res.Checkpoint = out
	res.Cosigners = cosigners(final, witnesses)
	return res, nil
}

// signatureLines splits a cosignature file into its lines, each with its
// final newline.
func signatureLines(in CosignatureInput) ([][]byte, error) {
	if len(in.Data) == 0 {
		return nil, fmt.Errorf("%s: empty cosignature file", in.Source)
	}
	if len(in.Data) > signednote.MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", in.Source, len(in.Data), signednote.MaxBytes)
	}
	if in.Data[len(in.Data)-1] != '\n' {
		return nil, fmt.Errorf("%s: a cosignature line must end with a newline", in.Source)
	}
	var lines [][]byte
	for l := range bytes.SplitAfterSeq(in.Data, []byte("\n")) {
		if len(l) == 0 {
			continue // after the final newline
		}
		if !bytes.HasPrefix(l, []byte("— ")) {
			return nil, fmt.Errorf("%s: line %d is not a signature line (\"— NAME BASE64\")", in.Source, len(lines)+1)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// verifyLine verifies one signature line against the checkpoint body.
func verifyLine(c *signednote.Checkpoint, line []byte, vs []*signednote.Verifier) (note.Signature, *signednote.Verifier, error) {
	s, w, err := c.VerifyLine(line, vs...)
	if err != nil {
		var unk *note.UnknownVerifierError
		var inv *note.InvalidSignatureError
		switch {
		case errors.As(err, &unk):
			return note.Signature{}, nil, fmt.Errorf("%w: %q (key hash %08x)", ErrUnknownWitness, unk.Name, unk.KeyHash)
		case errors.As(err, &inv):
			return note.Signature{}, nil, fmt.Errorf("%w: cosignature by %q does not verify against the checkpoint of %q at size %d (a cosignature of another checkpoint?)",
				ErrBadCosignature, inv.Name, c.Origin, c.Size)
		}
		return note.Signature{}, nil, fmt.Errorf("malformed cosignature line: %w", err)
	}
	return s, w, nil
}

func findVerifier(ws []*signednote.Verifier, s note.Signature) *signednote.Verifier {
	for _, w := range ws {
		if w.Name() == s.Name && w.KeyHash() == s.Hash {
			return w
		}
	}
	return nil
}

// Cosigners returns the distinct witness keys among witnesses whose
// cosignatures on the checkpoint note cp verify, counted by key
// fingerprint, in note order. The checkpoint must verify with logKey; a
// cosignature by a given key that does not verify is an error.
func Cosigners(cp []byte, logKey *signednote.Verifier, witnesses []*signednote.Verifier) ([]signednote.CountedCosignature, error) {
	c, err := signednote.Open(cp, logKey, witnesses...)
	if err != nil {
		return nil, err
	}
	return cosigners(c, witnesses), nil
}

func cosigners(c *signednote.Checkpoint, witnesses []*signednote.Verifier) []signednote.CountedCosignature {
	var out []signednote.CountedCosignature
	seen := map[string]bool{}
	for _, s := range c.Sigs {
		w := findVerifier(witnesses, s)
		if w == nil || seen[w.Fingerprint()] {
			continue
		}
		seen[w.Fingerprint()] = true
		t, _ := signednote.CosignatureTimestamp(s)
		out = append(out, signednote.CountedCosignature{Name: s.Name, Fingerprint: w.Fingerprint(), Time: t})
	}
	return out
}

// FormatCosigners renders cosigners for messages: "name (fingerprint…)".
func FormatCosigners(cs []signednote.CountedCosignature) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%s)", c.Name, c.Fingerprint)
	}
	return strings.Join(parts, ", ")
}
