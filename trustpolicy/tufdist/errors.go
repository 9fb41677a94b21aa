package tufdist

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// Role names used in errors and results: the four top-level TUF roles, and
// RoleTargetFile for the distributed file itself.
const (
	RoleRoot       = metadata.ROOT      // "root"
	RoleTimestamp  = metadata.TIMESTAMP // "timestamp"
	RoleSnapshot   = metadata.SNAPSHOT  // "snapshot"
	RoleTargets    = metadata.TARGETS   // "targets"
	RoleTargetFile = "target file"
)

// A Check names the TUF check that rejected a piece of metadata.
type Check string

// The checks a [VerificationError] can name, and the go-tuf error each one
// wraps (test with errors.Is against a new value of that type, for example
// errors.Is(err, &metadata.ErrExpiredMetadata{})).
const (
	// CheckSignatures: fewer valid signatures from the role's keys than its
	// threshold (*metadata.ErrUnsignedMetadata).
	CheckSignatures Check = "signature threshold"
	// CheckExpiry: the metadata expired before the evaluation time
	// (*metadata.ErrExpiredMetadata); a freeze attack looks like this.
	CheckExpiry Check = "expiry"
	// CheckVersion: a version lower than one already trusted, or not the
	// version the referring metadata names (*metadata.ErrBadVersionNumber);
	// a rollback attack looks like this.
	CheckVersion Check = "version (rollback)"
	// CheckHashes: the bytes do not have the length and hashes the referring
	// metadata names (*metadata.ErrLengthOrHashMismatch); a replaced target
	// or metadata from another repository state (mix-and-match) looks like
	// this.
	CheckHashes Check = "length and hashes"
	// CheckConsistency: any other repository inconsistency go-tuf reports
	// (*metadata.ErrRepository), such as a wrong _type or a snapshot that
	// drops an entry.
	CheckConsistency Check = "consistency"
	// CheckFormat: the metadata could not be parsed (bad JSON, duplicate
	// signatures from one key, an unknown key type...).
	CheckFormat Check = "format"
	// CheckKeys: the root lists an Ed25519 public key that must never be
	// trusted (not on the curve, non-canonical, or of small order, for which
	// signatures can be forged without any private key). Go's
	// crypto/ed25519, which go-tuf uses, accepts such keys.
	CheckKeys Check = "key"
)

// Errors that are not about the metadata itself. They are returned wrapped;
// test with errors.Is.
var (
	// ErrTargetNotFound: the verified top-level targets metadata does not
	// list the requested target.
	ErrTargetNotFound = errors.New("target not found")
	// ErrNotCached: the cache lacks a file that offline verification needs.
	ErrNotCached = errors.New("not in the cache")
)

// VerificationError reports metadata, or the target file, that failed a TUF
// check. It names the role and the check; Err is go-tuf's error, so
// errors.Is(err, &metadata.ErrExpiredMetadata{}) and friends hold.
type VerificationError struct {
	Role   string // one of the Role… constants, or a delegated role's name
	Target string // the target's name when Role is RoleTargetFile
	Check  Check
	Detail string // what was compared, when known (expiry and evaluation time)
	Err    error
}

func (e *VerificationError) Error() string {
	subject := "tuf " + e.Role + " metadata"
	if e.Role == RoleTargetFile {
		subject = fmt.Sprintf("tuf target file %q", e.Target)
	}
	if e.Detail != "" {
		return fmt.Sprintf("%s failed the %s check: %s (%v)", subject, e.Check, e.Detail, e.Err)
	}
	return fmt.Sprintf("%s failed the %s check: %v", subject, e.Check, e.Err)
}

func (e *VerificationError) Unwrap() error { return e.Err }

// UnreachableError reports that the repository could not be read and that
// the cache could not stand in for it: Err says why the repository could
// not be read, CacheErr why the cached state was refused (a
// [*VerificationError] with [CheckExpiry] once the cached metadata has
// expired, or [ErrNotCached]). Both are reachable with errors.Is and
// errors.As.
type UnreachableError struct {
	Repo     string
	Err      error
	CacheErr error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("tuf repository %s could not be read (%v), and the cache cannot stand in for it: %v", e.Repo, e.Err, e.CacheErr)
}

func (e *UnreachableError) Unwrap() []error { return []error{e.Err, e.CacheErr} }

// fetchError marks an error of the transport (HTTP or file system) as
// opposed to a verification failure: only these let Fetch fall back to the
// cache. It unwraps to the fetcher's error, so go-tuf still sees a 404 as
// *metadata.ErrDownloadHTTP.
type fetchError struct {
	name string // the file, relative to the repository
	err  error
}

func (e *fetchError) Error() string { return fmt.Sprintf("fetching %s: %v", e.name, e.err) }
func (e *fetchError) Unwrap() error { return e.err }

// checkOf maps a go-tuf error to the check that produced it, or "" for
// errors that are not verification failures (I/O on the cache, say).
func checkOf(err error) Check {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, &metadata.ErrExpiredMetadata{}):
		return CheckExpiry
	case errors.Is(err, &metadata.ErrBadVersionNumber{}): // includes ErrEqualVersionNumber
		return CheckVersion
	case errors.Is(err, &metadata.ErrUnsignedMetadata{}):
		return CheckSignatures
	case errors.Is(err, &metadata.ErrLengthOrHashMismatch{}):
		return CheckHashes
	case errors.Is(err, &metadata.ErrRepository{}), errors.Is(err, &metadata.ErrRuntime{}):
		return CheckConsistency
	case errors.Is(err, &metadata.ErrValue{}), errors.Is(err, &metadata.ErrType{}),
		errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return CheckFormat
	}
	return ""
}

// classify wraps a go-tuf error into a VerificationError naming role. A
// transport error, an error that is already classified, and an error that
// is not a verification failure are returned unchanged. expires, when not
// zero, is the expiry of the metadata concerned and goes into the detail of
// an expiry failure.
func classify(err error, role, target string, expires, now time.Time) error {
	var ve *VerificationError
	var fe *fetchError
	if err == nil || errors.As(err, &ve) || errors.As(err, &fe) {
		return err
	}
	check := checkOf(err)
	if check == "" {
		return err
	}
	v := &VerificationError{Role: role, Target: target, Check: check, Err: err}
	if check == CheckExpiry && !expires.IsZero() {
		v.Detail = fmt.Sprintf("expired at %s, evaluation time %s", expires.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return v
}
