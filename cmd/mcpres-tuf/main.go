// Command mcpres-tuf publishes and fetches mcpres trust policies through a
// TUF repository (package trustpolicy/tufdist, go-tuf v2).
//
// It is a separate binary so that mcpres itself never links go-tuf: go-tuf
// imports sigstore's signature package, which brings protobuf and
// go-containerregistry and their package initialisation into every process,
// against the startup budget of `mcpres validate` (DESIGN §4), and an HTTP
// client into a verifier that is meant never to open a connection. mcpres
// runs this binary for `mcpres policy tuf …` and for `mcpres attest verify
// --policy-tuf`; it finds it in $MCPRES_TUF, next to its own executable, or
// on PATH.
//
// Exit status: 0 success, 1 unused, 2 a usage error, unreadable input, or a
// policy that cannot be obtained or verified.
package main

import (
	"crypto"
	"crypto/ed25519"
	"io"
	"os"
	"strings"

	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
)

// Exit codes (internal/cli): 0 success, 2 a usage error, unreadable input,
// or a policy that cannot be obtained or verified.
const (
	exitInput = cli.ExitInput
)

// invokedAsEnv is set by mcpres when it runs this binary for `mcpres policy
// tuf`: usage lines and message prefixes then use that name.
const invokedAsEnv = "MCPRES_TUF_INVOKED_AS"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	prog   string // message prefix: "mcpres-tuf", or "mcpres" when run by mcpres
}

// msgs is the printer of this binary's messages (cli.Printer, the same in
// every binary): warnings, passphrase prompts.
func (a *app) msgs() *cli.Printer { return &cli.Printer{Prog: a.prog, Stderr: a.stderr} }

func (a *app) warnf(format string, args ...any) { a.msgs().Warnf(format, args...) }

// run executes one command line and returns the exit code (cli.Run: every
// mapping of errors to exit codes happens there).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Text results and messages go through internal/termsafe; a fetched
	// policy written to stdout does not (termsafe.Unwrap: it is data).
	a := &app{stdin: stdin, stdout: termsafe.NewWriter(stdout), stderr: termsafe.NewWriter(stderr), prog: "mcpres-tuf"}
	root := a.rootCommand("mcpres-tuf")
	if cli.Completing(args) {
		registerCompletions(root)
	}
	if words := strings.Fields(os.Getenv(invokedAsEnv)); len(words) > 0 {
		// Run as `mcpres policy tuf`: nest the commands under parents of
		// those names, so that usage lines show the command as typed.
		a.prog = words[0]
		// `mcpres man` has this binary write the pages of `mcpres policy
		// tuf`: its own man command is no command of mcpres (no page, no
		// completion, not in the help), though it still runs.
		for _, c := range root.Commands() {
			if c.Name() == "man" {
				c.Hidden = true
			}
		}
		root, args = cli.NestUnder(root, words, args)
	}
	return cli.Run(root, a.prog, args, stdin, a.stdout, a.stderr)
}

// loadPrivateKey opens a private key reference (package keyref): a key
// file (PKCS#8 PEM, optionally encrypted) as PATH, file:PATH or env:NAME,
// or a key in a token or an agent (pkcs11:URI through the mcpres-pkcs11
// helper, ssh-agent:SHA256:…), warning when a key file is readable by
// other users. The key, PIN and passphrase never appear in messages.
func (a *app) loadPrivateKey(spec string) (crypto.Signer, error) {
	ref, err := keyref.Parse(spec)
	if err != nil {
		return nil, cli.Usagef("%v", err)
	}
	k, err := keyref.OpenRef(ref, keyref.Options{
		Passphrase: a.msgs().Passphrase,
		Warn:       func(msg string) { a.warnf("%s", msg) },
		PKCS11:     keyref.FindHelperOpener(nil),
	})
	if err != nil {
		return nil, cli.Failf("private key %s: %v", ref, keyhints.Word(err, ""))
	}
	return k, nil
}

// loadRootKey reads a root key: a public key file (SPKI PEM) is only
// listed, a private key reference is listed and signs.
func (a *app) loadRootKey(path string) (ed25519.PublicKey, crypto.Signer, error) {
	if ref, err := keyref.Parse(path); err == nil && ref.Scheme == keyref.File {
		data, err := regularfile.ReadFile(ref.Path, keyfile.MaxBytes)
		if err != nil {
			return nil, nil, cli.Failf("root key: %v", err)
		}
		if pub, err := keyfile.ParsePublicKeyPEM(data); err == nil {
			return pub, nil, nil
		}
	}
	priv, err := a.loadPrivateKey(path)
	if err != nil {
		return nil, nil, err
	}
	return priv.Public().(ed25519.PublicKey), priv, nil
}
