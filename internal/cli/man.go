package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// ManCommand is a `man --dir DIR` command that writes one man page
// (section 1) per command of the tree under top — top itself, not the root,
// so that mcpres-tuf run as `mcpres policy tuf` writes
// mcpres-policy-tuf-*.1 pages. Pages are named after the command path
// (mcpres-attest-verify.1) and carry no generation date, so they are
// reproducible. after, when not nil, runs once the pages are written (mcpres
// uses it to add the pages of the companion binaries).
func ManCommand(top func() *cobra.Command, usage func(error) error, after func(dir string) error) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "man --dir DIR",
		Short: "Write man pages for every command into DIR",
		Long: `Write one man page (section 1) per command, generated from the same help
text as --help and named after the command (mcpres-attest-verify.1, ...).
Existing pages in DIR are replaced.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return usage(fmt.Errorf("--dir is required"))
			}
			if err := WriteMan(top(), dir); err != nil {
				return err
			}
			if after != nil {
				if err := after(dir); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: man pages written to %s\n", cmd.Root().Name(), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory for the man pages (created if missing)")
	return cmd
}

// WriteMan writes the man pages of top and every command below it to dir.
func WriteMan(top *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for c := top; c != nil; c = c.Parent() {
		c.DisableAutoGenTag = true // reproducible pages: no generation date
	}
	header := &doc.GenManHeader{Title: "MCPRES", Section: "1", Source: "mcpres", Manual: "mcpres manual"}
	if err := doc.GenManTree(top, header, dir); err != nil {
		return fmt.Errorf("writing man pages: %v", err)
	}
	return nil
}
