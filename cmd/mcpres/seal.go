package main

import (
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

const sealLong = `Seal a draft conformance bundle: compute every digest MCP-RES v0.2.0 binds
(subject identity, observation digests and their manifest entries, scenario
fingerprint, supporting-artifact manifest digest, evidence digest, execution
instance digest, statement mirrors, integrity manifest and bundle digest),
then validate the result.

The sealed bundle is written to OUTPUT atomically, in the two-space layout,
with the draft's member order. An existing OUTPUT is never replaced unless
--force is given, and the draft itself is never overwritten. If the sealed
bundle fails validation nothing is written and the diagnostic is printed
(exit 1), unless --allow-invalid is given (for building negative test
vectors).

--artifact FILE or --image IMAGE, --name, --version and --replace first set
the draft's subject from what ships, as mcpres subject set does (in memory:
the draft file is unchanged); a draft about another subject is refused
(exit 1) unless --replace.`

func (a *app) sealCommand() *cobra.Command {
	var out string
	var force, allowInvalid bool
	var subject subjectFlags
	cmd := &cobra.Command{
		Use:   "seal DRAFT -o BUNDLE [--artifact FILE | --image IMAGE] [--name N] [--version V]",
		Short: "Compute every digest of a draft bundle and write the sealed bundle",
		Long:  sealLong,
		Example: `  mcpres seal testdata/drafts/example.draft.json -o example.json
  mcpres seal evidence/draft.json --image ghcr.io/example/mcp-server:1.2.3 --version 1.2.3 -o dist/bundle.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return cli.Usagef("-o/--output is required")
			}
			_, draft, err := canonjson.ReadFile(args[0])
			if err != nil {
				a.printInputInvalid(args[0], err, "text", false)
				return cli.Exit(exitInput)
			}
			if subject.given() {
				if _, err := a.setSubject(&subject, args[0], draft, &app{stdout: a.stderr, stderr: a.stderr, quiet: a.quiet}); err != nil {
					return err
				}
			}
			if err := bundle.Seal(draft); err != nil {
				return cli.Failf("sealing %s: %v", args[0], err)
			}
			r, err := validator.New().Bundle(draft)
			if err != nil {
				a.printInputInvalid(args[0], err, "text", false)
				return cli.Exit(exitInput)
			}
			if !r.Valid && !allowInvalid {
				a.reportTo(out).printResult(out, r, "text", false)
				a.msgs().Errorf("the sealed bundle is invalid; nothing written (use --allow-invalid to write it anyway)")
				return cli.Exit(exitInvalid)
			}
			data, err := canonjson.Pretty(draft)
			if err != nil {
				return cli.Failf("encoding the sealed bundle: %v", err)
			}
			if err := a.writeOutput(out, args, data, force); err != nil {
				return err
			}
			a.wrote(out, "sealed bundle, bundleDigest %s", draft.Path("integrity", "bundleDigest").Str)
			a.reportTo(out).printResult(out, r, "text", false)
			if !r.Valid {
				return cli.Exit(exitInvalid)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "where to write the sealed bundle (required; - for standard output)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing output file")
	subject.register(cmd)
	cmd.Flags().BoolVar(&allowInvalid, "allow-invalid", false, "write the sealed bundle even if it fails validation (exit status stays 1)")
	return cmd
}
