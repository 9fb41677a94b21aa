package verifycmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

func inputReason(err error) string {
	var ie *validator.InputError
	if errors.As(err, &ie) {
		return ie.Reason
	}
	return err.Error()
}

// InputInvalidReport is the MCP_RES_INPUT_INVALID outcome (exit 2).
func InputInvalidReport(path string, err error) Report {
	reason := inputReason(err)
	return Report{
		Path:    path,
		Code:    ExitInput,
		Outcome: OutcomeInputInvalid,
		Obj: canonjson.NewObject(
			canonjson.Member{Key: "valid", Value: canonjson.NewBool(false)},
			canonjson.Member{Key: "diagnostics", Value: canonjson.NewArray(canonjson.NewString(validator.CodeInputInvalid))},
			canonjson.Member{Key: "message", Value: canonjson.NewString(validator.CodeInputInvalid + ": " + reason)},
		),
		Text:   []string{fmt.Sprintf("%s: INPUT INVALID %s: %s", path, validator.CodeInputInvalid, reason)},
		Diags:  []string{validator.CodeInputInvalid},
		Detail: reason,
	}
}

// PrintJSON prints one JSON result line, with a first "file" member when
// withFile.
func (a *Printer) PrintJSON(path string, obj *canonjson.Value, withFile bool) {
	if withFile {
		obj = canonjson.NewObject(append([]canonjson.Member{{Key: "file", Value: canonjson.NewString(path)}}, obj.Members...)...)
	}
	out, err := canonjson.Compact(obj)
	if err != nil {
		// A path (or an error message quoting one) that is not valid UTF-8
		// has no JSON string form: print it with U+FFFD replacements.
		out, _ = canonjson.Compact(ValidUTF8(obj))
	}
	a.Stdout.Write(append(out, '\n'))
}

// ValidUTF8 returns a copy of v whose strings and keys are valid UTF-8.
func ValidUTF8(v *canonjson.Value) *canonjson.Value {
	c := v.Clone()
	var fix func(*canonjson.Value)
	fix = func(x *canonjson.Value) {
		if x == nil {
			return
		}
		x.Str = strings.ToValidUTF8(x.Str, "\uFFFD")
		for _, it := range x.Items {
			fix(it)
		}
		for i := range x.Members {
			x.Members[i].Key = strings.ToValidUTF8(x.Members[i].Key, "\uFFFD")
			fix(x.Members[i].Value)
		}
	}
	fix(c)
	return c
}
