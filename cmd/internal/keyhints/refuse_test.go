package keyhints

import (
	"errors"
	"testing"

	"github.com/mcpres/mcpres/keyfile"
)

// A kind with no origin in the table (an unrecognised file) is named by
// its kind alone, and one nothing takes (a note key) by its origin alone.
func TestDescribeKindsWithoutEntries(t *testing.T) {
	if got, want := Describe(keyfile.UnknownKey), keyfile.UnknownKey.String(); got != want {
		t.Errorf("UnknownKey: %q, want %q", got, want)
	}
	if got, want := Describe(keyfile.NoteKey), keyfile.NoteKey.String()+" (from `mcpres log keygen` or `mcpres witness keygen`)"; got != want {
		t.Errorf("NoteKey: %q, want %q", got, want)
	}
	// Control: a kind with both says what takes it.
	if got := Describe(keyfile.LogVerifierKey); got == origin(keyfile.LogVerifierKey) {
		t.Errorf("LogVerifierKey: %q says nothing of what takes it", got)
	}
}

// hiding wraps an error without showing its text.
type hiding struct{ err error }

func (h hiding) Error() string { return "key file refused" }
func (h hiding) Unwrap() error { return h.err }

// A wrapper whose message does not contain its KindError's is returned as
// it is (rewording would lose or duplicate text); one that does is
// reworded (control).
func TestWordLeavesHiddenCause(t *testing.T) {
	ke := &keyfile.KindError{Got: keyfile.PEMPublicKey, Want: keyfile.PEMPrivateKey}
	err := hiding{ke}
	if got := Word(err, "--key"); got != error(err) {
		t.Errorf("hidden cause reworded: %q", got)
	}
	if got := Word(ke, "--key"); got.Error() == ke.Error() || !errors.Is(got, ke) {
		t.Errorf("control: %q", got)
	}
}
