package tufdist

import (
	"errors"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// classify names the check of each go-tuf verification failure (a
// repository or runtime inconsistency is CheckConsistency) and leaves
// alone what is not one: an I/O error on the cache, a transport error,
// an error already classified, no error.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		err   error
		check Check
	}{
		{&metadata.ErrRepository{Msg: "snapshot.json lists no targets.json"}, CheckConsistency},
		{&metadata.ErrRuntime{Msg: "cannot update timestamp before root"}, CheckConsistency},
		{&metadata.ErrUnsignedMetadata{Msg: "threshold not met"}, CheckSignatures},
		{&metadata.ErrType{Msg: "not a snapshot"}, CheckFormat},
	} {
		var ve *VerificationError
		if err := classify(tt.err, RoleSnapshot, "", time.Time{}, t0); !errors.As(err, &ve) || ve.Check != tt.check || ve.Role != RoleSnapshot || !errors.Is(err, tt.err) {
			t.Errorf("%T: %v, want check %s of snapshot", tt.err, err, tt.check)
		}
	}
	io := errors.New("cache: permission denied")
	fe := &fetchError{name: "timestamp.json", err: errors.New("connection refused")}
	classified := &VerificationError{Role: RoleRoot, Check: CheckExpiry, Err: &metadata.ErrExpiredMetadata{}}
	for _, err := range []error{io, fe, classified, nil} {
		if got := classify(err, RoleSnapshot, "", time.Time{}, t0); got != err {
			t.Errorf("%v: changed to %v", err, got)
		}
	}
}
