package cli

import "github.com/spf13/cobra"

// NestUnder is how a companion binary run by mcpres (mcpres-tuf for
// `mcpres policy tuf`, mcpres-oci for `mcpres oci`) shows its commands as
// they were typed: root is renamed to the last of words (the invoking
// command line, "mcpres policy tuf") and nested under parents named by
// the others, and args gains those parents' names, so usage lines and
// help read `mcpres policy tuf sign …`. It returns the new root and
// arguments to run.
func NestUnder(root *cobra.Command, words, args []string) (*cobra.Command, []string) {
	if len(words) == 0 {
		return root, args
	}
	root.Use = words[len(words)-1]
	for i := len(words) - 2; i >= 0; i-- {
		parent := &cobra.Command{Use: words[i], SilenceErrors: true, SilenceUsage: true,
			CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true}}
		parent.AddCommand(root)
		root = parent
	}
	return root, append(words[1:len(words):len(words)], args...)
}
