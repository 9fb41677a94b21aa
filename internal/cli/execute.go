package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/template"

	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Execute runs root's command line (cobra's ExecuteC) with the rules every
// binary applies before a command body runs, so that no gate can pass by
// mistake:
//
//   - an explicitly given empty or blank value of a string flag
//     (--require-level "", --policy=, --key "$UNSET") is refused
//     ([RefuseEmptyValues]);
//   - help asked for together with anything else (attest verify --policy P
//     -h rogue.json) is refused instead of printing help and exiting 0:
//     nothing was run. Plain `PROG CMD --help` prints help as before;
//   - so is --version with anything else (`PROG --version attest verify
//     x.json` printed the version and exited 0); `PROG --version` alone
//     prints it.
//
// usage wraps the errors of these rules as the binary's usage error
// (exit 2). It returns the command cobra's ExecuteC found and its error,
// and ran, whether that command's body (Run or RunE) started: an error
// raised before it (a flag, an argument count, these rules) is a problem
// with the command line, which [PrintError] reports as a usage error; one
// raised by the body is a usage error only if the body says so.
func Execute(root *cobra.Command, usage func(error) error) (cmd *cobra.Command, ran bool, err error) {
	RefuseEmptyValues(root)
	if err := versionAlone(root, usage); err != nil {
		return root, false, err
	}
	markRan(root, &ran)
	show := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if helpWithOthers(c) != nil {
			return // reported by Execute as a usage error
		}
		show(c, args)
	})
	cmd, err = root.ExecuteC()
	if err == nil && cmd != nil {
		if herr := helpWithOthers(cmd); herr != nil {
			return cmd, ran, usage(herr)
		}
	}
	return cmd, ran, err
}

// versionAlone takes --version over from cobra on every command under
// root that has a Version (the binary's root; mcpres-tuf's under `mcpres
// policy tuf`): cobra prints the version for --version before it looks
// at anything else on the line. The flag is cobra's own (name, shorthand
// -v where free, help text), the text printed its version template.
func versionAlone(root *cobra.Command, usage func(error) error) error {
	var err error
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Version == "" || err != nil {
			return
		}
		var text bytes.Buffer
		t, perr := template.New("version").Parse(c.VersionTemplate())
		if perr == nil {
			perr = t.Execute(&text, c)
		}
		if perr != nil {
			err = fmt.Errorf("the version template of %s: %v", c.CommandPath(), perr)
			return
		}
		c.InitDefaultVersionFlag()
		c.Version = "" // cobra no longer answers --version itself
		next := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); !v {
				if next == nil {
					return cmd.Help()
				}
				return next(cmd, args)
			}
			n := 0
			cmd.Flags().Visit(func(*pflag.Flag) { n++ })
			if n > 1 || len(args) > 0 {
				return usage(fmt.Errorf("--version was given with other flags or arguments: nothing was run; ask for the version alone"))
			}
			_, werr := cmd.OutOrStdout().Write(text.Bytes())
			return werr
		}
	}
	walk(root)
	return err
}

// markRan makes every command under root set *ran when its body starts.
func markRan(root *cobra.Command, ran *bool) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if run := c.Run; run != nil {
			c.Run = func(c *cobra.Command, args []string) {
				*ran = true
				run(c, args)
			}
		}
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				*ran = true
				return run(c, args)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// helpWithOthers says why help was not shown for cmd: -h/--help was given
// together with an argument or another flag. Cobra answers such a line
// with the help text and exit 0 without running anything, which a
// pipeline reads as a passed gate.
func helpWithOthers(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("help")
	if f == nil || !f.Changed || f.Value.String() != "true" {
		return nil
	}
	var given []string
	cmd.Flags().Visit(func(o *pflag.Flag) {
		if o != f {
			given = append(given, "--"+o.Name)
		}
	})
	if len(given) == 0 && cmd.Flags().NArg() == 0 {
		return nil
	}
	if n := cmd.Flags().NArg(); n > 0 {
		given = append(given, fmt.Sprintf("%d %s", n, plural(n, "argument", "arguments")))
	}
	return fmt.Errorf("-h/--help was given with other flags or arguments (%s): nothing was run; ask for help alone",
		strings.Join(given, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// errEmptyValue is the reason an empty flag value is refused.
var errEmptyValue = errors.New("an empty value is refused: give a value, or leave the flag out")

// RefuseEmptyValues makes every string flag of every command under root
// (string, string array and string slice flags, persistent or not) refuse
// an explicitly given value that is empty or only white space: --flag "",
// --flag= and --flag "$UNSET" are flag errors, which every binary reports
// as usage errors (exit 2). No flag of mcpres, mcpres-tuf or
// mcpres-sigstore means anything by an empty value, while for a gate
// (--require-level), a trust source (--policy, --key, --identity,
// --policy-tuf) or an output an empty value would silently stand for "not
// given". Leaving a flag out keeps its default. [Execute] applies it; it
// may be called again on the same tree.
func RefuseEmptyValues(root *cobra.Command) {
	guard := func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "string", "stringArray", "stringSlice":
		default:
			return
		}
		if _, done := f.Value.(nonEmptyValue); !done {
			f.Value = nonEmptyValue{f.Value}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(guard)
		c.PersistentFlags().VisitAll(guard)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// nonEmptyValue is a flag value whose Set refuses an empty or blank
// value.
type nonEmptyValue struct{ pflag.Value }

// Unwrap returns the flag's own value (a pflag.SliceValue of a string
// array, for one).
func (v nonEmptyValue) Unwrap() pflag.Value { return v.Value }

func (v nonEmptyValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errEmptyValue
	}
	return v.Value.Set(s)
}

// PrintError reports err on w the one way every binary does:
//
//	PROG: error: CAUSE
//	Run 'PROG CMD --help' for usage.
//
// the second line only for a usage error (usage), so that the cause is
// never buried under the usage text. prog is the message prefix
// ("mcpres", "mcpres-tuf", "mcpres-sigstore").
func PrintError(w io.Writer, prog string, cmd *cobra.Command, err error, usage bool) {
	(&Printer{Prog: prog, Stderr: w}).Errorf("%s", DescribeError(err))
	if usage && cmd != nil {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
}

// DescribeError is err's message, with a file system error of a read that
// err wraps (%w) worded as the readers of inputs word theirs
// (regularfile.AsReadError): "cannot read X: no such file" instead of
// Go's "open X: no such file or directory".
func DescribeError(err error) string {
	msg := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if _, ok := e.(*regularfile.ReadError); ok {
			break
		}
		if pe, ok := e.(*fs.PathError); ok {
			if r := regularfile.AsReadError(pe); r != error(pe) {
				msg = strings.Replace(msg, pe.Error(), r.Error(), 1)
			}
			break
		}
	}
	return msg
}
