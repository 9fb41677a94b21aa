package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/validator"
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
With --format text each result is one line for people, with the reason;
--format markdown prints a table for a CI step summary. With several files a
summary of the outcomes follows (on stderr for json).

Exit status: 0 when every file is valid, 1 when a file fails a check, 2 when
a file cannot be read or evaluated (the worst status wins).`

func (a *app) validateCommand() *cobra.Command {
	var format string
	var withFile, recursive bool
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
			val := validator.New()
			worst := a.runBatch(paths, format, withFile, func(path string) report {
				return a.validateReport(val, path)
			})
			if worst != exitValid {
				return &exitError{worst}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output format: json, text or markdown")
	cmd.Flags().BoolVar(&withFile, "with-file", false, `add the input path as a first "file" member of each JSON result`)
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "include the .json files of subdirectories of DIR arguments")
	return cmd
}

func checkFormat(format string) error {
	switch format {
	case "json", "text":
		return nil
	}
	return usagef("--format must be json or text, not %q", format)
}

// validateReport validates one file.
func (a *app) validateReport(val *validator.Validator, path string) report {
	_, doc, err := canonjson.ReadFile(path)
	if err != nil {
		return inputInvalidReport(path, err)
	}
	r, err := val.Document(doc)
	if err != nil {
		return inputInvalidReport(path, err)
	}
	return resultReport(path, r)
}

func inputReason(err error) string {
	var ie *validator.InputError
	if errors.As(err, &ie) {
		return ie.Reason
	}
	return err.Error()
}

// inputInvalidReport is the MCP_RES_INPUT_INVALID outcome (exit 2).
func inputInvalidReport(path string, err error) report {
	reason := inputReason(err)
	return report{
		path:    path,
		code:    exitInput,
		outcome: outcomeInputInvalid,
		obj: canonjson.NewObject(
			canonjson.Member{Key: "valid", Value: canonjson.NewBool(false)},
			canonjson.Member{Key: "diagnostics", Value: canonjson.NewArray(canonjson.NewString(validator.CodeInputInvalid))},
			canonjson.Member{Key: "message", Value: canonjson.NewString(validator.CodeInputInvalid + ": " + reason)},
		),
		text:   []string{fmt.Sprintf("%s: INPUT INVALID %s: %s", path, validator.CodeInputInvalid, reason)},
		diags:  []string{validator.CodeInputInvalid},
		detail: reason,
	}
}

// resultReport renders a validation result.
func resultReport(path string, r validator.Result) report {
	rep := report{path: path, obj: r.Value(), diags: r.Diagnostics, detail: r.Detail}
	if r.Valid {
		rep.code, rep.outcome = exitValid, outcomeValid
		rep.text = []string{path + ": VALID"}
		return rep
	}
	rep.code, rep.outcome = exitInvalid, outcomeInvalid
	rep.text = []string{fmt.Sprintf("%s: INVALID %s: %s", path, strings.Join(r.Diagnostics, ", "), r.Detail)}
	for _, e := range r.SchemaErrors {
		p := e.InstancePath
		if p == "" {
			p = "(root)"
		}
		rep.text = append(rep.text, fmt.Sprintf("  %s: %s (%s)", p, e.Message, e.Keyword))
	}
	return rep
}

func (a *app) printInputInvalid(path string, err error, format string, withFile bool) {
	a.render(inputInvalidReport(path, err), format, withFile, true)
}

func (a *app) printResult(path string, r validator.Result, format string, withFile bool) {
	a.render(resultReport(path, r), format, withFile, true)
}

func (a *app) printJSON(path string, obj *canonjson.Value, withFile bool) {
	if withFile {
		obj = canonjson.NewObject(append([]canonjson.Member{{Key: "file", Value: canonjson.NewString(path)}}, obj.Members...)...)
	}
	out, err := canonjson.Compact(obj)
	if err != nil {
		// Paths that are not valid UTF-8 cannot be printed as JSON strings.
		obj.Members[0].Value = canonjson.NewString(strings.ToValidUTF8(path, "\uFFFD"))
		out, _ = canonjson.Compact(obj)
	}
	a.stdout.Write(append(out, '\n'))
}
