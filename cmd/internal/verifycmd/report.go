package verifycmd

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// InputInvalidReport is the MCP_RES_INPUT_INVALID outcome (exit 2).
func InputInvalidReport(path string, err error) Report {
	reason := validator.InputReason(err)
	return Report{
		Path:    path,
		Code:    ExitInput,
		Outcome: OutcomeInputInvalid,
		Obj:     validator.InputInvalidValue(err),
		Text:    []string{fmt.Sprintf("%s: INPUT INVALID %s: %s", path, validator.CodeInputInvalid, reason)},
		Diags:   []string{validator.CodeInputInvalid},
		Detail:  reason,
	}
}

// PrintJSON prints one JSON result line, with a first "file" member when
// withFile.
func (a *Printer) PrintJSON(path string, obj *canonjson.Value, withFile bool) {
	if withFile {
		obj = canonjson.NewObject(append([]canonjson.Member{{Key: "file", Value: canonjson.NewString(path)}}, obj.Members...)...)
	}
	out, err := canonjson.AppendCompact(a.line[:0], obj)
	if err != nil {
		// A path (or an error message quoting one) that is not valid UTF-8
		// has no JSON string form: print it with U+FFFD replacements.
		out, _ = canonjson.AppendCompact(a.line[:0], canonjson.ValidUTF8(obj))
	}
	out = append(out, '\n')
	a.Stdout.Write(out)
	// The buffer serves the next line (Write keeps nothing of it),
	// unless an unusually long line made it large.
	a.line = nil
	if cap(out) <= maxKeptLine {
		a.line = out
	}
}

// maxKeptLine is the largest line buffer a Printer keeps for the next.
const maxKeptLine = 64 << 10
