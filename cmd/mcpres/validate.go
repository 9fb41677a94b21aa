package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/official"
	"github.com/mcpres/mcpres/validator/profile"
	"github.com/spf13/cobra"
)

const validateLong = `Validate MCP-RES documents. The kind of each document is detected from its
schemaVersion; a conformance bundle is checked with every rule of MCP-RES
v0.2.0, in the reference implementation's order, and the first failing
check is reported.

Each FILE gives one result; a DIR stands for its *.json files (with
--recursive, those of its subdirectories too). Files are validated in
parallel and the results printed in input order. With --format json (the
default) each result is one compact JSON object on its own line on stdout,
exactly as the reference implementation prints it:

  {"valid":true,"diagnostics":[],"schemaErrors":[]}

An unreadable file, or one that breaks a rule of the strict JSON reader
(size, depth, duplicate keys, invalid UTF-8, floats, unsafe integers...),
gives {"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":...}.
With several inputs or a DIR every JSON result starts with a "file" member,
the path as given or found (--with-file adds it for a single FILE too).
With --format text each result is one line for people, with the reason;
--format markdown prints a table for a CI step summary. With several files a
summary of the outcomes follows (on stderr for json). Results stream out as
they are ready, in input order, in memory that does not grow with the
number of files. When stderr is a terminal a progress counter is shown
there (--quiet silences it); it is cleared before every result.

Attested bundles are verified as the reference attestation validator
verifies them: with --policy (or --trust-policy, the reference's name) and
--evaluated-at (default now) against that trust policy, otherwise without
one (at most SIGNED can be derived). The result object and the exit
status are the reference's: a valid attested bundle exits 0 whatever its
level and its statement result (PASS, FAIL or INCOMPLETE). validate is a
validator, not a gate: to require a PASS result, a trusted signer and the
artifact that ships, use attest verify --policy.
Official conformance attachments, profile evaluations and OAuth boundary
evaluations are detected the same way. Profile and OAuth evaluations are
checked against the manifests in --profiles DIR (default $MCPRES_PROFILES:
every *.json entry, read strictly), official attachments against the raw
tool output of --original-result FILE when given. A valid result of these
kinds adds its members after schemaErrors.

Exit status: 0 when every file is valid, 1 when a file fails a check, 2 when
a file cannot be read or evaluated (the worst status wins).`

func (a *app) validateCommand() *cobra.Command {
	var format string
	var withFile, recursive, quiet bool
	var profilesDir, originalPath, policyPath, evaluatedAt string
	cmd := &cobra.Command{
		Use:   "validate FILE|DIR...",
		Short: "Validate MCP-RES documents",
		Long:  validateLong,
		Example: `  mcpres validate testdata/bundles/example.json
  mcpres validate --format text bundles/*.json
  mcpres validate --recursive --format markdown evidence/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkBatchFormat(format); err != nil {
				return err
			}
			paths, err := expandInputs(args, recursive)
			if err != nil {
				return err
			}
			opts, err := a.documentOptions(profilesDir, originalPath, format, withFile)
			if err != nil {
				return err
			}
			if opts.EvaluatedAt, err = evaluationTime(evaluatedAt); err != nil {
				return err
			}
			core := validator.New()
			var pol policySource
			if policyPath != "" {
				pol = readPolicyOnce(policyPath, trustpolicy.OpenOptions{Validator: core})
				a.hints(pol.Hints)
				opts.Policy = pol.Loaded
			}
			val := document.New(core)
			worst := a.runBatch(paths, batchOutput{format: format, withFile: withFile, quiet: quiet}, func(path string) report {
				return a.validateReport(val, path, opts, pol)
			})
			if worst != exitValid {
				return cli.Exit(worst)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output format: json, text or markdown")
	cmd.Flags().BoolVar(&withFile, "with-file", false, withFileUsage)
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, quietUsage)
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "include the .json files of subdirectories of DIR arguments")
	cmd.Flags().StringVar(&profilesDir, "profiles", os.Getenv("MCPRES_PROFILES"), "directory of reliability-profile manifests for profile and OAuth evaluations (default $MCPRES_PROFILES)")
	cmd.Flags().StringVar(&originalPath, "original-result", "", "raw official conformance tool output that official attachments must bind")
	cmd.Flags().StringVar(&policyPath, "policy", "", "trust policy that attested bundles are verified against, as the reference attestation validator's --trust-policy (a validator, not a gate: see attest verify)")
	cmd.Flags().StringVar(&policyPath, "trust-policy", "", "same as --policy (the reference implementation's name)")
	cmd.Flags().StringVar(&evaluatedAt, "evaluated-at", "", "evaluation time of attested bundles as an RFC 3339 date-time (default: now)")
	return cmd
}

func checkFormat(format string) error {
	switch format {
	case "json", "text":
		return nil
	}
	return cli.Usagef("--format must be json or text, not %q", format)
}

// documentOptions loads --profiles and --original-result once, for every
// file. A profile directory that cannot be listed is a command error (exit
// 2); an original result that breaks the file rules (regular file, not a
// symbolic link, at most 64 MiB) prints MCP_RES_INPUT_INVALID and exits 2
// before any file is validated.
func (a *app) documentOptions(profilesDir, originalPath, format string, withFile bool) (document.Options, error) {
	var opts document.Options
	if profilesDir != "" {
		set, err := profile.LoadDir(profilesDir)
		if err != nil {
			return opts, cli.Failf("--profiles: %v", err)
		}
		opts.Profiles = set
	}
	if originalPath != "" {
		o, err := official.ReadOriginalResult(originalPath)
		if err != nil {
			a.printInputInvalid(originalPath, err, format, withFile)
			return opts, cli.Exit(exitInput)
		}
		opts.OriginalResult = o
	}
	return opts, nil
}

// collectInputAbove is the file size from which validateReport collects
// the raw input before the checks run. Below it the collection costs more
// than it saves.
const collectInputAbove = 1 << 20

// validateReport validates one file.
func (a *app) validateReport(val *document.Validator, path string, opts document.Options, pol policySource) report {
	data, err := canonjson.ReadFileBytes(path)
	if err != nil {
		return inputInvalidReport(path, err)
	}
	doc, err := canonjson.Parse(data)
	if err != nil {
		rep := inputInvalidReport(path, err)
		rep.Hints = documentKindHints(path, data, nil)
		return rep
	}
	if len(data) >= collectInputAbove {
		// The raw bytes are dead once parsed (validation works on the
		// tree). Collecting them now lets the checks reuse their space
		// instead of growing the heap by the file's size: 1.8 MB less peak
		// for the compact limit bundle (README, Performance), for one
		// collection of a few milliseconds.
		runtime.GC()
	}
	if pol.Err != nil && document.Detect(doc) == document.AttestedBundle {
		// Read right after the wrapper and before any check (REFERENCE §5.3).
		return inputInvalidReport(pol.Path, fmt.Errorf("trust policy: %w", pol.Err))
	}
	r, err := val.Validate(doc, opts)
	if err != nil {
		rep := inputInvalidReport(path, err)
		if validator.InputReason(err) == profile.NoProfileSet {
			rep.Hints = []string{path + ": give the reliability-profile manifests with --profiles DIR (or $MCPRES_PROFILES)"}
		}
		return rep
	}
	var rep report
	if r.Attestation != nil {
		rep = attestReport(path, *r.Attestation)
	} else {
		rep = resultReport(path, r.Result)
	}
	if !r.Valid {
		rep.Hints = documentKindHints(path, nil, doc)
	}
	return rep
}

// resultReport renders a validation result.
func resultReport(path string, r validator.Result) report {
	rep := report{Path: path, Obj: r.Value(), Diags: r.Diagnostics, Detail: r.Detail}
	if r.Valid {
		rep.Code, rep.Outcome = exitValid, outcomeValid
		rep.Text = []string{path + ": VALID" + extraText(r.Extra)}
		return rep
	}
	rep.Code, rep.Outcome = exitInvalid, outcomeInvalid
	rep.Text = []string{fmt.Sprintf("%s: INVALID %s: %s", path, strings.Join(r.Diagnostics, ", "), r.Detail)}
	for _, e := range r.SchemaErrors {
		p := e.InstancePath
		if p == "" {
			p = "(root)"
		}
		rep.Text = append(rep.Text, fmt.Sprintf("  %s: %s (%s)", p, e.Message, e.Keyword))
	}
	return rep
}

// extraText renders the mode-specific members of a valid result for
// --format text, e.g. " (importStatus COMPLETE, officialCertificationClaim false)".
func extraText(extra []canonjson.Member) string {
	if len(extra) == 0 {
		return ""
	}
	parts := make([]string, len(extra))
	for i, m := range extra {
		b, _ := canonjson.Compact(m.Value)
		parts[i] = m.Key + " " + strings.Trim(string(b), `"`)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func (a *app) printInputInvalid(path string, err error, format string, withFile bool) {
	a.render(inputInvalidReport(path, err), format, withFile, true)
}

func (a *app) printResult(path string, r validator.Result, format string, withFile bool) {
	a.render(resultReport(path, r), format, withFile, true)
}
