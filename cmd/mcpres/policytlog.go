package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

const policyTLogLong = `Write and check tlog-policy texts: the log, witness, group and quorum lines
that 'policy set-transparency' puts in a v1 policy, and that 'log add
--witness-policy' reads to find the witnesses to ask (docs/transparency.md).

Each editing command adds one line to FILE (creating it when it does not
exist; set-quorum replaces the quorum line, set-url the URL of a witness
line, and remove-witness removes a witness line, refusing when a group or
the quorum names that witness), checks the whole result with
the loader's own parser (trustpolicy.ParseTLogPolicyDraft: the same
refusals as loading a policy — a key listed twice under any name, a name
defined twice, a witness reachable twice through one group, a bad
threshold, URL or key, a witness URL ending in /add-checkpoint (the URL
is the witness's base URL) — except that a draft may lack its log or quorum
line), and only then replaces FILE atomically. 'policy tlog check' runs the
full parser: at least one log line and exactly one quorum line.

Exit status: 0 success, 1 the result would have problems (FILE unchanged),
2 unreadable input or a usage error.`

func (a *app) policyTLogCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tlog",
		Short: "Write and check tlog-policy texts (logs, witnesses with URLs, groups, quorum)",
		Long:  policyTLogLong,
	}
	cmd.AddCommand(a.policyTLogAddLogCommand(), a.policyTLogAddWitnessCommand(), a.policyTLogAddGroupCommand(),
		a.policyTLogSetQuorumCommand(), a.policyTLogSetURLCommand(), a.policyTLogRemoveWitnessCommand(),
		a.policyTLogCheckCommand())
	return cmd
}

// editTLogPolicy applies edit to the text of path (empty when path does not
// exist), checks the result with the loader's parser and writes it.
func (a *app) editTLogPolicy(path string, edit func(text string) (string, error)) error {
	if err := fileOnly("FILE", path); err != nil {
		return err
	}
	data, err := readTLogPolicyFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cli.Failf("%v", err)
	}
	text := string(data)
	if _, errs := trustpolicy.ParseTLogPolicyDraft(text); len(errs) > 0 {
		a.printTLogProblems(path+" has problems; it is unchanged:", errs)
		return cli.Exit(exitInvalid)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	next, err := edit(text)
	if err != nil {
		return err
	}
	if _, errs := trustpolicy.ParseTLogPolicyDraft(next); len(errs) > 0 {
		a.printTLogProblems(path+": the change is refused; the file is unchanged:", errs)
		return cli.Exit(exitInvalid)
	}
	if err := atomicfile.WriteFile(path, []byte(next), 0o644, true); err != nil {
		return cli.Failf("writing %s: %v", path, err)
	}
	return nil
}

func (a *app) printTLogProblems(headline string, errs []trustpolicy.TLogError) {
	a.msgs().Notef("%s", headline)
	for _, e := range errs {
		fmt.Fprintf(a.stderr, "  %v\n", e)
	}
}

// tlogField checks a value that goes on a tlog-policy line as one field.
func tlogField(flag, v string) error {
	if v == "" || strings.ContainsAny(v, " \t\n\r#") {
		return cli.Usagef("%s %q must be one field: not empty, no spaces, tabs, newlines or '#'", flag, v)
	}
	return nil
}

// readVKeyFile reads a verifier key file (one vkey line) of one of the
// kinds want; another kind of key file is named, with the flag that takes
// the file (--key).
func readVKeyFile(path string, want ...keyfile.Kind) (string, error) {
	data, err := regularfile.ReadFile(path, maxKeyFileBytes)
	if err != nil {
		return "", cli.Failf("%v", err)
	}
	if err := keyfile.CheckKind(data, want...); err != nil {
		return "", cli.Failf("--key %s: %v", path, keyhints.Word(err, "--key"))
	}
	k, err := parseKeyText(data)
	if err != nil {
		return "", err
	}
	if err := tlogField("--key", k); err != nil {
		return "", err
	}
	return k, nil
}

// appendTLogLine adds line, followed by " URL" when u is not empty, to the
// tlog policy in path (editTLogPolicy) and says so.
func (a *app) appendTLogLine(path, line, u string) error {
	if u != "" {
		if err := tlogField("--url", u); err != nil {
			return err
		}
		line += " " + u
	}
	if err := a.editTLogPolicy(path, func(text string) (string, error) { return text + line + "\n", nil }); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: added %s\n", path, line)
	return nil
}

func (a *app) policyTLogAddLogCommand() *cobra.Command {
	var key, u string
	cmd := &cobra.Command{
		Use:     "add-log FILE --key LOG.vkey [--url URL]",
		Short:   "Add a \"log VKEY [URL]\" line",
		Example: `  mcpres policy tlog add-log tlog-policy.txt --key log.vkey --url https://example.org/log/`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if key == "" {
				return cli.Usagef("--key is required (the log's verifier key file)")
			}
			k, err := readVKeyFile(key, keyfile.LogVerifierKey, keyfile.RekorVerifierKey)
			if err != nil {
				return err
			}
			return a.appendTLogLine(args[0], "log "+k, u)
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "the log's verifier key file")
	cmd.Flags().StringVar(&u, "url", "", "the log's URL (optional)")
	return cmd
}

func (a *app) policyTLogAddWitnessCommand() *cobra.Command {
	var name, key, u string
	cmd := &cobra.Command{
		Use:   "add-witness FILE --name NAME --key WITNESS.vkey [--url URL]",
		Short: "Add a \"witness NAME VKEY [URL]\" line",
		Long: `Add a witness: NAME is the policy's name for it (groups and the quorum refer
to it), WITNESS.vkey its cosignature/v1 verifier key file, and URL, for a
log that collects cosignatures itself (log add --witness-policy), the
witness's C2SP tlog-witness base URL, the one 'witness serve' prints:
requests go to URL/add-checkpoint, so a URL ending in /add-checkpoint is
refused, naming the base URL to give instead.`,
		Example: `  mcpres policy tlog add-witness tlog-policy.txt --name w1 --key w1.vkey --url https://witness.example.org/`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if key == "" {
				return cli.Usagef("--key is required (the witness's verifier key file)")
			}
			if err := tlogField("--name", name); err != nil {
				return err
			}
			k, err := readVKeyFile(key, keyfile.WitnessVerifierKey)
			if err != nil {
				return err
			}
			return a.appendTLogLine(args[0], "witness "+name+" "+k, u)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the witness's name in the policy")
	cmd.Flags().StringVar(&key, "key", "", "the witness's verifier key file (cosignature/v1)")
	cmd.Flags().StringVar(&u, "url", "", "the witness's tlog-witness base URL (requests go to URL/add-checkpoint)")
	return cmd
}

func (a *app) policyTLogAddGroupCommand() *cobra.Command {
	var name, threshold string
	cmd := &cobra.Command{
		Use:     "add-group FILE --name NAME --threshold K|any|all MEMBER...",
		Short:   "Add a \"group NAME K MEMBER...\" line",
		Long:    `Add a group, satisfied when K of its members (witnesses or groups defined earlier) are.`,
		Example: `  mcpres policy tlog add-group tlog-policy.txt --name witnesses --threshold 2 w1 w2 w3`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tlogField("--name", name); err != nil {
				return err
			}
			if err := tlogField("--threshold", threshold); err != nil {
				return err
			}
			for _, m := range args[1:] {
				if err := tlogField("MEMBER", m); err != nil {
					return err
				}
			}
			return a.appendTLogLine(args[0], "group "+name+" "+threshold+" "+strings.Join(args[1:], " "), "")
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the group's name")
	cmd.Flags().StringVar(&threshold, "threshold", "", "how many members must be satisfied: a number, any or all")
	return cmd
}

func (a *app) policyTLogSetQuorumCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "set-quorum FILE NAME|none",
		Short:   "Set the \"quorum\" line (replacing any)",
		Example: `  mcpres policy tlog set-quorum tlog-policy.txt witnesses`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tlogField("NAME", args[1]); err != nil {
				return err
			}
			line := "quorum " + args[1]
			err := a.editTLogPolicy(args[0], func(text string) (string, error) {
				var out []string
				for _, l := range strings.SplitAfter(text, "\n") {
					f := strings.Fields(strings.SplitN(l, "#", 2)[0])
					if len(f) > 0 && f[0] == "quorum" {
						continue
					}
					out = append(out, l)
				}
				return strings.Join(out, "") + line + "\n", nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", args[0], line)
			return nil
		},
	}
	return cmd
}

func (a *app) policyTLogSetURLCommand() *cobra.Command {
	var name, u string
	cmd := &cobra.Command{
		Use:   "set-url FILE --name NAME --url URL",
		Short: "Set the URL of the \"witness NAME\" line (replacing any)",
		Long: `Set the URL of witness NAME (the witness's C2SP tlog-witness base URL, as
add-witness takes it), replacing the URL the line has, if any; the key
and a comment at the end of the line are kept. A name that no witness
line defines is refused (exit 1).`,
		Example: `  mcpres policy tlog set-url tlog-policy.txt --name w1 --url https://witness.example.org/`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tlogField("--name", name); err != nil {
				return err
			}
			if err := tlogField("--url", u); err != nil {
				return err
			}
			return a.editTLogWitness(args[0], func(text string) (string, error) { return trustpolicy.SetTLogWitnessURL(text, name, u) },
				fmt.Sprintf("witness %s: URL %s", name, u))
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the witness's name in the policy")
	cmd.Flags().StringVar(&u, "url", "", "the witness's tlog-witness base URL (requests go to URL/add-checkpoint)")
	return cmd
}

func (a *app) policyTLogRemoveWitnessCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "remove-witness FILE --name NAME",
		Short: "Remove the \"witness NAME\" line",
		Long: `Remove the line of witness NAME. A witness that a group or the quorum names
is not removed (exit 1, naming them): change those lines first, so that
no quorum silently loses a member. A name that no witness line defines is
refused too.`,
		Example: `  mcpres policy tlog remove-witness tlog-policy.txt --name w3`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tlogField("--name", name); err != nil {
				return err
			}
			return a.editTLogWitness(args[0], func(text string) (string, error) { return trustpolicy.RemoveTLogWitness(text, name) },
				"removed witness "+name)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the witness's name in the policy")
	return cmd
}

// editTLogWitness applies edit, a trustpolicy edit of a witness line, to
// the tlog policy in path (editTLogPolicy); an edit it refuses is exit 1
// with the file unchanged. done says what was changed.
func (a *app) editTLogWitness(path string, edit func(text string) (string, error), done string) error {
	err := a.editTLogPolicy(path, func(text string) (string, error) {
		next, err := edit(text)
		if err != nil {
			a.msgs().Notef("%s: the change is refused; the file is unchanged: %v", path, err)
			return "", cli.Exit(exitInvalid)
		}
		return next, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %s\n", path, done)
	return nil
}

func (a *app) policyTLogCheckCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE...",
		Short: "Check tlog-policy texts with the loader's parser",
		Long: `Parse each FILE with trustpolicy.ParseTLogPolicy, the parser of the v1
policy loader, and print every problem. Exit status: 0 all valid, 1 a text
has problems, 2 a file is unreadable.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			worst := exitValid
			for _, path := range args {
				data, err := readTLogPolicyFile(path)
				if err != nil {
					a.msgs().Errorf("%v", err)
					worst = max(worst, exitInput)
					continue
				}
				pol, errs := trustpolicy.ParseTLogPolicy(string(data))
				if len(errs) > 0 {
					doc, _ := canonjson.Parse(data)
					a.hints(kindHints(path, data, doc, wantTLogPolicy))
					a.printTLogProblems(path+": invalid tlog policy:", errs)
					worst = max(worst, exitInvalid)
					continue
				}
				withURL := 0
				for _, w := range pol.Witnesses {
					if w.URL != "" {
						withURL++
					}
				}
				fmt.Fprintf(a.stdout, "%s: valid: %d log(s), %d witness(es) (%d with a URL), %d group(s), quorum %s\n",
					path, len(pol.Logs), len(pol.Witnesses), withURL, len(pol.Groups), pol.Quorum)
			}
			if worst != exitValid {
				return cli.Exit(worst)
			}
			return nil
		},
	}
}

// readTLogPolicyFile reads a tlog-policy text file: a regular file of at
// most trustpolicy.MaxTLogPolicyBytes.
func readTLogPolicyFile(path string) ([]byte, error) {
	return regularfile.ReadFile(path, trustpolicy.MaxTLogPolicyBytes)
}
