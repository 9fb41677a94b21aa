package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func (a *app) manCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "man --dir DIR",
		Short: "Write man pages for every mcpres command into DIR",
		Long: `Write one man page (section 1) per command, generated from the same help
text as --help: mcpres.1, mcpres-validate.1, mcpres-attest-sign.1, ...
Existing pages in DIR are replaced.`,
		Example: `  mcpres man --dir /usr/local/share/man/man1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return usagef("--dir is required")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return failf("%v", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // reproducible pages: no generation date
			header := &doc.GenManHeader{Title: "MCPRES", Section: "1", Source: "mcpres", Manual: "mcpres manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return failf("writing man pages: %v", err)
			}
			fmt.Fprintf(a.stderr, "mcpres: man pages written to %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory for the man pages (created if missing)")
	return cmd
}
