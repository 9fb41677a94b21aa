package validator_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// An input that cannot be evaluated is reported with its reason alone:
// the Reason of an InputError (wrapped or not, never "MCP_RES_INPUT_INVALID:
// MCP_RES_INPUT_INVALID: …"), or a read error's message; the result object
// is the reference's MCP_RES_INPUT_INVALID object.
func TestInputInvalidValue(t *testing.T) {
	ie := &validator.InputError{Reason: "not strict JSON: duplicate key \"a\""}
	read := fmt.Errorf("cannot read b.json: %w", fs.ErrNotExist)
	for _, tt := range []struct {
		err    error
		reason string
	}{
		{ie, ie.Reason},
		{fmt.Errorf("b.json: %w", ie), ie.Reason},
		{read, read.Error()},
		{errors.New("torn"), "torn"},
	} {
		if got := validator.InputReason(tt.err); got != tt.reason {
			t.Errorf("%v: reason %q, want %q", tt.err, got, tt.reason)
		}
		got, err := canonjson.Compact(validator.InputInvalidValue(tt.err))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := canonjson.Compact(canonjson.NewString(validator.CodeInputInvalid + ": " + tt.reason))
		want := `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":` + string(msg) + `}`
		if string(got) != want {
			t.Errorf("%v:\n got %s\nwant %s", tt.err, got, want)
		}
	}
}
