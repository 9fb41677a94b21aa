// Package migrate converts a frozen MCP-RES v0.1.0 conformance bundle into
// an mcp-res.migration-result/0.2.0 report (MCP-RES §11, MCPRES-MIG-001),
// exactly as REFERENCE §7 specifies the upstream mcp-res-migrate tool.
//
// # What a migration does and does not do
//
// A migration result is a report, not a v0.2 conformance result. It keeps
// the original bundle unmodified (members in input order), the original
// evidence digest (statement.evidenceSha256) and evidence class, and the
// SHA-256 of the raw input file; it records the digest of the tool that
// ran; it lists every producer-written v0.1 boolean as a
// LEGACY_SELF_ASSERTED assertion; and it reports status INCOMPLETE with the
// v0.2 requirements that only a fresh v0.2 run can satisfy. It never
// fabricates observations, reason-bound negative evidence, signatures,
// trial repetition, a scenario fingerprint or an execution digest, and it
// never rewrites a v0.1 digest.
//
// # Order of operations (REFERENCE §7.1)
//
// Run checks, in this order: the arguments (a *UsageError); an output equal
// to the input after lexical resolution (MCP_RES_MIGRATION_INPUT_OVERWRITE_FORBIDDEN);
// an output whose parent directory, after resolving symbolic links, is not
// inside the working directory (MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE);
// an existing output, even a dangling symbolic link
// (MCP_RES_MIGRATION_OUTPUT_CONFLICT); an input the strict reader rejects
// (MCP_RES_MIGRATION_INPUT_JSON_INVALID). An input that already is a
// migration result is returned unchanged (idempotency). A v0.2.0 bundle is
// refused (MCP_RES_MIGRATION_ALREADY_V02), as is any other non-v0.1 input
// (MCP_RES_MIGRATION_SOURCE_VERSION_UNSUPPORTED) and a v0.1 bundle that
// fails the v0.1 validator (MCP_RES_MIGRATION_SOURCE_INVALID:<codes>). The
// output checks run in a dry run too when an output is named. Only then is
// the result built, serialized in the JSON.stringify(v, null, 2) layout
// and, unless it is a dry run, written with an exclusive create
// (MCP_RES_MIGRATION_OUTPUT_CONFLICT if the output appeared meanwhile).
//
// Every refusal is a *RefusalError and leaves the file system untouched.
package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/v01"
)

// Versions a migration converts between, and the tool identity it records
// (REFERENCE §7: the upstream tool's name and version, kept for
// compatibility of the result schema's constants).
const (
	From        = "0.1.0"
	To          = "0.2.0"
	ToolName    = "mcp-res-migrate"
	ToolVersion = "0.2.0"
)

// Refusal codes of the migrate command (REFERENCE §5.8, §7.1).
const (
	CodeAlreadyV02               = "MCP_RES_MIGRATION_ALREADY_V02"
	CodeSourceVersionUnsupported = "MCP_RES_MIGRATION_SOURCE_VERSION_UNSUPPORTED"
	CodeSourceInvalid            = "MCP_RES_MIGRATION_SOURCE_INVALID"
	CodeInputOverwriteForbidden  = "MCP_RES_MIGRATION_INPUT_OVERWRITE_FORBIDDEN"
	CodeOutputOutsideWorkspace   = "MCP_RES_MIGRATION_OUTPUT_OUTSIDE_WORKSPACE"
	CodeOutputConflict           = "MCP_RES_MIGRATION_OUTPUT_CONFLICT"
	CodeInputJSONInvalid         = "MCP_RES_MIGRATION_INPUT_JSON_INVALID"
)

// A RefusalError is a migration the command refuses. Code is one of the
// Code… constants; for CodeSourceInvalid, Diagnostics holds the v0.1
// validator's codes (MCP_RES_INPUT_INVALID when it could not evaluate the
// input). Detail explains the refusal for people.
type RefusalError struct {
	Code        string
	Diagnostics []string
	Detail      string
}

// Message is the refusal as upstream prints it: the code, followed for
// CodeSourceInvalid by ":" and the v0.1 codes joined by ",".
func (e *RefusalError) Message() string {
	if len(e.Diagnostics) == 0 {
		return e.Code
	}
	return e.Code + ":" + strings.Join(e.Diagnostics, ",")
}

func (e *RefusalError) Error() string {
	if e.Detail == "" {
		return e.Message()
	}
	return e.Message() + ": " + e.Detail
}

func refuse(code, format string, args ...any) *RefusalError {
	return &RefusalError{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// A UsageError is a problem with the options themselves (REFERENCE §7.1
// steps 1–3); the command reports it as a usage error, naming its own flag
// for Option.
type UsageError struct {
	// Option is the field of [Options] at fault: "From", "To", "Input",
	// "Output" or "WorkDir".
	Option string
	// Want is the value Option must have ("0.1.0" for From), when there is
	// one; Got is the wrong value given ("" when none was).
	Want, Got string
	// Reason says what is wrong, in this package's terms.
	Reason string
}

func (e *UsageError) Error() string { return e.Reason }

// optionError is the UsageError of option, which must be want (when not
// ""), given got.
func optionError(option, want, got string) *UsageError {
	e := &UsageError{Option: option, Want: want, Got: got}
	switch {
	case got != "":
		e.Reason = fmt.Sprintf("the %s version must be %s, not %q", strings.ToLower(option), want, got)
	case want != "":
		e.Reason = fmt.Sprintf("no %s version given (it must be %s)", strings.ToLower(option), want)
	}
	return e
}

// Options describe one migration.
type Options struct {
	From, To string // must be "0.1.0" and "0.2.0"
	Input    string // the v0.1 bundle (or a migration result); required
	Output   string // where to write; required unless DryRun
	DryRun   bool   // build and report, write nothing

	// WorkDir is the workspace: relative Input and Output are resolved
	// against it, and the output's parent directory must be inside it
	// after resolving symbolic links. The CLI passes its working directory.
	WorkDir string

	// ToolSHA256 returns the lowercase hex SHA-256 of the running tool,
	// recorded as migration.tool.sha256. It is called only when a new
	// result is built. The CLI hashes its own executable.
	ToolSHA256 func() (string, error)

	// Validator validates the input with the v0.1 rules; nil means a new
	// one.
	Validator *validator.Validator
}

// An Outcome is a completed migration (or dry run).
type Outcome struct {
	DryRun bool
	// Output is the absolute output path (lexically resolved against
	// WorkDir); "" in a dry run without an output.
	Output string
	// Result is the migration result as written: the new report, or the
	// input itself when it already was a migration result. Its members are
	// in output order.
	Result *canonjson.Value
	// Bytes is the serialized Result, in the JSON.stringify(v, null, 2)
	// layout with a final LF; OutputSHA256 is its SHA-256.
	Bytes        []byte
	OutputSHA256 string
	// Unchanged reports that the input already was a migration result.
	Unchanged bool
}

// Value renders the object the command prints (REFERENCE §7.1 steps 13–14):
// {"dryRun":true,"wouldWrite":<path or null>,"outputSha256","report"} or
// {"dryRun":false,"output","outputSha256","report"}. "report" is the
// result's report member, omitted when the result has none.
func (o *Outcome) Value() *canonjson.Value {
	out := canonjson.NewObject(canonjson.Member{Key: "dryRun", Value: canonjson.NewBool(o.DryRun)})
	switch {
	case !o.DryRun:
		out.Set("output", canonjson.NewString(o.Output))
	case o.Output == "":
		out.Set("wouldWrite", canonjson.NewNull())
	default:
		out.Set("wouldWrite", canonjson.NewString(o.Output))
	}
	out.Set("outputSha256", canonjson.NewString(o.OutputSHA256))
	if r := o.Result.Get("report"); r != nil {
		out.Set("report", r)
	}
	return out
}

// Run performs one migration in the order of REFERENCE §7.1 (see the
// package documentation). It returns a *UsageError for bad options, a
// *RefusalError for every refusal, or another error when the tool digest
// cannot be computed or the output cannot be written. On any error nothing
// has been written.
func Run(opts Options) (*Outcome, error) {
	switch {
	case opts.From != From:
		return nil, optionError("From", From, opts.From)
	case opts.To != To:
		return nil, optionError("To", To, opts.To)
	case opts.Input == "":
		return nil, &UsageError{Option: "Input", Reason: "no input bundle given"}
	case opts.Output == "" && !opts.DryRun:
		return nil, &UsageError{Option: "Output", Reason: "no output file given, and not a dry run"}
	case opts.WorkDir == "" || !filepath.IsAbs(opts.WorkDir):
		return nil, &UsageError{Option: "WorkDir", Reason: "the working directory must be an absolute path"}
	}
	input := resolve(opts.WorkDir, opts.Input)
	var output string
	if opts.Output != "" {
		output = resolve(opts.WorkDir, opts.Output)
		if err := checkOutput(opts.WorkDir, input, output); err != nil {
			return nil, err
		}
	}
	raw, doc, err := canonjson.ReadFile(input)
	if err != nil {
		return nil, refuse(CodeInputJSONInvalid, "%s: %v", input, err)
	}
	result, unchanged, err := convert(raw, doc, opts)
	if err != nil {
		return nil, err
	}
	result = JSOrder(result)
	data, err := canonjson.Pretty(result)
	if err != nil {
		return nil, fmt.Errorf("serializing the migration result: %w", err)
	}
	o := &Outcome{DryRun: opts.DryRun, Output: output, Result: result, Bytes: data,
		OutputSHA256: canonjson.BytesDigest(data), Unchanged: unchanged}
	if opts.DryRun {
		return o, nil
	}
	if err := atomicfile.WriteFileExclusive(output, data, 0o644); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, refuse(CodeOutputConflict, "%s appeared while migrating", output)
		}
		return nil, fmt.Errorf("writing %s: %w", output, err)
	}
	return o, nil
}

// resolve is Node's path.resolve(workDir, p): lexical, no symbolic links.
func resolve(workDir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(workDir, p)
}

// checkOutput is REFERENCE §7.1 steps 4–6.
func checkOutput(workDir, input, output string) error {
	if output == input {
		return refuse(CodeInputOverwriteForbidden, "the output %s is the input", output)
	}
	realWork, err := filepath.EvalSymlinks(workDir)
	if err != nil {
		return fmt.Errorf("resolving the working directory: %w", err)
	}
	realParent, err := filepath.EvalSymlinks(filepath.Dir(output))
	if err != nil {
		return refuse(CodeOutputOutsideWorkspace, "the output directory %s cannot be resolved: %v", filepath.Dir(output), unwrapPathError(err))
	}
	if !inside(realWork, realParent) {
		return refuse(CodeOutputOutsideWorkspace, "the output directory %s resolves to %s, outside the working directory %s", filepath.Dir(output), realParent, realWork)
	}
	if st, err := os.Stat(realParent); err != nil || !st.IsDir() {
		return refuse(CodeOutputOutsideWorkspace, "the output's parent %s is not a directory", filepath.Dir(output))
	}
	if _, err := os.Lstat(output); err == nil {
		return refuse(CodeOutputConflict, "%s already exists", output)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking the output: %w", err)
	}
	return nil
}

// inside reports whether dir is root or below it, as upstream decides it:
// the relative path from root is not absolute, not "..", and does not
// start with "../".
func inside(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// convert is REFERENCE §7.1 steps 8–12 up to serialization: it returns the
// result and whether the input was returned unchanged.
func convert(raw []byte, doc *canonjson.Value, opts Options) (*canonjson.Value, bool, error) {
	sv := doc.Get("schemaVersion")
	switch {
	case isString(sv, bundle.SchemaVersionMigrationResult):
		return doc, true, nil
	case isString(sv, bundle.SchemaVersionBundle):
		return nil, false, refuse(CodeAlreadyV02, "the input is already a v0.2.0 conformance bundle")
	case !isString(sv, bundle.SchemaVersionBundleV01):
		what := "not a JSON object"
		if doc.Is(canonjson.Object) {
			what = "not a v0.1.0 conformance bundle"
			if sv.Is(canonjson.String) {
				what += fmt.Sprintf(" (schemaVersion %q)", sv.Str)
			}
		}
		return nil, false, refuse(CodeSourceVersionUnsupported, "the input is %s", what)
	}
	r, err := v01.New(opts.Validator).Validate(doc)
	if err != nil {
		return nil, false, &RefusalError{Code: CodeSourceInvalid, Diagnostics: []string{validator.CodeInputInvalid}, Detail: err.Error()}
	}
	if !r.Valid {
		return nil, false, &RefusalError{Code: CodeSourceInvalid, Diagnostics: r.Diagnostics, Detail: r.Detail}
	}
	if opts.ToolSHA256 == nil {
		return nil, false, errors.New("no tool digest: Options.ToolSHA256 is nil")
	}
	tool, err := opts.ToolSHA256()
	if err != nil {
		return nil, false, fmt.Errorf("computing the migration tool digest: %w", err)
	}
	if !isSHA256(tool) {
		return nil, false, fmt.Errorf("the migration tool digest %q is not a lowercase hex SHA-256", tool)
	}
	return Build(raw, doc, tool), false, nil
}

func isString(v *canonjson.Value, s string) bool { return v.Is(canonjson.String) && v.Str == s }

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
