package main

import (
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/attest/sigstore"
	cmdcli "github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

const verifyBlobLong = `Verify a keyless signature over FILE offline: the Sigstore bundle SB (what
cosign sign-blob --bundle or cosign attest-blob --bundle writes) against
TRUSTED_ROOT, with sigstore-go: the certificate chains to a Fulcio CA of
the trusted root at a time proven by a signed timestamp (or by a
transparency-log entry, which must verify when the trusted root lists
logs), the signature is over FILE under the certificate's key, and the
certificate's OIDC issuer is --certificate-oidc-issuer and its identity
--certificate-identity (or matches --certificate-identity-regexp, anchored).

The action (action/install.sh) runs it to check a release's SHA256SUMS
against the release workflow's identity its pins name. Exit status: 0
verified, 1 the signature does not verify (MCPRES_KEYLESS_BLOB_SIGNATURE),
2 unreadable input or a usage error. No network.`

func (a *app) verifyBlobCommand() *cobra.Command {
	var sbPath, rootPath string
	var id keyless.BlobIdentity
	cmd := &cobra.Command{
		Use:   "verify-blob FILE --bundle SB --trusted-root TRUSTED_ROOT --certificate-oidc-issuer ISS (--certificate-identity ID | --certificate-identity-regexp RE)",
		Short: "Verify a keyless signature (cosign sign-blob/attest-blob bundle) over a file, offline",
		Long:  verifyBlobLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case sbPath == "" || rootPath == "" || id.Issuer == "":
				return cmdcli.Usagef("--bundle, --trusted-root and --certificate-oidc-issuer are required")
			case (id.Identity == "") == (id.IdentityRegexp == ""):
				return cmdcli.Usagef("give one of --certificate-identity and --certificate-identity-regexp")
			}
			data, err := regularfile.ReadFile(args[0], 64<<20)
			if err != nil {
				return cmdcli.Failf("%v", err)
			}
			sb, err := regularfile.ReadFile(sbPath, sigstore.MaxMaterialBytes)
			if err != nil {
				return cmdcli.Failf("--bundle: %v", err)
			}
			root, err := regularfile.ReadFile(rootPath, trustpolicy.MaxTrustedRootSize)
			if err != nil {
				return cmdcli.Failf("--trusted-root: %v", err)
			}
			if err := keyless.VerifyBlob(data, sb, root, id); err != nil {
				var f *keyless.Failure
				if errors.As(err, &f) && f.Code == keyless.CodeBlobSignature {
					fmt.Fprintf(a.stdout, "%s: INVALID %s\n", args[0], err)
					return cmdcli.Exit(exitInvalid)
				}
				return cmdcli.Failf("%s: %v", args[0], err)
			}
			fmt.Fprintf(a.stdout, "%s: VERIFIED keyless signature of %s\n", args[0], id)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sbPath, "bundle", "", "the Sigstore bundle of the signature")
	f.StringVar(&rootPath, "trusted-root", "", "the Sigstore trusted_root.json to verify against")
	f.StringVar(&id.Issuer, "certificate-oidc-issuer", "", "the certificate's OIDC issuer, exactly")
	f.StringVar(&id.Identity, "certificate-identity", "", "the certificate's identity, exactly")
	f.StringVar(&id.IdentityRegexp, "certificate-identity-regexp", "", "the certificate's identity as an anchored RE2 expression")
	return cmd
}
