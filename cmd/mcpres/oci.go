package main

import (
	"bytes"
	"github.com/mcpres/mcpres/internal/cli"
	"os"
	"os/exec"

	"github.com/spf13/cobra"
)

// The OCI commands live in a companion binary, mcpres-oci (cmd/mcpres-oci),
// and mcpres runs it: the OCI client (oras-go and go-digest) compiles
// regular expressions at package initialisation, about 1 ms that every
// mcpres run would pay (DESIGN §4 startup budget; docs/oci.md).

// ociBinaryEnv names the mcpres-oci executable explicitly.
const ociBinaryEnv = "MCPRES_OCI"

// How mcpres-oci is told how it was invoked, for its usage lines and
// message prefixes.
const (
	ociInvokedAs       = "MCPRES_OCI_INVOKED_AS=mcpres oci"
	ociVerifyInvokedAs = "MCPRES_OCI_INVOKED_AS=mcpres"
)

func findOCIBinary() (string, error) {
	return findCompanion("mcpres-oci", ociBinaryEnv, "the OCI commands are")
}

const ociLong = `Publish attested bundles beside the OCI images they are about, find them,
and download them for offline verification: attach, discover and pull;
resolve prints an image's manifest digest.
Run 'mcpres oci --help' or 'mcpres oci COMMAND --help' for the details;
docs/oci.md describes the artifact and the registry rules.

These commands, and attest verify --oci, are carried out by the mcpres-oci
binary ($MCPRES_OCI, next to mcpres, or on PATH), which keeps the OCI
client out of every other mcpres run; every argument is passed on
unchanged, and its exit status is mcpres' exit status.`

// ociCommand is `mcpres oci …`: it runs mcpres-oci with the same
// arguments, standard streams and exit status.
func (a *app) ociCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "oci (attach|discover|pull|resolve) [flags]",
		Short:              "Attach attested bundles to OCI images, discover and pull them (runs mcpres-oci)",
		Long:               ociLong,
		DisableFlagParsing: true,
		// Completion is mcpres-oci's, as the commands are.
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeCompanion(findOCIBinary, []string{"man", "help", "attest"}, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			bin, err := findOCIBinary()
			if err != nil {
				return cli.Failf("%v", err)
			}
			return a.runCompanion(bin, args, ociInvokedAs)
		},
	}
}

// forwardOCI is attest verify --oci: mcpres-oci's attest verify with the
// same flags.
func (a *app) forwardOCI(flags []string) error {
	bin, err := findOCIBinary()
	if err != nil {
		return cli.Failf("%v", err)
	}
	return a.runCompanion(bin, append([]string{"attest", "verify"}, flags...), ociVerifyInvokedAs)
}

// manOCI has mcpres-oci write the pages of `mcpres oci …`, replacing the
// single page of the pass-through command.
func (a *app) manOCI(dir string) error {
	bin, err := findOCIBinary()
	if err != nil {
		a.warnf("no man pages for 'mcpres oci' commands: %v", err)
		return nil
	}
	var out bytes.Buffer
	c := exec.Command(bin, "man", "--dir", dir)
	c.Stdout, c.Stderr = &out, &out
	c.Env = append(os.Environ(), ociInvokedAs)
	if err := c.Run(); err != nil {
		a.stderr.Write(out.Bytes())
		return cli.Failf("%s man: %v", bin, err)
	}
	return nil
}
