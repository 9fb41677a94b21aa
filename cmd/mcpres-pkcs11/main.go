// Command mcpres-pkcs11 holds the PKCS#11 token sessions of mcpres: the
// commands of mcpres and mcpres-tuf that are given a pkcs11: key reference
// start it ('mcpres-pkcs11 serve') and ask it for each signature over a
// pipe (the protocol of keyref.ServeHelper), so that their own binaries
// link no cgo package and stay within their startup and memory budgets.
// It runs package keyref/p11 (github.com/miekg/pkcs11, cgo); built with
// CGO_ENABLED=0 it answers that this build has no PKCS#11 support and how
// to get one. The PIN reaches it through the pipe, never on a command line
// or in its environment; the private key never leaves the token.
//
// Exit status: 0 when its standard input ends, 2 a usage error or a key
// that could not be opened (the parent was told why).
package main

import (
	"io"
	"os"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/p11"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns its exit code (cli.Run).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// stdout is the helper protocol's pipe and stays as it is; messages
	// (a token's or module's words among them) go through internal/termsafe.
	stderr = termsafe.NewWriter(stderr)
	root := &cobra.Command{
		Use:   "mcpres-pkcs11",
		Short: "Sign with Ed25519 keys in PKCS#11 tokens for mcpres (started by mcpres, not by people)",
		Long: `mcpres-pkcs11 holds the PKCS#11 token sessions of mcpres and mcpres-tuf:
they start 'mcpres-pkcs11 serve' for a pkcs11: key reference and ask it for
each signature over its standard input and output. It is not meant to be
run by hand. Install it beside mcpres (go install ./cmd/... with a C
compiler present), or name it with $` + keyref.HelperEnv + `.`,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		Args:              cobra.NoArgs,
	}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve one key over standard input and output (the keyref helper protocol)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := keyref.ServeHelper(stdin, stdout, p11.Open); err != nil {
				return cli.Failf("%v", err)
			}
			return nil
		},
	}
	root.AddCommand(serve)
	return cli.Run(root, "mcpres-pkcs11", args, stdin, stdout, stderr)
}
