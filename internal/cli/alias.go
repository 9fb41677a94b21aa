package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// DeprecatedAlias keeps the old spelling old of cmd's flag current working,
// so that no script breaks when a flag is renamed: old is a hidden flag
// bound to the same value, and using it prints a deprecation warning on
// standard error ("PROG: warning: --old is deprecated; use --current").
// Giving both spellings is a usage error, wrapped by usage.
//
// pflag's own MarkDeprecated is not used: cobra prints its message with
// Print, that is on the command's standard output when one is set, which
// would corrupt a JSON result stream.
func DeprecatedAlias(cmd *cobra.Command, old, current string, usage func(error) error) {
	f := cmd.Flags().Lookup(current)
	if f == nil {
		panic("cli.DeprecatedAlias: no flag --" + current)
	}
	alias := cmd.Flags().VarPF(f.Value, old, "", "deprecated spelling of --"+current)
	alias.Hidden = true
	alias.NoOptDefVal = f.NoOptDefVal
	next := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if alias.Changed {
			if f.Changed {
				return usage(fmt.Errorf("--%s and --%s are the same flag; give --%s only", old, current, current))
			}
			(&Printer{Prog: c.Root().Name(), Stderr: c.ErrOrStderr()}).Warnf("--%s is deprecated; use --%s", old, current)
		}
		if next != nil {
			return next(c, args)
		}
		return nil
	}
}
