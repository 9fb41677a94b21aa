package main

import (
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Keyless signing (Fulcio, RFC 3161 timestamps, sigstore-go) is carried
// out by mcpres-sigstore, so that mcpres links neither net/http clients
// of Sigstore nor sigstore-go (DESIGN §4 startup budget): `mcpres attest
// sign --keyless …` runs `mcpres-sigstore attest sign --keyless …`, and
// `mcpres attest verify --trusted-root …` runs `mcpres-sigstore attest
// verify --trusted-root …`.

// keylessFlags are the flags of attest sign that only keyless signing
// takes; keyOnlyFlags those it refuses.
var (
	keylessFlags = []string{"fulcio", "tsa", "identity-token", "trusted-root", "sigstore-bundle"}
	keyOnlyFlags = []string{"key", "signing-time", "require-quorum", "policy"}
)

// addKeylessFlags declares keylessFlags on attest sign.
func addKeylessFlags(f *pflag.FlagSet, keyless *bool) {
	f.BoolVar(keyless, "keyless", false, "sign with an ephemeral key certified by Fulcio for your OIDC identity, with an RFC 3161 timestamp (runs mcpres-sigstore; see docs/keyless.md)")
	f.String("fulcio", "", "--keyless: the Fulcio base URL (default the public instance)")
	f.String("tsa", "", "--keyless: the RFC 3161 timestamp authority's endpoint (default the public one)")
	f.String("identity-token", "", "--keyless: the OIDC identity token, FILE or env:NAME (default: GitHub Actions' token endpoint)")
	f.String("trusted-root", "", "--keyless: Sigstore trusted_root.json the certificate and timestamp are verified against before writing")
	f.String("sigstore-bundle", "", "--keyless: where to write the Sigstore bundle (default OUTPUT.sigstore.json)")
}

// forwardKeyless runs mcpres-sigstore attest sign with the flags given
// here, refusing the flags keyless signing does not take; without
// --keyless it refuses the keyless-only flags.
func (a *app) forwardKeyless(cmd *cobra.Command, args []string, keyless bool) (bool, error) {
	f := cmd.Flags()
	if !keyless {
		for _, n := range keylessFlags {
			if f.Changed(n) {
				return true, cli.Usagef("--%s goes with --keyless", n)
			}
		}
		return false, nil
	}
	for _, n := range keyOnlyFlags {
		if f.Changed(n) {
			return true, cli.Usagef("--keyless and --%s exclude each other (a keyless signature's key is ephemeral and its time is the timestamp's)", n)
		}
	}
	fwd := []string{"attest", "sign"}
	f.Visit(func(fl *pflag.Flag) { fwd = append(fwd, "--"+fl.Name+"="+fl.Value.String()) })
	fwd = append(fwd, "--")
	fwd = append(fwd, args...)
	bin, err := findCompanion("mcpres-sigstore", sigstoreBinaryEnv, "keyless signing is")
	if err != nil {
		return true, cli.Failf("%v", err)
	}
	return true, a.runCompanion(bin, fwd)
}

// forwardKeylessVerify is attest verify with a keyless flag
// (--trusted-root, --certificate-identity …): mcpres-sigstore's attest
// verify, which certifies keyless signatures with sigstore-go, with the
// same flags and arguments.
func (a *app) forwardKeylessVerify(args []string) error {
	bin, err := findCompanion("mcpres-sigstore", sigstoreBinaryEnv, "keyless verification is")
	if err != nil {
		return cli.Failf("%v", err)
	}
	return a.runCompanion(bin, append([]string{"attest", "verify"}, args...))
}
