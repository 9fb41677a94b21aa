package cli

import (
	"regexp"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var (
	word         = regexp.MustCompile(`[A-Za-z0-9_.-]+`)
	defaultParen = regexp.MustCompile(`\(default[^)]*\)`)
)

// Completing reports whether args (a command line without the program
// name) ask for shell completions: cobra's hidden request commands, which
// the scripts of `completion bash|zsh|fish|powershell` run on each Tab.
// Binaries call CompleteEnums only then: walking every command's flags
// costs about half a millisecond at each start, and no other command
// reads what it registers.
func Completing(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// CompleteEnums registers shell-completion values for enumerated flags on
// every command under root: values maps a flag name to every value the
// flag takes anywhere in the tree. Where a command's flag names a subset
// of them in its usage text (--format "json or text"), only that subset is
// offered; otherwise all. Files are not offered for these flags.
func CompleteEnums(root *cobra.Command, values map[string][]string) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			all, ok := values[f.Name]
			if !ok {
				return
			}
			offered := EnumValues(f.Usage, all)
			// An error means the flag already has a completion function:
			// the command's own choice wins.
			_ = c.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return offered, cobra.ShellCompDirectiveNoFileComp
			})
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// EnumValues returns the values of all that usage names as words, in the
// order of all, or all when it names none. A "(default X)" remark does not
// count as naming X.
func EnumValues(usage string, all []string) []string {
	words := word.FindAllString(defaultParen.ReplaceAllString(usage, ""), -1)
	var named []string
	for _, v := range all {
		if slices.Contains(words, v) {
			named = append(named, v)
		}
	}
	if len(named) == 0 {
		return all
	}
	return named
}
