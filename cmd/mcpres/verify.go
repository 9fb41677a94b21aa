package main

import (
	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

// attest verify, the batch runner and the report renderers are shared with
// mcpres-sigstore (cmd/internal/verifycmd); these are mcpres's names for
// them.

type (
	report       = verifycmd.Report
	policySource = verifycmd.PolicySource
	inputs       = verifycmd.Inputs
)

// What a command takes in a file, for kindHints.
const (
	wantPolicy     = verifycmd.WantPolicy
	wantTLogPolicy = verifycmd.WantTLogPolicy
)

const (
	outcomeValid        = verifycmd.OutcomeValid
	outcomeInvalid      = verifycmd.OutcomeInvalid
	outcomeInputInvalid = verifycmd.OutcomeInputInvalid
	outcomeGateFailed   = verifycmd.OutcomeGateFailed
)

func (a *app) attestVerifyCommand() *cobra.Command {
	return verifycmd.Command(verifycmd.Config{
		Prog: "mcpres", Stdout: a.stdout, Stderr: a.stderr,
		Now:            nowMillis,
		FetchPolicyTUF: a.fetchPolicyTUF,
		ForwardOCI:     a.forwardOCI,
		ForwardKeyless: a.forwardKeylessVerify,
		IsTerminal:     a.isTerminal,
	})
}

func (a *app) printer() *verifycmd.Printer {
	return &verifycmd.Printer{Stdout: a.stdout, Stderr: a.stderr, Prog: "mcpres", IsTerminal: a.isTerminal}
}

// batchOutput is how a batch command prints: the --format, whether JSON
// results name their file even for one input (--with-file), and --quiet
// (no progress counter).
type batchOutput struct {
	format   string
	withFile bool
	quiet    bool
}

const (
	quietUsage    = verifycmd.QuietUsage
	withFileUsage = verifycmd.WithFileUsage
)

func (a *app) runBatch(in inputs, out batchOutput, eval func(path string) report) int {
	p := a.printer()
	p.Quiet = out.quiet
	return p.Run(in, out.format, out.withFile, eval)
}

func (a *app) render(r report, format string, withFile, first bool) {
	a.printer().Render(r, format, withFile, first)
}

func (a *app) printJSON(path string, obj *canonjson.Value, withFile bool) {
	a.printer().PrintJSON(path, obj, withFile)
}

func checkBatchFormat(format string) error {
	if err := verifycmd.CheckFormat(format); err != nil {
		return cli.Usage(err)
	}
	return nil
}

func expandInputs(args []string, recursive bool) (inputs, error) {
	in, err := verifycmd.ExpandInputs(args, recursive)
	if err != nil {
		return inputs{}, cli.Fail(err)
	}
	return in, nil
}

func inputInvalidReport(path string, err error) report {
	return verifycmd.InputInvalidReport(path, err)
}

func attestReport(path string, r attest.Result) report { return verifycmd.AttestReport(path, r) }

func readPolicyOnce(path string, opts trustpolicy.OpenOptions) policySource {
	return verifycmd.ReadPolicyOnce(path, opts)
}

func documentHints(path string, doc *canonjson.Value) []string {
	return verifycmd.DocumentHints(path, doc)
}

// documentKindHints is verifycmd.KindHints for what validate takes: any
// MCP-RES document.
func documentKindHints(path string, data []byte, doc *canonjson.Value) []string {
	return kindHints(path, data, doc, verifycmd.WantDocument)
}

func kindHints(path string, data []byte, doc *canonjson.Value, want verifycmd.Want) []string {
	return verifycmd.KindHints(path, data, doc, want)
}

func (a *app) hints(hs []string) {
	for _, h := range hs {
		a.hint(h)
	}
}

func (a *app) hint(h string) { a.printer().Hint(h) }
