package progexit_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

// TestCode: 0 done or -help, 2 a usage error (said once: not again when
// the flag package said it), 1 anything else, after the program's name;
// a wrapped usage error is still one.
func TestCode(t *testing.T) {
	var stderr bytes.Buffer
	for _, c := range []struct {
		err  error
		code int
		says string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{progexit.UsageError{Msg: "usage: x DIR"}, 2, "x: usage: x DIR\n"},
		{fmt.Errorf("flags: %w", progexit.UsageError{Msg: "bad"}), 2, "x: flags: bad\n"},
		{progexit.UsageError{Msg: "flag provided but not defined: -y", Said: true}, 2, ""},
		{errors.New("broken"), 1, "x: broken\n"},
	} {
		stderr.Reset()
		if code := progexit.Code("x", c.err, &stderr); code != c.code || stderr.String() != c.says {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.err, code, stderr.String(), c.code, c.says)
		}
	}
}
