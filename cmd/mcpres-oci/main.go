// Command mcpres-oci publishes MCP-RES attested bundles in OCI registries
// and finds them there (package oci, on oras-go):
//
//	mcpres-oci attach IMAGE FILE...
//	mcpres-oci discover IMAGE [--format json]
//	mcpres-oci pull IMAGE -o DIR
//	mcpres-oci resolve IMAGE
//	mcpres-oci attest verify --oci IMAGE [--policy POLICY] [--require-level L]
//
// mcpres runs it for `mcpres oci …` and for `mcpres attest verify --oci`,
// finding it in $MCPRES_OCI, next to its own executable, or on PATH.
// attest verify is mcpres attest verify (the shared command code of
// cmd/internal/verifycmd: the same flags, formats, gates and exit codes)
// with the registry plugged in: the verification itself is the offline
// one, over the bundles downloaded.
//
// It is a separate binary because the OCI client's package
// initialisation (oras-go's reference grammar and go-digest compile their
// regular expressions at start-up) would add about 1 ms to every mcpres
// run, a quarter of mcpres's own (DESIGN §4 startup budget; docs/oci.md).
//
// Exit status: 0 success, 1 a failing check or gate, 2 a usage error,
// unreadable input or a registry that cannot be read.
package main

import (
	"io"
	"os"
	"strings"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/spf13/cobra"
)

// Exit codes (internal/cli).
const (
	exitValid   = cli.ExitValid
	exitInvalid = cli.ExitInvalid
	exitInput   = cli.ExitInput
)

// invokedAsEnv is set by mcpres when it runs this binary: "mcpres oci"
// for `mcpres oci …`, "mcpres" for `mcpres attest verify --oci`. Usage
// lines and message prefixes then use that name.
const invokedAsEnv = "MCPRES_OCI_INVOKED_AS"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type app struct {
	stdout, stderr io.Writer
	prog           string // message prefix: "mcpres-oci", or "mcpres" when run by mcpres
	quiet          bool   // --quiet: no "wrote" lines
}

// msgs is the printer of this binary's messages (cli.Printer, the same in
// every binary).
func (a *app) msgs() *cli.Printer {
	return &cli.Printer{Prog: a.prog, Stderr: a.stderr, Quiet: a.quiet}
}

func (a *app) warnf(format string, args ...any)  { a.msgs().Warnf(format, args...) }
func (a *app) errorf(format string, args ...any) { a.msgs().Errorf(format, args...) }

// wrote says on stderr what a command wrote, unless --quiet.
func (a *app) wrote(path, format string, args ...any) { a.msgs().Wrote(path, format, args...) }

// run executes one command line and returns the exit code; every mapping
// of errors to exit codes happens here.
func run(args []string, stdout, stderr io.Writer) int {
	// Text and JSON results and messages quote what registries say: every
	// stream goes through internal/termsafe (this binary writes no
	// document to stdout).
	a := &app{stdout: termsafe.NewWriter(stdout), stderr: termsafe.NewWriter(stderr), prog: "mcpres-oci"}
	words := strings.Fields(os.Getenv(invokedAsEnv))
	if len(words) > 0 {
		// Before the commands are built: they take the prefix with them
		// (attest verify --oci run by mcpres says "mcpres:", not
		// "mcpres-oci:").
		a.prog = words[0]
	}
	root := &cobra.Command{
		Use:               "mcpres-oci",
		Short:             "Attach MCP-RES attested bundles to OCI images, discover, pull and verify them",
		Long:              ociLong,
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	attestCmd := &cobra.Command{Use: "attest", Short: "Attested bundles"}
	attestCmd.AddCommand(a.verifyCommand())
	top := root // the pages are of this binary's commands, never of the parents below
	man := cli.ManCommand(func() *cobra.Command { return top }, cli.Usage,
		func(err error) error { return cli.Failf("%v", err) }, nil)
	root.AddCommand(a.attachCommand(), a.discoverCommand(), a.pullCommand(), a.resolveCommand(), attestCmd, man)
	root.Version = version.Version
	root.SetVersionTemplate(version.ReadBuild().Describe("mcpres-oci"))
	if len(words) > 0 {
		// Run by mcpres: "mcpres oci" nests the commands under parents of
		// those names, so that usage lines show them as typed, and hides
		// what is no command of `mcpres oci` (attest, man: `mcpres man`
		// has this binary write its pages); "mcpres" is attest verify
		// --oci, where only the prefix changes.
		if len(words) > 1 {
			attestCmd.Hidden, man.Hidden = true, true
		}
		root, args = cli.NestUnder(root, words, args)
	}
	return cli.Run(root, a.prog, args, nil, a.stdout, a.stderr)
}
