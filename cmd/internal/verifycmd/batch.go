// Package verifycmd is the command code that mcpres and mcpres-sigstore
// share for `attest verify` (DESIGN §2: the companions share the command
// code of mcpres for the verbs they have in common): its flags, policy
// loading (once per batch), gates, and the batch runner and renderers
// (json, text, markdown) that mcpres validate uses too. What differs between
// the binaries — the policy loaders (mcpres-sigstore registers the Rekor
// verifier), fetching a policy through TUF, the message prefix and the
// error types mapped to exit codes — is a [Config].
package verifycmd

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/mcpres/mcpres/internal/canonjson"
	"golang.org/x/term"
)

// Exit codes (DESIGN §5).
const (
	ExitValid   = 0 // valid
	ExitInvalid = 1 // a failing diagnostic or gate
	ExitInput   = 2 // unreadable or invalid input, or a usage error
)

// Outcomes of one input, for summaries.
const (
	OutcomeValid        = "VALID"
	OutcomeInvalid      = "INVALID"
	OutcomeInputInvalid = "INPUT_INVALID"
	OutcomeGateFailed   = "GATE_FAILED"
)

// A Report is the outcome for one input. Evaluations build reports
// concurrently; they are rendered afterwards, strictly in input order.
type Report struct {
	Path    string
	Code    int              // exit code for this input
	Outcome string           // one of the Outcome… constants
	Obj     *canonjson.Value // the JSON result object (without "file")
	Text    []string         // lines for --format text
	Level   string           // derived authenticity level, when known
	Class   string           // evidence class, when known
	Diags   []string
	Detail  string
	Hints   []string // lines for stderr whatever the format (DocumentHints)
}

// A Printer renders reports on Stdout and Stderr; Prog prefixes its
// messages on Stderr ("mcpres", "mcpres-sigstore").
type Printer struct {
	Stdout, Stderr io.Writer
	Prog           string
}

// CheckFormat checks the --format of the batch commands; the error is the
// reason, for the caller to wrap as a usage error.
func CheckFormat(format string) error {
	switch format {
	case "json", "text", "markdown":
		return nil
	}
	return fmt.Errorf("--format must be json, text or markdown, not %q", format)
}

// ExpandInputs turns FILE and DIR arguments into the list of files to
// evaluate. A directory contributes its *.json entries (any non-directory
// entry, so that a symbolic link is reported rather than silently skipped),
// with --recursive those of its subdirectories too, in lexical order. A
// path that does not exist is kept: its result reports the error.
// The error names the directory; callers report it as a command error
// (exit 2).
func ExpandInputs(args []string, recursive bool) ([]string, error) {
	var out []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil || !st.IsDir() {
			out = append(out, arg)
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != arg && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), ".json") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %v", arg, err)
		}
		if len(found) == 0 {
			how := ""
			if !recursive {
				how = " (use --recursive to include subdirectories)"
			}
			return nil, fmt.Errorf("%s holds no .json files%s", arg, how)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// Run evaluates every path on all cores, renders the reports in input
// order and returns the worst exit code. One unreadable file yields its own
// INPUT_INVALID Report and does not stop the others.
func (a *Printer) Run(paths []string, format string, withFile bool, eval func(path string) Report) int {
	n := len(paths)
	reports := make([]Report, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	jobs := make(chan int)
	go func() {
		for i := range n {
			jobs <- i
		}
		close(jobs)
	}()
	for range min(runtime.GOMAXPROCS(0), n) {
		go func() {
			for i := range jobs {
				reports[i] = eval(paths[i])
				close(done[i])
			}
		}()
	}
	progress := n > 1 && a.stderrIsTerminal()
	worst := ExitValid
	for i := range n {
		<-done[i]
		if progress {
			fmt.Fprintf(a.Stderr, "\r%s: %d/%d", a.Prog, i+1, n)
		}
		a.Render(reports[i], format, withFile, i == 0)
		worst = max(worst, reports[i].Code)
	}
	if progress {
		fmt.Fprint(a.Stderr, "\r\033[K")
	}
	if n > 1 {
		a.summary(reports, format)
	}
	return worst
}

func (a *Printer) stderrIsTerminal() bool {
	f, ok := a.Stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Render prints one Report in the chosen format; first says whether it is
// the first of its batch (markdown prints the table head before it).
func (a *Printer) Render(r Report, format string, withFile, first bool) {
	for _, h := range r.Hints {
		a.Hint(h)
	}
	switch format {
	case "json":
		a.PrintJSON(r.Path, r.Obj, withFile)
	case "text":
		for _, l := range r.Text {
			fmt.Fprintln(a.Stdout, l)
		}
	case "markdown":
		if first {
			fmt.Fprintln(a.Stdout, "| file | result | authenticity | evidence class | diagnostics |")
			fmt.Fprintln(a.Stdout, "|---|---|---|---|---|")
		}
		diag := strings.Join(r.Diags, ", ")
		if r.Detail != "" {
			diag = strings.TrimPrefix(diag+": "+r.Detail, ": ")
		}
		fmt.Fprintf(a.Stdout, "| %s | %s | %s | %s | %s |\n", mdCell(r.Path), r.Outcome, mdCell(dash(r.Level)), mdCell(dash(r.Class)), mdCell(dash(diag)))
	}
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// mdCell escapes a table cell: pipes, and line breaks as spaces.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", " ")), " ")
}

// summary prints counts per outcome and per level: on stdout after text or
// markdown output, on stderr after JSON (stdout carries only the objects).
func (a *Printer) summary(reports []Report, format string) {
	outcomes := map[string]int{}
	levels := map[string]int{}
	for _, r := range reports {
		outcomes[r.Outcome]++
		if r.Level != "" && r.Outcome == OutcomeValid {
			levels[r.Level]++
		}
	}
	var parts []string
	for _, o := range []string{OutcomeValid, OutcomeInvalid, OutcomeGateFailed, OutcomeInputInvalid} {
		if outcomes[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", outcomes[o], strings.ToLower(strings.ReplaceAll(o, "_", " "))))
		}
	}
	line := fmt.Sprintf("%d files: %s", len(reports), strings.Join(parts, ", "))
	if len(levels) > 0 {
		var lv []string
		for _, l := range []string{"UNSIGNED_INTEGRITY_ONLY", "SIGNED", "SIGNED_WITH_IDENTITY", "WITNESSED", "TRANSPARENCY_RECORDED"} {
			if levels[l] > 0 {
				lv = append(lv, fmt.Sprintf("%s %d", l, levels[l]))
			}
		}
		line += "; valid by level: " + strings.Join(lv, ", ")
	}
	switch format {
	case "json":
		fmt.Fprintln(a.Stderr, a.Prog+": "+line)
	case "markdown":
		fmt.Fprintln(a.Stdout)
		fmt.Fprintln(a.Stdout, "**"+line+"**")
	default:
		fmt.Fprintln(a.Stdout, line)
	}
}
