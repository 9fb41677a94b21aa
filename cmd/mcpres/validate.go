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

Each FILE gives one result. With --format json (the default) each result is
one compact JSON object on its own line on stdout, exactly as the reference
implementation prints it:

  {"valid":true,"diagnostics":[],"schemaErrors":[]}

An unreadable file, or one that breaks a rule of the strict JSON reader
(size, depth, duplicate keys, invalid UTF-8, floats, unsafe integers...),
gives {"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":...}.
With --format text each result is one line for people, with the reason.

Exit status: 0 when every file is valid, 1 when a file fails a check, 2 when
a file cannot be read or evaluated (the worst status wins).`

func (a *app) validateCommand() *cobra.Command {
	var format string
	var withFile bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Validate MCP-RES documents",
		Long:  validateLong,
		Example: `  mcpres validate testdata/bundles/example.json
  mcpres validate --format text bundles/*.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			val := validator.New()
			worst := exitValid
			for _, path := range args {
				code := a.validateFile(val, path, format, withFile)
				worst = max(worst, code)
			}
			if worst != exitValid {
				return &exitError{worst}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output format: json or text")
	cmd.Flags().BoolVar(&withFile, "with-file", false, `add the input path as a first "file" member of each JSON result`)
	return cmd
}

func checkFormat(format string) error {
	switch format {
	case "json", "text":
		return nil
	}
	return usagef("--format must be json or text, not %q", format)
}

// validateFile validates one file, prints its result and returns its exit code.
func (a *app) validateFile(val *validator.Validator, path, format string, withFile bool) int {
	_, doc, err := canonjson.ReadFile(path)
	if err != nil {
		a.printInputInvalid(path, err, format, withFile)
		return exitInput
	}
	r, err := val.Document(doc)
	if err != nil {
		a.printInputInvalid(path, err, format, withFile)
		return exitInput
	}
	a.printResult(path, r, format, withFile)
	if r.Valid {
		return exitValid
	}
	return exitInvalid
}

func inputReason(err error) string {
	var ie *validator.InputError
	if errors.As(err, &ie) {
		return ie.Reason
	}
	return err.Error()
}

func (a *app) printInputInvalid(path string, err error, format string, withFile bool) {
	reason := inputReason(err)
	if format == "text" {
		fmt.Fprintf(a.stdout, "%s: INPUT INVALID %s: %s\n", path, validator.CodeInputInvalid, reason)
		return
	}
	obj := canonjson.NewObject(
		canonjson.Member{Key: "valid", Value: canonjson.NewBool(false)},
		canonjson.Member{Key: "diagnostics", Value: canonjson.NewArray(canonjson.NewString(validator.CodeInputInvalid))},
		canonjson.Member{Key: "message", Value: canonjson.NewString(validator.CodeInputInvalid + ": " + reason)},
	)
	a.printJSON(path, obj, withFile)
}

func (a *app) printResult(path string, r validator.Result, format string, withFile bool) {
	if format == "text" {
		if r.Valid {
			fmt.Fprintf(a.stdout, "%s: VALID\n", path)
			return
		}
		fmt.Fprintf(a.stdout, "%s: INVALID %s: %s\n", path, strings.Join(r.Diagnostics, ", "), r.Detail)
		for _, e := range r.SchemaErrors {
			p := e.InstancePath
			if p == "" {
				p = "(root)"
			}
			fmt.Fprintf(a.stdout, "  %s: %s (%s)\n", p, e.Message, e.Keyword)
		}
		return
	}
	a.printJSON(path, r.Value(), withFile)
}

func (a *app) printJSON(path string, obj *canonjson.Value, withFile bool) {
	if withFile {
		obj.Members = append([]canonjson.Member{{Key: "file", Value: canonjson.NewString(path)}}, obj.Members...)
	}
	out, err := canonjson.Compact(obj)
	if err != nil {
		// Paths that are not valid UTF-8 cannot be printed as JSON strings.
		obj.Members[0].Value = canonjson.NewString(strings.ToValidUTF8(path, "\uFFFD"))
		out, _ = canonjson.Compact(obj)
	}
	a.stdout.Write(append(out, '\n'))
}
