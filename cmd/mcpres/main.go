// Command mcpres validates, seals, signs and verifies MCP-RES conformance
// bundles. See the README for the commands and exit codes.
package main

import (
	"io"
	"os"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/spf13/cobra"
)

// Exit codes, as upstream and for every binary (internal/cli): 0 valid, 1
// a failing diagnostic, 2 unreadable or invalid input, or a usage error.
const (
	exitValid   = cli.ExitValid
	exitInvalid = cli.ExitInvalid
	exitInput   = cli.ExitInput
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// app holds the process's streams; commands get it instead of globals.
type app struct {
	stdin io.Reader
	// stdout and stderr are the process's streams through
	// termsafe.Writers (run): text and JSON results, messages. A document
	// written to standard output goes to a.document() instead.
	stdout io.Writer
	stderr io.Writer
	quiet  bool // --quiet: no "wrote" lines (a.wrote) and no progress
	// isTerminal replaces the terminal test of stdout and stderr (tests).
	isTerminal func(io.Writer) bool
}

// document is standard output as it is, for a document written there
// (-o -, a public key, a transparency reference): data, not text, never
// altered by the terminal rule (internal/termsafe).
func (a *app) document() io.Writer { return termsafe.Unwrap(a.stdout) }

// warnf prints "mcpres: warning: …" (cli.Printer).
func (a *app) warnf(format string, args ...any) { a.msgs().Warnf(format, args...) }

// run executes one command line and returns the exit code (cli.Run: every
// mapping of errors to exit codes happens there).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdin: stdin, stdout: termsafe.NewWriter(stdout), stderr: termsafe.NewWriter(stderr)}).execute(args)
}

func (a *app) execute(args []string) int {
	root := a.rootCommand()
	if cli.Completing(args) {
		registerCompletions(root)
	}
	return cli.Run(root, "mcpres", args, a.stdin, a.stdout, a.stderr)
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
		a.subjectCommand(),
		a.canonicalizeCommand(),
		a.keyCommand(),
		a.attestCommand(),
		a.policyCommand(),
		a.demoCommand(),
		a.logCommand(),
		a.witnessCommand(),
		a.migrateCommand(),
		a.reportCommand(),
		a.inspectCommand(),
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
	cli.RejectUnknownSubcommands(root, cli.Usage)
	if c, _, err := root.Find([]string{"completion"}); err == nil && c.Name() == "completion" {
		c.Long += completionBashNeeds
	}
	return root
}
