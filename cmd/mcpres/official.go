package main

import (
	"errors"
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/validator/official"
	"github.com/spf13/cobra"
)

func (a *app) officialCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "official",
		Short: "Work with official MCP conformance results (MCP-RES §12)",
		Long: `Work with the output of the official MCP conformance tool
(@modelcontextprotocol/conformance). Attachments are validated by
"mcpres validate", which detects them by their schemaVersion.`,
	}
	cmd.AddCommand(a.officialImportCommand())
	return cmd
}

const officialImportLong = `Turn the official MCP conformance tool's JSON output (an array of check
objects) into an mcp-res.official-conformance-attachment/0.2.0, then validate
it and print the result object.

Every outcome is copied verbatim: failures and warnings keep their official
outcome, a check is marked as an expected failure only when CONFIG's baseline
lists it and it failed or warned, and the import status is derived, never
configured. OUTPUT is read with the strict JSON reader; its raw bytes are
bound by SHA-256 and length (unless CONFIG gives originalResultArtifact,
e.g. when OUTPUT was sanitized).

CONFIG is an mcpres.official-import-config/v1 document: the tool's package
identity, protocol revision and requirement set, mode, suite, legs, the
default scenario id, observation coverage and the harness exit code, plus
optional expected checks, pending and not-scored checks, the expected-failure
baseline, scenarios and sanitization (see docs/official-conformance.md).

The attachment is written to ATTACHMENT atomically, in the two-space layout.
An existing file is never replaced unless --force is given, and neither
input is ever overwritten.

Exit status: 0 written (the attachment is valid; its importStatus may still
be INVALID or INCOMPLETE), 1 the output was refused
(MCP_RES_OFFICIAL_INPUT_INVALID, MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE) or the
configuration makes the attachment invalid (nothing written), 2 an unreadable
or invalid CONFIG, or a usage error.`

func (a *app) officialImportCommand() *cobra.Command {
	var configPath, out, format string
	var force bool
	cmd := &cobra.Command{
		Use:     "import OUTPUT --config CONFIG -o ATTACHMENT",
		Short:   "Build an official conformance attachment from the official tool's output",
		Long:    officialImportLong,
		Example: `  mcpres official import results.json --config import.json -o attachment.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if configPath == "" {
				return cli.Usagef("--config is required")
			}
			if out == "" {
				return cli.Usagef("-o/--output is required")
			}
			return a.officialImport(args[0], configPath, out, format, force)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "the mcpres.official-import-config/v1 document (required)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "where to write the attachment (required; - for standard output)")
	cmd.Flags().StringVar(&format, "format", "json", "output format of the result: json or text")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}

func (a *app) officialImport(outputPath, configPath, out, format string, force bool) error {
	val := official.New(nil)
	_, cfgDoc, err := canonjson.ReadFile(configPath)
	if err != nil {
		a.printInputInvalid(configPath, err, format, false)
		return cli.Exit(exitInput)
	}
	cfg, err := val.ParseImportConfig(cfgDoc)
	if err != nil {
		a.printInputInvalid(configPath, err, format, false)
		return cli.Exit(exitInput)
	}
	raw, err := canonjson.ReadFileBytes(outputPath)
	if err != nil {
		return a.refuse(official.CodeImportInputInvalid, fmt.Sprintf("reading %s: %v", outputPath, err))
	}
	doc, err := official.Import(raw, cfg)
	if err != nil {
		var ie *official.ImportError
		if errors.As(err, &ie) {
			return a.refuse(ie.Code, ie.Reason)
		}
		return cli.Failf("importing %s: %v", outputPath, err)
	}
	opts := official.Options{}
	if cfg.OriginalResultArtifact == nil {
		opts.OriginalResult = &official.OriginalResult{Bytes: raw}
	}
	r, err := val.Validate(doc, opts)
	if err != nil {
		a.printInputInvalid(outputPath, err, format, false)
		return cli.Exit(exitInput)
	}
	if !r.Valid {
		a.reportTo(out).printOfficialResult(out, r, format)
		a.msgs().Errorf("the configuration makes the attachment invalid; nothing written")
		return cli.Exit(exitInvalid)
	}
	data, err := canonjson.Pretty(doc)
	if err != nil {
		return cli.Failf("encoding the attachment: %v", err)
	}
	if err := a.writeOutput(out, []string{outputPath, configPath}, data, force); err != nil {
		return err
	}
	a.reportTo(out).printOfficialResult(out, r, format)
	return nil
}

// refuse reports an importer refusal (REFERENCE §8.1) on stderr, exit 1.
func (a *app) refuse(code, reason string) error {
	a.msgs().Errorf("%s: %s", code, reason)
	return cli.Exit(exitInvalid)
}

func (a *app) printOfficialResult(path string, r official.Result, format string) {
	if format == "text" {
		if r.Valid {
			fmt.Fprintf(a.stdout, "%s: VALID (importStatus %s, officialCertificationClaim false)\n", path, r.ImportStatus)
			return
		}
		fmt.Fprintf(a.stdout, "%s: INVALID %s: %s\n", path, r.Diagnostics[0], r.Detail)
		return
	}
	a.printJSON(path, r.Value(), false)
}
