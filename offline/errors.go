package offline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/signednote"
)

// ErrNotTLogProof is wrapped by the errors of [ParseProof], [CheckBinding]
// and [ReferenceIDs] for bytes that do not start with [ProofHeader]: a Rekor
// v1 entry ([KindRekorV1], package offline/rekor) or opaque bytes whose
// digest is all anyone can check ([KindOpaque], the upstream DIGEST_ONLY
// meaning). Test with errors.Is.
var ErrNotTLogProof = errors.New("not a " + strings.TrimSuffix(ProofHeader, "\n"))

// Every error of [Verify] is one of the types below, one per step, so that a
// caller (and a test) can tell which check failed with errors.As. Messages
// give got before want.

// A ProofError is proof bytes that are not a strict mcpres tlog-proof.
type ProofError struct {
	Msg string
	Err error // the underlying parser error, or nil
}

func (e *ProofError) Error() string {
	if e.Err != nil {
		return "tlog-proof: " + e.Msg + ": " + e.Err.Error()
	}
	return "tlog-proof: " + e.Msg
}

func (e *ProofError) Unwrap() error { return e.Err }

// An EntryError is leaf data that is not the canonical encoding of an
// mcpres.transparency-entry/v1.
type EntryError struct{ Err error }

func (e *EntryError) Error() string { return e.Err.Error() } // ParseEntry's messages start with "log entry: "
func (e *EntryError) Unwrap() error { return e.Err }

// A BindingError is a log entry for another bundle: Field is the first
// member that differs, Got the entry's value and Want this bundle's; or,
// with Field "signers", an entry that does not name exactly the signers
// expected (see [Verify]).
type BindingError struct {
	Field     string
	Got, Want string
}

func (e *BindingError) Error() string {
	if e.Field == "signers" {
		return fmt.Sprintf("log entry names other signers: it names %s, the expected entry %s", e.Got, e.Want)
	}
	return fmt.Sprintf("log entry is for another bundle: %s is %q, this bundle's is %q", e.Field, e.Got, e.Want)
}

// An UnknownLogError is a checkpoint that no log of the trust signed:
// Signers lists the "NAME+HASH" of its signature lines.
type UnknownLogError struct{ Signers []string }

func (e *UnknownLogError) Error() string {
	return fmt.Sprintf("checkpoint is not signed by a log key of the policy (signatures by %s)", strings.Join(e.Signers, ", "))
}

// A SignatureError is a checkpoint signature line from a key of the trust
// (the log's or a witness's) that does not verify. It wraps
// *note.InvalidSignatureError.
type SignatureError struct {
	Name    string
	KeyHash uint32
	Role    string // "log" or "witness NAME"
	Err     error
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("checkpoint signature by %s %s+%08x does not verify", e.Role, e.Name, e.KeyHash)
}

func (e *SignatureError) Unwrap() error { return e.Err }

// A CheckpointError is a checkpoint that is not a well-formed signed note
// or whose body is not a strict C2SP checkpoint.
type CheckpointError struct {
	Msg string
	Err error
}

func (e *CheckpointError) Error() string {
	if e.Err != nil {
		return "checkpoint: " + e.Msg + ": " + e.Err.Error()
	}
	return "checkpoint: " + e.Msg
}

func (e *CheckpointError) Unwrap() error { return e.Err }

// An OriginError is a checkpoint signed by the log's key whose origin line
// is not the log's origin.
type OriginError struct{ Got, Want string }

func (e *OriginError) Error() string {
	return fmt.Sprintf("checkpoint origin is %q, the log's is %q", e.Got, e.Want)
}

// An InclusionError is an inclusion proof that does not lead from the leaf
// hash to the checkpoint's root hash. Err is merkle's reason.
type InclusionError struct {
	Index, Size uint64
	Err         error
}

func (e *InclusionError) Error() string {
	return fmt.Sprintf("inclusion proof of leaf %d in the tree of size %d does not verify: %v", e.Index, e.Size, e.Err)
}

func (e *InclusionError) Unwrap() error { return e.Err }

// A QuorumError is a checkpoint whose cosignatures do not satisfy the
// witness policy. Counted and Required are about the quorum's own rule (a
// witness: 1; a group: its threshold of members); Missing names the
// members not satisfied.
type QuorumError struct {
	Quorum            string
	Counted, Required int
	Missing           []string
	// Repeated names witnesses with more than one cosignature line (counted
	// once); Ignored counts signature lines from keys not in the policy.
	Repeated []string
	Ignored  int
	// NotCounted are cosignatures not counted because of their time.
	NotCounted []signednote.UncountedCosignature
}

func (e *QuorumError) Error() string {
	s := fmt.Sprintf("cosignatures: %d of %d required (%s missing)", e.Counted, e.Required, strings.Join(e.Missing, ", "))
	if len(e.Repeated) > 0 {
		s += "; repeated cosignatures counted once: " + strings.Join(e.Repeated, ", ")
	}
	if e.Ignored > 0 {
		s += fmt.Sprintf("; %d signature(s) by keys not in the policy ignored", e.Ignored)
	}
	if len(e.NotCounted) > 0 {
		s += "; not counted: " + FormatNotCounted(e.NotCounted)
	}
	return s
}

// A TrustError is a Trust that cannot be used: a malformed or duplicated
// key, a bad group or an unknown quorum. Trust comes from a loaded policy,
// so this is a bug in the caller; it is checked all the same.
type TrustError struct{ Msg string }

func (e *TrustError) Error() string { return "trust: " + e.Msg }
