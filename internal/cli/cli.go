// Package cli holds what the commands (mcpres, mcpres-tuf, mcpres-sigstore,
// mcpres-loadgen) do alike with their cobra command trees: one exit and
// usage convention ([Run]: [ExitError], [UsageError], [CommandError]), an
// unknown subcommand, an empty flag value and help asked for together with
// other arguments are usage errors ([Execute]), an error is printed the
// same way ([PrintError]), enumerated flags complete their values, man pages cover
// every command, a write that cannot happen or a private key file that
// others can read is explained the same way, and a renamed flag keeps its
// old spelling as a deprecated alias. What cobra and [Run] print goes
// through internal/termsafe, as every binary's own text output does.
package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/spf13/cobra"
)

// RejectUnknownSubcommands makes every parent command in the tree under
// root (a command with subcommands and no action of its own) fail on an
// argument that is not one of its subcommands, with cobra's "unknown
// command" message and its suggestions, and fail when no subcommand is
// given at all. Without this cobra prints the parent's help and exits 0,
// so `mcpres attest verfy bundle.json` would pass a release gate. The help
// command fails the same way on an unknown topic. usage wraps the error as
// the binary's usage error (exit 2).
func RejectUnknownSubcommands(root *cobra.Command, usage func(error) error) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return usage(fmt.Errorf("%q needs a command: one of %s", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", ")))
				}
				return usage(UnknownCommandError(cmd, args[0]))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// Cobra's help command prints the root's help and exits 0 for a topic
	// it does not know (`mcpres help verfy`): it fails the same way
	// instead, and so does a topic followed by anything that is not a
	// command (`mcpres help attest verify rogue.json`): help together with
	// arguments is refused, as for -h (Execute).
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() != "help" || c.Run == nil {
			continue
		}
		show := c.Run
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			target, rest, err := cmd.Root().Find(args)
			if err != nil {
				return usage(err)
			}
			if len(rest) > 0 {
				if target.HasSubCommands() {
					return usage(UnknownCommandError(target, rest[0]))
				}
				return usage(fmt.Errorf("%q has no commands, and help takes a command only, not %q: nothing was run", target.CommandPath(), rest[0]))
			}
			show(cmd, args)
			return nil
		}
	}
}

// UnknownCommandError is cobra's message for an unknown subcommand name of
// parent, with its "Did you mean this?" suggestions.
func UnknownCommandError(parent *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, parent.CommandPath())
	if parent.SuggestionsMinimumDistance <= 0 {
		parent.SuggestionsMinimumDistance = 2
	}
	if s := parent.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}

// WriteError explains an error from internal/atomicfile (or from a check
// made before writing) for the destination path, the same way in every
// binary: what is in the way, the missing folder, or that --force is
// needed.
func WriteError(path string, err error) string {
	var nr *atomicfile.NotRegularError
	var nf *atomicfile.NoFolderError
	switch {
	case errors.As(err, &nr):
		return fmt.Sprintf("refusing to write %s: it is %s, not a regular file (never replaced, even with --force)", path, nr.Kind)
	case errors.As(err, &nf):
		return fmt.Sprintf("cannot write %s: the folder %s does not exist", path, nf.Folder)
	case errors.Is(err, fs.ErrExist):
		return fmt.Sprintf("refusing to overwrite %s (use --force to replace it)", path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Sprintf("writing %s: %v", path, pe.Err)
	}
	return fmt.Sprintf("writing %s: %v", path, err)
}
