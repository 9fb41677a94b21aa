package main

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/inspect"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/spf13/cobra"
)

const inspectLong = `Describe what each FILE contains, without a policy and without judging
trust (package inspect): a conformance bundle's subject (name, version,
digest), profile, evidence class and digests; an attested bundle's claim
and, per envelope, the key fingerprint (the SHA-256 of the embedded key),
identity, signing time, trust-policy id and the statement's fields; a
transparency reference's log, entry and proof, and its checkpoint's origin,
tree size, root hash and every signature line (the log's, and each
cosignature's witness name, key hash and timestamp); a tlog-proof or a
signed checkpoint file the same way; a trust policy's signers (identity,
key, roles, window, subjects), revocations, witness rule and tlog policy;
a tlog-policy text's logs, witnesses, groups and quorum.

Nothing is verified: every value is the file's claim, shown as written
(attest verify, with a trust policy, is the judge). --format text (default)
prints one block per file, --format json one object per file and line:
{"file", "schemaVersion": "mcpres.inspect/v1", "kind", …}. A file that
cannot be read, or is none of these kinds, exits 2 (the others are still
described); so does a file with parts that cannot be read as its kind
says (a member missing or of another type, a payload that does not
decode): it is described as far as it goes, each such part a "problem".`

func (a *app) inspectCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "inspect FILE... [--format text|json]",
		Short: "Describe a bundle, attested bundle, reference, checkpoint or policy without judging trust",
		Long:  inspectLong,
		Example: `  mcpres inspect bundle.attested.json
  mcpres inspect --format json bundle.ref.json policy.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			worst := exitValid
			for i, path := range args {
				d, err := a.inspectFile(path, format, i == 0)
				switch {
				case err != nil:
					a.printInputInvalid(path, err, format, format == "json")
					worst = exitInput
				case len(d.Problems) > 0:
					a.msgs().Errorf("%s: %s: %d part(s) cannot be read as the kind says, the first: %s", path, d.Kind, len(d.Problems), d.Problems[0])
					worst = exitInput
				}
			}
			if worst != exitValid {
				return cli.Exit(worst)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// inspectFile describes one file (package inspect) and prints it.
func (a *app) inspectFile(path, format string, first bool) (*inspect.Description, error) {
	data, err := regularfile.ReadFile(path, canonjson.MaxInputBytes)
	if err != nil {
		return nil, err
	}
	d, err := inspect.Describe(data)
	if err != nil {
		return nil, err
	}
	if format == "json" {
		v, err := d.Value()
		if err != nil {
			return nil, err
		}
		a.printJSON(path, v, true)
		return d, nil
	}
	if !first {
		fmt.Fprintln(a.stdout)
	}
	for i, l := range d.Text() {
		if i == 0 {
			l = path + ": " + l
		}
		// One line each: a newline in a value the file claims (a name, an
		// identity, an origin) is escaped, so no value can write a line
		// that passes for inspect's own (internal/termsafe).
		fmt.Fprintln(a.stdout, termsafe.Line(l))
	}
	return d, nil
}
