package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/migrate"
	"github.com/spf13/cobra"
)

const migrateLong = `Convert a frozen MCP-RES v0.1.0 conformance bundle into an
mcp-res.migration-result/0.2.0 report (MCP-RES §11). The report is not a
v0.2 conformance result: it preserves the original bundle unmodified, its
evidence digest and evidence class, records the SHA-256 of the input file
and of this mcpres executable (as migration.tool.sha256), lists every
producer-written v0.1 boolean as LEGACY_SELF_ASSERTED, and reports status
INCOMPLETE with the v0.2 requirements only a fresh v0.2 run can satisfy.
Nothing is fabricated: no observations, reason-bound negative evidence,
signatures, trial repetition, scenario fingerprint or execution digest.

The input must pass the v0.1 validator first. A migration result given as
input is written back unchanged (so migrating twice gives identical bytes).
The output is created exclusively, in the two-space JSON layout with a
final newline; on success the command prints one JSON line:

  {"dryRun":false,"output":<absolute path>,"outputSha256":<hex>,"report":{...}}

With --dry-run nothing is written and it prints
{"dryRun":true,"wouldWrite":<absolute path or null>,"outputSha256":...,"report":...};
the output checks below still run when --output is given.

Refusals, in the order they are checked (exit status 1, the code first on
standard error, nothing written, the input never modified):

  MCP_RES_MIGRATION_INPUT_OVERWRITE_FORBIDDEN   --output resolves to --input
  MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE    the output's parent directory,
                                                after resolving symbolic links,
                                                is not inside the working
                                                directory (or does not exist)
  MCP_RES_MIGRATION_OUTPUT_CONFLICT             the output exists (even as a
                                                dangling symbolic link), or
                                                appeared before the write
  MCP_RES_MIGRATION_INPUT_JSON_INVALID          the input is unreadable or
                                                breaks a strict-reader rule
  MCP_RES_MIGRATION_ALREADY_V02                 the input is a v0.2.0 bundle
  MCP_RES_MIGRATION_SOURCE_VERSION_UNSUPPORTED  the input is no v0.1.0 bundle
  MCP_RES_MIGRATION_SOURCE_INVALID:<codes>      the input fails v0.1
                                                validation, e.g.
                                                ...SOURCE_INVALID:MCP_RES_SECRET_DETECTED

Exit status: 0 migrated (or dry run), 1 refused, 2 usage error or another
failure (the executable or the output cannot be read or written).`

func (a *app) migrateCommand() *cobra.Command {
	var from, to, input, output string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate --from 0.1.0 --to 0.2.0 --input FILE (--output FILE | --dry-run)",
		Short: "Convert a v0.1.0 bundle into a v0.2.0 migration report",
		Long:  migrateLong,
		Example: `  mcpres migrate --from 0.1.0 --to 0.2.0 --input old.json --output old.migration.json
  mcpres migrate --from 0.1.0 --to 0.2.0 --input old.json --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// REFERENCE §7.1 step 1: every given value is non-empty and does
			// not start with "--" (so "--input --dry-run" is an error, not
			// a file named "--dry-run").
			for _, name := range []string{"from", "to", "input", "output"} {
				if f := cmd.Flags().Lookup(name); f.Changed {
					if v := f.Value.String(); v == "" || strings.HasPrefix(v, "--") {
						return cli.Usagef("--%s needs a value that is not empty and does not start with --", name)
					}
				}
			}
			if err := fileOnly("--output", output); err != nil {
				return err
			}
			wd, err := os.Getwd()
			if err != nil {
				return cli.Failf("cannot determine the working directory: %v", err)
			}
			o, err := migrate.Run(migrate.Options{
				From: from, To: to, Input: input, Output: output, DryRun: dryRun,
				WorkDir: wd, ToolSHA256: executableSHA256,
			})
			var ue *migrate.UsageError
			var re *migrate.RefusalError
			switch {
			case errors.As(err, &ue):
				return cli.Usagef("%s", migrateUsage(ue))
			case errors.As(err, &re):
				a.msgs().Errorf("%s", re.Error())
				return cli.Exit(exitInvalid)
			case err != nil:
				return cli.Failf("%v", err)
			}
			printed := o.Value()
			line, err := canonjson.Compact(printed)
			if err != nil {
				// Only a path that is not valid UTF-8 has no JSON form (the
				// file is written by now): print it with U+FFFD, as validate
				// does.
				for _, key := range []string{"output", "wouldWrite"} {
					if p := printed.Get(key); p.Is(canonjson.String) {
						printed.Set(key, canonjson.NewString(strings.ToValidUTF8(p.Str, "\uFFFD")))
					}
				}
				if line, err = canonjson.Compact(printed); err != nil {
					return cli.Failf("printing the outcome: %v", err)
				}
			}
			a.stdout.Write(append(line, '\n'))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "version of the input: 0.1.0 (required)")
	f.StringVar(&to, "to", "", "version to migrate to: 0.2.0 (required)")
	f.StringVar(&input, "input", "", "the v0.1.0 bundle to migrate (required)")
	f.StringVar(&output, "output", "", "where to write the migration result; must not exist and must be inside the working directory (required unless --dry-run)")
	f.BoolVar(&dryRun, "dry-run", false, "build the result and print what would be written; write nothing")
	return cmd
}

// executableSHA256 is the SHA-256 of the running mcpres executable, the
// migration tool digest (REFERENCE §7.2, §10 row 30).
func executableSHA256() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", exe, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// migrateUsage words a usage error of migrate.Run with the flags of
// mcpres migrate (REFERENCE §7.1 steps 1–3): "--from 0.1.0 is required",
// "--to must be 0.2.0, not "1.0.0"", "--input is required", "--output is
// required unless --dry-run is given".
func migrateUsage(ue *migrate.UsageError) string {
	flag, ok := map[string]string{"From": "--from", "To": "--to", "Input": "--input", "Output": "--output"}[ue.Option]
	switch {
	case !ok:
		return ue.Reason
	case ue.Option == "Output":
		return "--output is required unless --dry-run is given"
	case ue.Got != "":
		return fmt.Sprintf("%s must be %s, not %q", flag, ue.Want, ue.Got)
	case ue.Want != "":
		return flag + " " + ue.Want + " is required"
	}
	return flag + " is required"
}
