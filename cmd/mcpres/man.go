package main

import (
	"bytes"
	"os"
	"os/exec"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
)

func (a *app) manCommand() *cobra.Command {
	var cmd *cobra.Command
	cmd = cli.ManCommand(func() *cobra.Command { return cmd.Root() },
		cli.Usage,
		func(err error) error { return cli.Failf("%v", err) },
		func(dir string) error {
			if err := a.manPolicyTUF(dir); err != nil {
				return err
			}
			return a.manOCI(dir)
		})
	cmd.Short = "Write man pages for every mcpres command into DIR"
	cmd.Long = `Write one man page (section 1) per command, generated from the same help
text as --help: mcpres.1, mcpres-validate.1, mcpres-attest-sign.1, ...,
and the pages of 'mcpres policy tuf' and its commands, which mcpres-tuf
writes (mcpres-policy-tuf-fetch.1, ...), and of 'mcpres oci' and its
commands, which mcpres-oci writes (mcpres-oci-attach.1, ...; each skipped
with a warning when its binary is not found). Existing pages in DIR are
replaced.

mcpres-tuf, mcpres-sigstore and mcpres-oci write their own pages with
their own man command.`
	cmd.Example = `  mcpres man --dir /usr/local/share/man/man1`
	return cmd
}

// manPolicyTUF has mcpres-tuf write the pages of `mcpres policy tuf …`,
// replacing the single page of the pass-through command. What mcpres-tuf
// says is shown only when it fails: `mcpres man` says once where the pages
// are.
func (a *app) manPolicyTUF(dir string) error {
	bin, err := findTUFBinary()
	if err != nil {
		a.warnf("no man pages for 'mcpres policy tuf' commands: %v", err)
		return nil
	}
	var out bytes.Buffer
	c := exec.Command(bin, "man", "--dir", dir)
	c.Stdout, c.Stderr = &out, &out
	c.Env = append(os.Environ(), tufInvokedAs)
	if err := c.Run(); err != nil {
		a.stderr.Write(out.Bytes())
		return cli.Failf("%s man: %v", bin, err)
	}
	return nil
}
