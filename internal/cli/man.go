package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpres/mcpres/internal/atomicfile"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// ManCommand is a `man --dir DIR` command that writes one man page
// (section 1) per command of the tree under top — top itself, not the root,
// so that mcpres-tuf run as `mcpres policy tuf` writes
// mcpres-policy-tuf-*.1 pages. Pages are named after the command path
// (mcpres-attest-verify.1) and carry no generation date, so they are
// reproducible. after, when not nil, runs once the pages are written (mcpres
// uses it to add the pages of the companion binaries). usage and fail wrap
// errors as the binary's usage error (exit 2 with the usage text) and
// command error.
func ManCommand(top func() *cobra.Command, usage, fail func(error) error, after func(dir string) error) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "man --dir DIR",
		Short: "Write man pages for every command into DIR",
		Long: `Write one man page (section 1) per command, generated from the same help
text as --help and named after the command (mcpres-attest-verify.1, ...).
Existing pages in DIR are replaced.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch dir {
			case "":
				return usage(fmt.Errorf("--dir is required"))
			case "-":
				return usage(fmt.Errorf("--dir -: man pages are files in a directory, not standard output; give a directory"))
			}
			if err := WriteMan(top(), dir); err != nil {
				return fail(err)
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
// Each page's header names the page (MCPRES\-ATTEST\-VERIFY(1),
// MCPRES\-SIGSTORE\-ATTEST\-VERIFY(1)) and its source the binary it
// documents (the root's name: mcpres, mcpres-sigstore, mcpres-tuf, or
// mcpres for the pages of `mcpres policy tuf`).
func WriteMan(top *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for c := top; c != nil; c = c.Parent() {
		c.DisableAutoGenTag = true // reproducible pages: no "Auto generated" footer
	}
	// No Title: doc.GenMan names each page after its command path.
	header := &doc.GenManHeader{Section: "1", Source: top.Root().Name(), Manual: "mcpres manual"}
	return writeManTree(top, header, dir)
}

// writeManTree is doc.GenManTree, except that each page is generated in
// memory and written with internal/atomicfile: doc.GenManTree opens the
// names with os.Create, which follows a symbolic link, blocks on a FIFO
// and writes into a device. An existing page (a regular file) is replaced;
// anything else at a page's name is refused.
func writeManTree(c *cobra.Command, header *doc.GenManHeader, dir string) error {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(sub, header, dir); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	h := *header
	if err := doc.GenMan(c, &h, &buf); err != nil {
		return fmt.Errorf("man page of %s: %v", c.CommandPath(), err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+"."+header.Section)
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644, true); err != nil {
		return errors.New(WriteError(path, err))
	}
	return nil
}
