// Command mcpres-sigstore verifies transparency references that are Rekor
// v1 log entries, fully offline, for teams that log to Rekor:
//
//	mcpres-sigstore attest verify FILE|DIR... [--policy POLICY] [--evaluated-at T] [--format json|text|markdown]
//	mcpres-sigstore verify-rekor-entry ENTRY --bundle BUNDLE --policy POLICY
//	mcpres-sigstore attest sign BUNDLE --keyless --policy-id ID -o OUT
//
// attest verify is mcpres attest verify (the shared command code of
// cmd/internal/verifycmd: formats, gates, directories, exit codes) with
// package offline/rekor registered for mcpres.trust-policy/v1
// policies, so a Rekor v1 entry in a reference is verified (VERIFIED_OFFLINE)
// instead of being reported DIGEST_ONLY. verify-rekor-entry checks one
// LogEntryAnon JSON file against a bundle and the policy's tlog policy.
// attest sign --keyless is keyless signing (package keyless; the only
// command besides rekor upload that uses the network), and attest verify
// --trusted-root verifies keyless signatures offline against a policy's
// identity signers or --certificate-identity/--certificate-oidc-issuer
// (mcpres attest verify runs it when given a keyless flag). verify-blob
// verifies a keyless signature over a file (a release's SHA256SUMS),
// offline.
//
// It is a separate binary because linking rekor, sigstore and go-openapi
// into mcpres would add about 2-3 ms of package initialisation to every
// mcpres run (96 more packages with init; see docs/transparency.md) and
// net/http to a verifier meant never to open a connection; nothing here
// opens one either.
//
// Exit status: 0 valid, 1 a failing check, 2 a usage error or unreadable
// input.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/ocifetch"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/document"
	cmdcli "github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/rekor"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

// Exit codes (internal/cli).
const (
	exitValid   = cmdcli.ExitValid
	exitInvalid = cmdcli.ExitInvalid
	exitInput   = cmdcli.ExitInput
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type app struct{ stdout, stderr io.Writer }

// msgs is the printer of this binary's messages (cli.Printer, the same in
// every binary): errors, notes, passphrase prompts.
func (a *app) msgs() *cmdcli.Printer {
	return &cmdcli.Printer{Prog: "mcpres-sigstore", Stderr: a.stderr}
}

// run executes one command line and returns its exit code (cli.Run).
func run(args []string, stdout, stderr io.Writer) int {
	// Text and JSON results and messages go through internal/termsafe; a
	// reference written to stdout does not (termsafe.Unwrap: it is data).
	a := &app{stdout: termsafe.NewWriter(stdout), stderr: termsafe.NewWriter(stderr)}
	root := &cobra.Command{
		Use:               "mcpres-sigstore",
		Short:             "Verify Rekor v1 transparency references offline",
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	attestCmd := &cobra.Command{Use: "attest", Short: "Attested bundles"}
	attestCmd.AddCommand(a.verifyCommand(), a.keylessSignCommand(), a.keylessPolicyCommand())
	root.AddCommand(attestCmd, a.verifyEntryCommand(), a.rekorCommand(), a.verifyBlobCommand(),
		cmdcli.ManCommand(func() *cobra.Command { return root }, cmdcli.Usage,
			func(err error) error { return err }, nil))
	root.Version = version.Version
	root.SetVersionTemplate(version.ReadBuild().Describe("mcpres-sigstore"))
	return cmdcli.Run(root, "mcpres-sigstore", args, nil, a.stdout, a.stderr)
}

// verifyCommand is mcpres attest verify (package verifycmd: the same
// flags, formats, gates, directories and exit codes), with package
// offline/rekor registered for mcpres.trust-policy/v1 policies. The policy
// is read and loaded once for the whole batch.
func (a *app) verifyCommand() *cobra.Command {
	return verifycmd.Command(verifycmd.Config{
		Prog: "mcpres-sigstore", Stdout: a.stdout, Stderr: a.stderr,
		Now:           verifycmd.NowMillis,
		KindVerifiers: []offline.KindVerifier{rekor.Verifier{}},
		// --oci: the registry client, for keyless verification of an
		// image's referrers (mcpres forwards --oci with a keyless flag
		// here, not to mcpres-oci, which links no sigstore-go).
		FetchOCI: ocifetch.Fetch,
		Keyless: func(policy *trustpolicy.Document, trustedRoot []byte) (verifycmd.Certifier, error) {
			m, err := keyless.NewMaterial(policy, trustedRoot)
			if err != nil {
				return nil, err
			}
			return m, nil
		},
		LongExtra: `

mcpres-sigstore verifies a transparency reference that is a Rekor v1 log
entry offline against the policy's transparency section (VERIFIED_OFFLINE)
where mcpres can only check its digest (DIGEST_ONLY). Policies from a TUF
repository: fetch them with 'mcpres policy tuf fetch -o POLICY' first.`,
	})
}

func (a *app) verifyEntryCommand() *cobra.Command {
	var bundlePath, policyPath, evaluatedAt string
	cmd := &cobra.Command{
		Use:   "verify-rekor-entry ENTRY --bundle BUNDLE --policy POLICY [--evaluated-at T]",
		Short: "Verify a Rekor v1 log entry (LogEntryAnon JSON) against a bundle and a v1 policy's tlog policy",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if bundlePath == "" || policyPath == "" {
				return cmdcli.Usage(fmt.Errorf("--bundle and --policy are required"))
			}
			if evaluatedAt == "" {
				evaluatedAt = verifycmd.NowMillis()
			}
			at, err := datetime.Parse(evaluatedAt)
			if err != nil {
				return cmdcli.Usage(fmt.Errorf("--evaluated-at %q is not an RFC 3339 date-time (leap seconds are rejected)", evaluatedAt))
			}
			entry, err := canonjson.ReadFileBytes(args[0])
			if err != nil {
				return fmt.Errorf("entry %s: %v", args[0], err)
			}
			_, doc, err := canonjson.ReadFile(bundlePath)
			if err != nil {
				return fmt.Errorf("bundle %s: %v", bundlePath, err)
			}
			doc = document.CoreBundle(doc)
			val := validator.New()
			if r, err := val.Bundle(doc); err != nil || !r.Valid {
				return fmt.Errorf("bundle %s is not a valid conformance bundle", bundlePath)
			}
			_, pol, err := canonjson.ReadFile(policyPath)
			if err != nil {
				return fmt.Errorf("policy %s: %v", policyPath, err)
			}
			p, problems := trustpolicy.Load(pol, val)
			if len(problems) > 0 {
				return fmt.Errorf("policy %s: %s", policyPath, problems[0])
			}
			// The policy's trust at the evaluation time: cosignatures dated
			// after it, or older than maxCosignatureAgeSeconds, do not count
			// (as in attest verify).
			trust, ok := p.TrustAt(at.Time())
			if !ok {
				return fmt.Errorf("policy %s has no transparency section", policyPath)
			}
			v, err := rekor.Verifier{}.Verify(entry, offline.EntryFor(doc), trust)
			return a.printEntryResult(args[0], v, err)
		},
	}
	cmd.Flags().StringVar(&bundlePath, "bundle", "", "the conformance bundle (or attested bundle) the entry must bind")
	cmd.Flags().StringVar(&policyPath, "policy", "", "mcpres.trust-policy/v1 whose transparency.tlogPolicy names the Rekor log key")
	cmd.Flags().StringVar(&evaluatedAt, "evaluated-at", "", "evaluation time as an RFC 3339 date-time (default: now); cosignatures dated later are not counted")
	return cmd
}

// printEntryResult prints one JSON line: what was verified, or the error.
func (a *app) printEntryResult(path string, v *offline.Verified, verr error) error {
	s, m := canonjson.NewString, func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	var out *canonjson.Value
	if verr != nil {
		out = canonjson.NewObject(m("file", s(path)), m("valid", canonjson.NewBool(false)), m("error", s(verr.Error())))
	} else {
		ws := []*canonjson.Value{}
		for _, c := range v.Checkpoint.Witnesses {
			ws = append(ws, canonjson.NewObject(m("name", s(c.Name)), m("fingerprint", s(c.Fingerprint))))
		}
		out = canonjson.NewObject(m("file", s(path)), m("valid", canonjson.NewBool(true)),
			m("logId", s(v.LogID)), m("entryUuid", s(v.EntryUUID)), m("origin", s(v.Checkpoint.Origin)),
			m("treeSize", canonjson.NewInt(int64(v.Checkpoint.Size))), m("leafIndex", canonjson.NewInt(int64(v.Index))),
			m("witnesses", canonjson.NewArray(ws...)))
	}
	line, err := canonjson.Compact(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s\n", line)
	if verr != nil {
		return cmdcli.Exit(exitInvalid)
	}
	return nil
}
