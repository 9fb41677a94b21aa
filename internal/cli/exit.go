package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/spf13/cobra"
)

// Exit statuses, the same for every binary: 0 valid (or done), 1 a failing
// check or gate, 2 unreadable input, a usage error, or any other failure.
const (
	ExitValid   = 0
	ExitInvalid = 1
	ExitInput   = 2
)

// An ExitError carries an exit status out of a command that has already
// printed why (its result, or its own message).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Exit returns the *ExitError of code.
func Exit(code int) error { return &ExitError{code} }

// A UsageError is a problem with the command line itself: [Run] prints it
// with a pointer to the command's help.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage wraps err as a *UsageError.
func Usage(err error) error { return &UsageError{err} }

// Usagef is a *UsageError with a formatted message.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Errorf(format, args...)} }

// A CommandError is an error a command's body raised that is not a usage
// problem: [Run] prints it without the pointer to the help, even when
// cobra could not tell (a partial tree run by a test).
type CommandError struct{ Err error }

func (e *CommandError) Error() string { return e.Err.Error() }
func (e *CommandError) Unwrap() error { return e.Err }

// Fail wraps err as a *CommandError.
func Fail(err error) error { return &CommandError{err} }

// Failf is a *CommandError with a formatted message.
func Failf(format string, args ...any) error { return &CommandError{fmt.Errorf(format, args...)} }

// Run executes the command line args of root, with [Execute]'s rules, on
// the given streams, and returns the exit status: 0 when the command
// succeeded, the status of an *ExitError (the command printed why), else
// 2 with the error printed by [PrintError] as prog: with the pointer to
// the help for a *UsageError or an error raised before the command's body
// ran (a flag, an argument count), without it for any other. Every binary
// runs its commands through it, so that every binary exits, and reports
// an error, the same way.
//
// What cobra and Run print goes through a [termsafe.Writer] (help,
// errors: an error quotes untrusted text, a server's answer or a file
// name), and Run flushes the streams it is given that are
// termsafe.Writers when the command is done. A binary wraps its streams
// itself too, before its commands hold them, with
// [termsafe.NewWriter]: stderr always, stdout for its text and JSON
// results but not for a document written to it (-o -), which is data.
func Run(root *cobra.Command, prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out, errs := termsafe.NewWriter(stdout), termsafe.NewWriter(stderr)
	defer out.Flush()
	defer errs.Flush()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(errs)
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return Usage(err) })
	RejectUnknownSubcommands(root, Usage)
	cmd, ran, err := Execute(root, Usage)
	if err == nil {
		return ExitValid
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	var ue *UsageError
	var ce *CommandError
	PrintError(errs, prog, cmd, err, errors.As(err, &ue) || (!ran && !errors.As(err, &ce)))
	return ExitInput
}
