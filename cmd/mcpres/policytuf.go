package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/cmd/internal/tuffetch"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
)

// The TUF commands live in a second binary, mcpres-tuf (cmd/mcpres-tuf),
// and mcpres runs it. go-tuf imports sigstore's signature package, which
// brings protobuf and go-containerregistry: linked into mcpres, their
// package initialisation would run on every `mcpres validate` (DESIGN §4
// startup budget; TestOffline in internal/layering), and mcpres would link
// an HTTP client it otherwise never needs.

// tufBinaryEnv names the mcpres-tuf executable explicitly.
const tufBinaryEnv = "MCPRES_TUF"

// tufInvokedAs tells mcpres-tuf how it was invoked, for its usage lines
// and message prefixes.
const tufInvokedAs = "MCPRES_TUF_INVOKED_AS=mcpres policy tuf"

// findTUFBinary returns $MCPRES_TUF, else mcpres-tuf next to this
// executable, else mcpres-tuf on PATH.
func findTUFBinary() (string, error) {
	return findCompanion("mcpres-tuf", tufBinaryEnv, "the TUF commands are")
}

const policyTufLong = `Publish and fetch trust policies through a TUF repository (The Update
Framework, go-tuf v2): init creates a repository, add-target publishes a
policy, sign adds a root signature, fetch obtains and verifies a policy.
Run 'mcpres policy tuf --help' or 'mcpres policy tuf COMMAND --help' for
the details.

These commands are carried out by the mcpres-tuf binary ($MCPRES_TUF, next
to mcpres, or on PATH), which keeps go-tuf and its dependencies out of
mcpres; every argument is passed on unchanged, and its exit status is
mcpres' exit status.`

// policyTufCommand is `mcpres policy tuf …`: it runs mcpres-tuf with the
// same arguments, standard streams and exit status.
func (a *app) policyTufCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "tuf (init|add-target|sign|fetch) [flags]",
		Short:              "Publish and fetch trust policies through a TUF repository (runs mcpres-tuf)",
		Long:               policyTufLong,
		DisableFlagParsing: true,
		// Completion is mcpres-tuf's, as the commands are.
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeCompanion(findTUFBinary, []string{"man", "help"}, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			bin, err := findTUFBinary()
			if err != nil {
				return cli.Failf("%v", err)
			}
			return a.runCompanion(bin, args, tufInvokedAs)
		},
	}
}

// completeCompanion completes the arguments of a pass-through command
// (`mcpres policy tuf ARGS… TOCOMPLETE`, `mcpres oci …`) with what the
// companion's own completion offers for `COMPANION ARGS… TOCOMPLETE`
// (cobra's __complete protocol: one completion a line, then ":DIRECTIVE"):
// its commands, their flags and flag values. Its commands that are not
// commands of mcpres there (hide: man, help) are left out. Without the
// binary nothing is offered, not even files.
func completeCompanion(find func() (string, error), hide []string, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	bin, err := find()
	if err != nil {
		return nil, none
	}
	var stdout bytes.Buffer
	c := exec.Command(bin, append(append([]string{cobra.ShellCompRequestCmd}, args...), toComplete)...)
	c.Stdout = &stdout
	if err := c.Run(); err != nil {
		return nil, none
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	d, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil {
		return nil, none
	}
	var out []cobra.Completion
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		if len(args) == 0 && slices.Contains(hide, name) {
			continue
		}
		out = append(out, l)
	}
	return out, cobra.ShellCompDirective(d)
}

// fetchPolicyTUF obtains the trust policy target from a TUF repository, as
// verified by `mcpres-tuf fetch` at the current time, and returns a name
// for messages and the policy bytes, unparsed. It warns on stderr when the
// cache stood in for an unreachable repository. Every failure is a
// command error (exit 2: the policy cannot be obtained, so nothing can be
// evaluated against it) whose message names the role and the check that
// failed.
func (a *app) fetchPolicyTUF(root, repo, target, cacheDir string) (string, []byte, error) {
	fail := func(format string, args ...any) (string, []byte, error) {
		return "", nil, cli.Failf("trust policy %q from TUF repository %s: %s", target, repo, fmt.Sprintf(format, args...))
	}
	bin, err := findTUFBinary()
	if err != nil {
		return fail("%v", err)
	}
	// --flag=value, so that no value can be taken for a flag.
	args := []string{"fetch", "--format=json", "--policy-tuf=" + root, "--policy-repo=" + repo, "--policy-target=" + target}
	if cacheDir != "" {
		args = append(args, "--policy-cache="+cacheDir)
	}
	var stdout, stderr bytes.Buffer
	c := exec.Command(bin, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	c.Env = append(os.Environ(), tufInvokedAs)
	runErr := c.Run()
	res, err := tuffetch.Parse(stdout.Bytes())
	if err != nil && !errors.Is(err, tuffetch.ErrInconsistent) {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = fmt.Sprintf("%s gave no result (%v)", bin, runErr)
		}
		return fail("%s", msg)
	}
	a.stderr.Write(stderr.Bytes())
	if err == nil && !res.Valid {
		return fail("%s", res.Error)
	}
	// Do not take mcpres-tuf's word for the bytes: they must be what it
	// says it verified (tuffetch.Parse checks them).
	if err != nil || runErr != nil {
		return fail("%s returned an inconsistent result (exit %v)", bin, runErr)
	}
	version := res.Targets.Version
	if res.FromCache {
		a.warnf("TUF repository %s could not be read (%s); using the cached trust policy %q (targets version %d), verified again at %s and valid until %s",
			repo, res.FetchError, target, version, res.EvaluatedAt.UTC().Format(time.RFC3339Nano), res.ValidUntil.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("%s (TUF target of %s, targets version %d)", target, repo, version), res.Data, nil
}
