// Command mcpres validates, seals, signs and verifies MCP-RES conformance
// bundles. See the README for the commands and exit codes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/spf13/cobra"
)

// Exit codes, as upstream: 0 valid, 1 a failing diagnostic, 2 unreadable or
// invalid input, or a usage error.
const (
	exitValid   = 0
	exitInvalid = 1
	exitInput   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries an exit code out of a command whose output has already
// been written.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError is a problem with the command line itself.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// app holds the process's streams; commands get it instead of globals.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	quiet  bool // --quiet: no "wrote" lines (a.wrote) and no progress
	// isTerminal replaces the terminal test of stdout and stderr (tests).
	isTerminal func(io.Writer) bool
}

func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "mcpres: warning: "+format+"\n", args...)
}

// run executes one command line and returns the exit code. All mapping of
// errors to exit codes happens here.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr}).execute(args)
}

func (a *app) execute(args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, ran, err := cli.Execute(root, func(err error) error { return &usageError{err} })
	if err == nil {
		return exitValid
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ue *usageError
	cli.PrintError(stderr, "mcpres", cmd, err, errors.As(err, &ue) || !ran)
	return exitInput
}

// isCobraUsage recognizes cobra's own flag and argument errors, which are
// plain errors: every error not produced by a command body (failf) is a
// usage error. run asks cli.Execute instead, which knows whether the body
// started; the tests' own runners of partial trees use this.
func isCobraUsage(err error) bool {
	var ce *commandError
	return !errors.As(err, &ce)
}

// commandError marks an error raised while a command body ran (not a
// usage problem): it is reported without the usage text.
type commandError struct{ err error }

func (e *commandError) Error() string { return e.err.Error() }
func (e *commandError) Unwrap() error { return e.err }

func failf(format string, args ...any) error {
	return &commandError{fmt.Errorf(format, args...)}
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpres",
		Short: "Validate, seal, sign and verify MCP-RES conformance bundles",
		Long: `mcpres validates MCP Reliability Evidence Standard (MCP-RES) v0.2.0 documents
exactly as the standard and its reference implementation define them, seals
draft evidence into integrity-bound conformance bundles, and signs and
verifies them offline.

Exit status: 0 valid, 1 a failing diagnostic, 2 unreadable or invalid input
or a usage error.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(
		a.versionCommand(),
		a.validateCommand(),
		a.officialCommand(),
		a.sealCommand(),
		a.canonicalizeCommand(),
		a.keyCommand(),
		a.attestCommand(),
		a.policyCommand(),
		a.demoCommand(),
		a.logCommand(),
		a.witnessCommand(),
		a.migrateCommand(),
		a.reportCommand(),
		a.ociCommand(),
		a.manCommand(),
	)
	// --version prints what `mcpres version` prints.
	root.Version = version.Version
	root.SetVersionTemplate(version.ReadBuild().Describe("mcpres"))
	// The completion commands capture the output stream when created.
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.InitDefaultCompletionCmd()
	cli.RejectUnknownSubcommands(root, func(err error) error { return &usageError{err} })
	registerCompletions(root)
	return root
}
