package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/mcpres/mcpres/internal/canonjson"
	"golang.org/x/term"
)

// Outcomes of one input, for summaries.
const (
	outcomeValid        = "VALID"
	outcomeInvalid      = "INVALID"
	outcomeInputInvalid = "INPUT_INVALID"
	outcomeGateFailed   = "GATE_FAILED"
)

// A report is the outcome for one input. Evaluations build reports
// concurrently; they are rendered afterwards, strictly in input order.
type report struct {
	path    string
	code    int              // exit code for this input
	outcome string           // one of the outcome… constants
	obj     *canonjson.Value // the JSON result object (without "file")
	text    []string         // lines for --format text
	level   string           // derived authenticity level, when known
	class   string           // evidence class, when known
	diags   []string
	detail  string
	hints   []string // lines for stderr whatever the format (documentHints)
}

// formats accepted by the batch commands.
func checkBatchFormat(format string) error {
	switch format {
	case "json", "text", "markdown":
		return nil
	}
	return usagef("--format must be json, text or markdown, not %q", format)
}

// expandInputs turns FILE and DIR arguments into the list of files to
// evaluate. A directory contributes its *.json entries (any non-directory
// entry, so that a symbolic link is reported rather than silently skipped),
// with --recursive those of its subdirectories too, in lexical order. A
// path that does not exist is kept: its result reports the error.
func expandInputs(args []string, recursive bool) ([]string, error) {
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
			return nil, failf("reading %s: %v", arg, err)
		}
		if len(found) == 0 {
			how := ""
			if !recursive {
				how = " (use --recursive to include subdirectories)"
			}
			return nil, failf("%s holds no .json files%s", arg, how)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// runBatch evaluates every path on all cores, renders the reports in input
// order and returns the worst exit code. One unreadable file yields its own
// INPUT_INVALID report and does not stop the others.
func (a *app) runBatch(paths []string, format string, withFile bool, eval func(path string) report) int {
	n := len(paths)
	reports := make([]report, n)
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
	worst := exitValid
	for i := range n {
		<-done[i]
		if progress {
			fmt.Fprintf(a.stderr, "\rmcpres: %d/%d", i+1, n)
		}
		a.render(reports[i], format, withFile, i == 0)
		worst = max(worst, reports[i].code)
	}
	if progress {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if n > 1 {
		a.summary(reports, format)
	}
	return worst
}

func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// render prints one report in the chosen format.
func (a *app) render(r report, format string, withFile, first bool) {
	for _, h := range r.hints {
		a.hint(h)
	}
	switch format {
	case "json":
		a.printJSON(r.path, r.obj, withFile)
	case "text":
		for _, l := range r.text {
			fmt.Fprintln(a.stdout, l)
		}
	case "markdown":
		if first {
			fmt.Fprintln(a.stdout, "| file | result | authenticity | evidence class | diagnostics |")
			fmt.Fprintln(a.stdout, "|---|---|---|---|---|")
		}
		diag := strings.Join(r.diags, ", ")
		if r.detail != "" {
			diag = strings.TrimPrefix(diag+": "+r.detail, ": ")
		}
		fmt.Fprintf(a.stdout, "| %s | %s | %s | %s | %s |\n", mdCell(r.path), r.outcome, mdCell(dash(r.level)), mdCell(dash(r.class)), mdCell(dash(diag)))
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
func (a *app) summary(reports []report, format string) {
	outcomes := map[string]int{}
	levels := map[string]int{}
	for _, r := range reports {
		outcomes[r.outcome]++
		if r.level != "" && r.outcome == outcomeValid {
			levels[r.level]++
		}
	}
	var parts []string
	for _, o := range []string{outcomeValid, outcomeInvalid, outcomeGateFailed, outcomeInputInvalid} {
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
		fmt.Fprintln(a.stderr, "mcpres: "+line)
	case "markdown":
		fmt.Fprintln(a.stdout)
		fmt.Fprintln(a.stdout, "**"+line+"**")
	default:
		fmt.Fprintln(a.stdout, line)
	}
}
