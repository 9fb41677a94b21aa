package main

import (
	"fmt"

	"github.com/mcpres/mcpres/internal/version"
	"github.com/spf13/cobra"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpres version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "mcpres %s\n", version.Version)
			return nil
		},
	}
}
