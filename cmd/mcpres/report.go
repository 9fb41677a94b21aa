package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/version"
	htmlreport "github.com/mcpres/mcpres/report"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

const reportLong = `Render an MCP-RES document as one self-contained HTML page for people: the
verdict first (each diagnostic with what its check means and where it looks),
the evidence class and the observations it rests on, and for an attested
bundle the authenticity level and how it was derived; then the subject and
scenario, the operation graph, an observation timeline, coverage, the trial
summary and the integrity manifest; always the limits of a result (MCP-RES
§9). Other document kinds get their verdict and a structured view.

The verdict is computed exactly as mcpres validate computes it, and for an
attested bundle exactly as mcpres attest verify does (with --policy and
--evaluated-at, default now). The page has no JavaScript and loads nothing:
a Content-Security-Policy forbids scripts and every fetch, and every string
from the document is escaped.

OUTPUT is written atomically and never replaces an input; an existing OUTPUT
is replaced only with --force. The report is written whatever the verdict;
the exit status is that of validate: 0 valid, 1 a failing check, 2 an
unreadable document or a usage error. An input that cannot be read or
evaluated (a missing or malformed document or policy: exit 2) writes no
report, only its result line.

With --policy an attested bundle is judged by the gate of attest verify,
with the same defaults and flags: its statement result must be PASS
(--accept-result names others), at least one envelope must be by a
trusted signer (SIGNED_WITH_IDENTITY; --require-level raises it,
--require-level-unsafe lowers it by name), --require-evidence-class, and
the subject checks (--artifact, --subject-digest, --subject-name,
--subject-version). The page opens with PASSED or FAILED and lists every
check; a failed gate exits 1. A gate flag without --policy is a usage
error (exit 2). The subject checks also apply to a conformance bundle,
which has no signer: each is listed, and a failed one makes the verdict a
failure (exit 1). Asked of a document that has no subject, they are a
usage error (exit 2) and no page is written. A valid bundle whose result
is not PASS is shown as such in the verdict box.

With --trusted-root (and --policy), an attested bundle's keyless
signatures are verified as attest verify --trusted-root verifies them
(its Sigstore bundles beside it, certified by mcpres-sigstore): each
certification (identity, issuer, timestamp) is listed with how the level
was derived, and a Sigstore bundle that does not verify makes the verdict
INVALID with its MCPRES_KEYLESS_ diagnostic.`

func (a *app) reportCommand() *cobra.Command {
	var out, policyPath, evaluatedAt, profilesDir, trustedRoot string
	var force bool
	var subject verifycmd.SubjectFlags
	var gf verifycmd.GateFlags
	cmd := &cobra.Command{
		Use:   "report FILE -o OUTPUT.html [--policy P] [--evaluated-at T] [--profiles DIR] [--artifact FILE]...",
		Short: "Render a document and its verdict as a self-contained HTML report",
		Long:  reportLong,
		Example: `  mcpres report testdata/bundles/example.json -o report.html
  mcpres report bundle.attested.json --policy policy.json -o report.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return cli.Usagef("-o/--output is required")
			}
			at, err := evaluationTime(evaluatedAt)
			if err != nil {
				return err
			}
			opts, err := a.documentOptions(profilesDir, "", "text", false)
			if err != nil {
				return err
			}
			if err := gf.CheckValues(); err != nil {
				return cli.Usage(err)
			}
			if trustedRoot != "" && policyPath == "" {
				return cli.Usagef("--trusted-root goes with --policy (whose identity signers it verifies)")
			}
			if given := gf.Given(); len(given) > 0 && policyPath == "" {
				return cli.Usagef("%s: a gate needs a trust source (--policy): without one no signer is trusted, so nothing can pass", strings.Join(given, ", "))
			}
			q, err := subject.Requirement()
			if err != nil {
				return err
			}
			var gate verifycmd.Gate
			if policyPath != "" {
				if gate, err = verifycmd.NewGate(gf, q); err != nil {
					return cli.Usage(err)
				}
			}
			in, rep := a.evaluateForReport(args[0], reportTrust{policyPath, trustedRoot}, at, opts, gate, q)
			if rep.Code == exitInput {
				// No verdict to lay out: an unreadable document or
				// policy writes no page, only its result line.
				a.reportTo(out).render(rep, "text", false, true)
				return cli.Exit(exitInput)
			}
			in.Generator = "mcpres " + version.Version
			html, err := htmlreport.Render(in)
			if err != nil {
				return cli.Failf("%v", err)
			}
			inputs := []string{args[0]}
			for _, p := range []string{policyPath, trustedRoot} {
				if p != "" {
					inputs = append(inputs, p)
				}
			}
			if err := a.writeOutput(out, inputs, html, force); err != nil {
				return err
			}
			a.reportTo(out).render(rep, "text", false, true)
			a.wrote(out, "HTML report")
			if rep.Code != exitValid {
				return cli.Exit(rep.Code)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "where to write the HTML report (required; - for standard output)")
	f.StringVar(&policyPath, "policy", "", "trust policy for an attested bundle (as attest verify --policy)")
	f.StringVar(&trustedRoot, "trusted-root", "", "keyless: the Sigstore trusted_root.json the policy names, to verify FILE's Sigstore bundles against (as attest verify --trusted-root; runs mcpres-sigstore)")
	f.StringVar(&evaluatedAt, "evaluated-at", "", "evaluation time for an attested bundle as an RFC 3339 date-time (default: now)")
	f.StringVar(&profilesDir, "profiles", os.Getenv("MCPRES_PROFILES"), "directory of reliability-profile manifests for profile and OAuth evaluations (default $MCPRES_PROFILES)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	f.BoolVar(&a.quiet, "quiet", false, "do not say on stderr what was written")
	subject.Register(f)
	gf.Register(f)
	return cmd
}

// evaluationTime is --evaluated-at checked as attest verify checks it, or now.
func evaluationTime(at string) (string, error) {
	if at == "" {
		return nowMillis(), nil
	}
	if !datetime.Valid(at) {
		return "", cli.Usagef("--evaluated-at %q is not an RFC 3339 date-time (leap seconds are rejected)", at)
	}
	return at, nil
}

// evaluateForReport reads one document and computes its verdict with the
// calls validate and attest verify make: attest.Verify (with the policy
// and evaluation time) and, with a policy, attest verify's gate for an
// attested bundle; the validator's document package for every other kind
// (document.Detect is the one kind switch), with the subject checks q
// for a conformance bundle.
func (a *app) evaluateForReport(path string, trust reportTrust, at string, opts document.Options, gate verifycmd.Gate, q attest.SubjectRequirement) (htmlreport.Input, report) {
	policyPath := trust.policy
	in := htmlreport.Input{Name: path}
	data, doc, err := canonjson.ReadFile(path)
	if err != nil {
		return in, inputInvalidReport(path, err)
	}
	in.Document = doc
	if q.Active() {
		if why := verifycmd.NoSubject(doc); why != "" {
			return in, inputInvalidReport(path, fmt.Errorf("a subject check was asked, and this is %s", why))
		}
	}
	val := validator.New()
	vo := attest.Options{EvaluatedAt: at, Validator: val}
	if policyPath != "" {
		// Read whatever the document is: a policy that cannot be read is
		// an unreadable input (exit 2), never ignored.
		pol := readPolicyOnce(policyPath, trustpolicy.OpenOptions{Validator: val})
		if pol.Err != nil {
			return in, inputInvalidReport(pol.Path, fmt.Errorf("trust policy: %w", pol.Err))
		}
		vo.Policy, in.PolicyName = pol.Loaded, pol.Path
	}
	if document.Detect(doc) == document.AttestedBundle {
		if q.Active() && !gate.Active() {
			return in, inputInvalidReport(path, fmt.Errorf("%s: subject checks of an attested bundle are a gate, and a gate needs a trust source (--policy)", verifycmd.SubjectFlagNames))
		}
		if gate.Unbound() {
			a.warnf("the gate is not bound to an artifact: a bundle about anything the trusted signers signed passes (bind it with %s)", verifycmd.SubjectFlagNames)
		}
		var notes []string
		if trust.trustedRoot != "" {
			if vo.Policy, notes, err = a.keylessPolicy(path, trust, vo.Policy); err != nil {
				return in, inputInvalidReport(path, err)
			}
		}
		r, err := attest.Verify(doc, vo)
		if err != nil {
			return in, inputInvalidReport(path, err)
		}
		r.Evaluation.Notes = append(notes, r.Evaluation.Notes...)
		in.Attestation = &r
		rep := attestReport(path, r)
		if gate.Active() {
			v := gate.Verdict(r)
			in.Verdict, in.Subject = &v, v.Subject
			rep = gate.Render(rep, r, v, data, doc)
		}
		return in, rep
	}
	if policyPath != "" {
		a.warnf("--policy applies to attested bundles only; %s is not one", path)
	}
	dr, err := document.New(val).Validate(doc, opts)
	if err != nil {
		return in, inputInvalidReport(path, err)
	}
	in.Result = dr.Result
	rep := resultReport(path, dr.Result)
	if q.Active() {
		// A conformance bundle's subject, as a verified one's would be.
		r := attest.Result{Result: dr.Result}
		if dr.Result.Valid {
			r.Subject = attest.BundleSubject(doc)
		}
		in.Subject = q.Evaluate(r)
		rep = verifycmd.SubjectOnly(rep, r, q, data, doc)
	}
	return in, rep
}

// reportTrust is report's trust source: the policy file and, for keyless
// signatures, the Sigstore trusted root.
type reportTrust struct{ policy, trustedRoot string }

// keylessPolicy is the policy the attested bundle at path is verified
// against once mcpres-sigstore has certified its keyless signatures
// (keyless.Material.Resolved): the certified policy and its notes, or
// base refusing the bundle with the failing check's code.
func (a *app) keylessPolicy(path string, trust reportTrust, base *attest.LoadedPolicy) (*attest.LoadedPolicy, []string, error) {
	bin, err := findCompanion("mcpres-sigstore", sigstoreBinaryEnv, "keyless verification is")
	if err != nil {
		return nil, nil, err
	}
	out, err := a.companionOutput(bin, []string{"attest", "keyless-policy", "--policy", trust.policy, "--trusted-root", trust.trustedRoot, "--", path})
	if err != nil {
		return nil, nil, err
	}
	v, err := canonjson.Parse(out)
	if err != nil {
		return nil, nil, fmt.Errorf("mcpres-sigstore attest keyless-policy: %v", err)
	}
	if ref := v.Get("refused"); ref != nil {
		return base.Refused(&attest.Failure{Code: ref.Get("code").Str, Detail: ref.Get("detail").Str}), nil, nil
	}
	var notes []string
	if ns := v.Get("notes"); ns.Is(canonjson.Array) {
		for _, n := range ns.Items {
			notes = append(notes, n.Str)
		}
	}
	return trustpolicy.Open(v.Get("policy"), trustpolicy.OpenOptions{}), notes, nil
}
