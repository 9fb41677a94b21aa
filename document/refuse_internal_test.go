package document

import (
	"errors"
	"testing"

	"github.com/mcpres/mcpres/validator"
)

// kindInputError keeps a *validator.InputError as it is (wrapped or not),
// turns any other error of a kind's validator into the InputError it
// stands for (the document could not be evaluated: exit 2, never a
// verdict), and leaves no error as none.
func TestKindInputError(t *testing.T) {
	if err := kindInputError(nil); err != nil {
		t.Fatalf("nil: %v", err)
	}
	ie := &validator.InputError{Reason: "import configuration: bad"}
	var got *validator.InputError
	if err := kindInputError(ie); !errors.As(err, &got) || got != ie {
		t.Errorf("InputError: %v", err)
	}
	if err := kindInputError(errors.Join(errors.New("context"), ie)); !errors.As(err, &got) || got != ie {
		t.Errorf("wrapped InputError: %T %v, want the InputError itself", err, err)
	}
	other := errors.New("profile set: manifest unreadable")
	err := kindInputError(other)
	if !errors.As(err, &got) || got.Reason != other.Error() {
		t.Errorf("other error: %T %v, want an InputError with its message", err, err)
	}
}

// SchemaVersion of a kind out of range is "", never a panic; the kinds'
// own round-trip through Detect (control).
func TestSchemaVersionOutOfRange(t *testing.T) {
	for _, k := range []Kind{-1, Kind(len(schemaVersions)), Unknown} {
		if sv := k.SchemaVersion(); sv != "" {
			t.Errorf("%d: %q", k, sv)
		}
		if k != Unknown && k.String() != "unknown" {
			t.Errorf("%d: String %q", k, k.String())
		}
	}
	for k := Bundle; k <= OAuthEvaluation; k++ {
		if k.SchemaVersion() == "" {
			t.Errorf("%s: no schema version", k)
		}
	}
}
