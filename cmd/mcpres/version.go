package main

import (
	"fmt"

	"github.com/mcpres/mcpres/internal/version"
	"github.com/spf13/cobra"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpres version, module version and VCS revision",
		Long: `Print the mcpres version, then the module version, the VCS revision and
commit time recorded in the binary's build information (absent when it was
built with -buildvcs=false or outside a checkout), and the Go version.
'mcpres --version' prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(a.stdout, version.ReadBuild().Describe("mcpres"))
			return nil
		},
	}
}
