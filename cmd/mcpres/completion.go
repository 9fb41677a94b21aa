package main

import (
	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
)

// completionBashNeeds is said by `mcpres completion --help` (cobra says
// it only in `completion bash --help`): the bash script calls the
// bash-completion package's functions.
const completionBashNeeds = `

bash needs the bash-completion package (Debian and Ubuntu: apt install
bash-completion; macOS: brew install bash-completion@2); without it every
Tab prints "_get_comp_words_by_ref: command not found".`

// registerCompletions gives every enumerated flag its values for shell
// completion (`mcpres completion bash|zsh|fish|powershell`); execute calls
// it only for a completion request (cli.Completing).
func registerCompletions(root *cobra.Command) {
	var levels []string
	for l := attest.UnsignedIntegrityOnly; l <= attest.TransparencyRecorded; l++ {
		levels = append(levels, l.String())
	}
	var classes []string
	for _, c := range bundle.EvidenceClasses() {
		classes = append(classes, c.String())
	}
	cli.CompleteEnums(root, map[string][]string{
		"format":                 {"json", "text", "markdown", exportFormatUpstream},
		"require-level":          levels,
		"claim":                  levels,
		"require-evidence-class": classes,
		"role":                   {"signer", "witness"},
		"from":                   {"0.1.0"},
		"to":                     {"0.2.0"},
	})
}
