// Package progexit is how the measurement tool's programs (bench and the
// floors and servers it starts) end: the exit code of the error their run
// returned, and what they say of it on stderr — 0 done (or -help), 2 a
// command line refused, 1 anything else, each error said once, after the
// program's name.
package progexit

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// A UsageError is a command line refused (exit 2).
type UsageError struct {
	Msg string
	// Said: the flag package has printed it already, with the flags.
	Said bool
}

func (e UsageError) Error() string { return e.Msg }

// Code says err on stderr as "PROG: ERR" (unless it is nil, flag.ErrHelp
// or a UsageError already said) and returns the exit code.
func Code(prog string, err error, stderr io.Writer) int {
	var ue UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if !ue.Said {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		}
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
}
