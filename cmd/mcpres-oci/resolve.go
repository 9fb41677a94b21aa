package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

const ociResolveLong = `Print the manifest digest IMAGE names in its registry (sha256:HEX, one
line), as attach resolves it: the manifest is downloaded (bounded) and its
digest computed here, so a registry that serves other bytes than the
digest it names, or than the digest of IMAGE@DIGEST, is an error (exit 2).

mcpres subject set --image and mcpres seal --image run it to write an
image's digest into a draft's subject (evidence.subject.artifactSha256).`

// resolveCommand is `resolve IMAGE`: the manifest digest, as attach and
// discover resolve it (oci.Client.Resolve).
func (a *app) resolveCommand() *cobra.Command {
	var f ociFlags
	cmd := &cobra.Command{
		Use:     "resolve IMAGE",
		Short:   "Print the manifest digest of an image",
		Long:    ociResolveLong,
		Example: `  mcpres oci resolve ghcr.io/example/mcp-server:1.0`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ctx, cancel, err := f.client()
			if err != nil {
				return err
			}
			defer cancel()
			img, err := c.Resolve(ctx, args[0])
			if err != nil {
				return registryFailure(ctx, err)
			}
			fmt.Fprintln(a.stdout, img.Digest())
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
