package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

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
// concurrently; they are rendered strictly in input order (runBatch).
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
}

// formats accepted by the batch commands.
func checkBatchFormat(format string) error {
	switch format {
	case "json", "text", "markdown":
		return nil
	}
	return usagef("--format must be json, text or markdown, not %q", format)
}

// inputs are the files a batch command evaluates, in the order given or
// found. many is set when several files were named or any argument was a
// directory: then every result names its file (a "file" member in JSON).
type inputs struct {
	paths []string
	many  bool
}

// expandInputs turns FILE and DIR arguments into the list of files to
// evaluate. A directory contributes its *.json entries (any non-directory
// entry, so that a symbolic link is reported rather than silently skipped),
// with --recursive those of its subdirectories too, in lexical order. A
// path that does not exist is kept: its result reports the error.
func expandInputs(args []string, recursive bool) (inputs, error) {
	in := inputs{many: len(args) > 1}
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil || !st.IsDir() {
			in.paths = append(in.paths, arg)
			continue
		}
		in.many = true
		found, err := jsonFiles(arg, recursive)
		if err != nil {
			return inputs{}, failf("reading %s: %v", arg, err)
		}
		if len(found) == 0 {
			how := ""
			if !recursive {
				how = " (use --recursive to include subdirectories)"
			}
			return inputs{}, failf("%s holds no .json files%s", arg, how)
		}
		sort.Strings(found)
		if in.paths == nil {
			in.paths = found // one directory: no copy of 100,000 paths
			continue
		}
		in.paths = append(in.paths, found...)
	}
	return in, nil
}

// jsonFiles lists the non-directory entries of dir named *.json, with
// recursive those of its subdirectories too, unsorted. Entries are read a
// block at a time and only their paths kept, so that a directory of
// 100,000 files costs its paths and no more.
func jsonFiles(dir string, recursive bool) ([]string, error) {
	var found []string
	pending := []string{dir}
	for len(pending) > 0 {
		d := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		f, err := os.Open(d)
		if err != nil {
			return nil, err
		}
		for {
			entries, err := f.ReadDir(1024)
			for _, e := range entries {
				switch {
				case e.IsDir():
					if recursive {
						pending = append(pending, filepath.Join(d, e.Name()))
					}
				case strings.HasSuffix(e.Name(), ".json"):
					found = append(found, filepath.Join(d, e.Name()))
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return nil, err
			}
		}
		f.Close()
	}
	return found, nil
}

// batchOutput is how a batch command prints: the --format, whether JSON
// results name their file even for one input (--with-file), and --quiet
// (no progress counter).
type batchOutput struct {
	format   string
	withFile bool
	quiet    bool
}

// quietUsage is the help of --quiet on every command that has it.
const quietUsage = "print no progress and do not say on stderr what was written"

// batchWindow is how many results the workers may compute ahead of the
// one being printed, per core: memory stays bounded by the window, not by
// the number of files.
const batchWindow = 4

// batchGCPercent is the GOGC of a batch of more than one file (runBatch).
const batchGCPercent = 200

// runBatch evaluates every path on all cores and prints the reports
// strictly in input order as they complete, through a window of at most
// batchWindow×GOMAXPROCS reports computed ahead: memory does not grow with
// the number of files, and the summary comes from counters. It returns
// the worst exit code. One unreadable file yields its own INPUT_INVALID
// report and does not stop the others.
func (a *app) runBatch(in inputs, out batchOutput, eval func(path string) report) int {
	paths := in.paths
	n := len(paths)
	workers := min(runtime.GOMAXPROCS(0), n)
	window := min(batchWindow*workers, n)
	// Report i goes to slot i%window. A job is dispatched only after a
	// token is taken, and the printer returns the token after printing,
	// so slot i%window is free (report i-window printed) when job i runs.
	slots := make([]chan report, window)
	for i := range slots {
		slots[i] = make(chan report, 1)
	}
	tokens := make(chan struct{}, window)
	jobs := make(chan int)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(jobs)
		for i := range n {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				return
			}
			jobs <- i
		}
	}()
	for range workers {
		go func() {
			for i := range jobs {
				slots[i%window] <- eval(paths[i])
			}
		}()
	}
	if n > 1 && os.Getenv("GOGC") == "" {
		// The window bounds the live heap to a few reports and documents,
		// so the garbage collector's default (collect when the heap has
		// doubled) runs it several hundred times per 1,000 small files; at
		// batchGCPercent the heap stays a few times the window and a batch
		// spends about a fifth less CPU (BenchmarkBatchVerify1000). $GOGC,
		// when set, wins.
		defer debug.SetGCPercent(debug.SetGCPercent(batchGCPercent))
	}
	withFile := out.withFile || in.many
	p := a.newProgress(n, out.quiet)
	var sum batchSummary
	worst := exitValid
	for i := range n {
		r := <-slots[i%window]
		p.clear()
		a.render(r, out.format, withFile, i == 0)
		<-tokens // after printing: at most window reports wait unprinted
		p.show(i + 1)
		sum.add(r)
		worst = max(worst, r.code)
	}
	p.done()
	if n > 1 {
		a.summary(sum, out.format)
	}
	return worst
}

// isTerminal reports whether w is a terminal; tests replace it through
// app.isTerminal.
func (a *app) terminal(w io.Writer) bool {
	if a.isTerminal != nil {
		return a.isTerminal(w)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// A progress counter on stderr ("mcpres: 12/100"), shown only when stderr
// is a terminal, with more than one input and without --quiet. Its line is
// cleared before each result when stdout is a terminal too (the two share
// the screen), and at the end in any case, so that no result line and no
// summary ever carries progress text.
type progress struct {
	w             io.Writer
	n             int
	on, shareLine bool
	shown         bool
	last          time.Time
}

func (a *app) newProgress(n int, quiet bool) *progress {
	on := n > 1 && !quiet && a.terminal(a.stderr)
	return &progress{w: a.stderr, n: n, on: on, shareLine: on && a.terminal(a.stdout)}
}

// progressEvery is the least time between two updates of the counter
// (except the last), so that a fast batch does not spend its time drawing.
const progressEvery = 100 * time.Millisecond

func (p *progress) show(i int) {
	if !p.on {
		return
	}
	if now := time.Now(); i == p.n || now.Sub(p.last) >= progressEvery {
		p.last = now
		fmt.Fprintf(p.w, "\r\033[Kmcpres: %d/%d", i, p.n)
		p.shown = true
	}
}

// clear erases the counter before a result is printed on the same screen.
func (p *progress) clear() {
	if p.shareLine {
		p.erase()
	}
}

func (p *progress) erase() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

func (p *progress) done() { p.erase() }

// batchSummary counts the outcomes of a batch as they are printed.
type batchSummary struct {
	files    int
	outcomes map[string]int
	levels   map[string]int
}

func (s *batchSummary) add(r report) {
	if s.outcomes == nil {
		s.outcomes, s.levels = map[string]int{}, map[string]int{}
	}
	s.files++
	s.outcomes[r.outcome]++
	if r.level != "" && r.outcome == outcomeValid {
		s.levels[r.level]++
	}
}

// render prints one report in the chosen format.
func (a *app) render(r report, format string, withFile, first bool) {
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
func (a *app) summary(s batchSummary, format string) {
	outcomes, levels := s.outcomes, s.levels
	var parts []string
	for _, o := range []string{outcomeValid, outcomeInvalid, outcomeGateFailed, outcomeInputInvalid} {
		if outcomes[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", outcomes[o], strings.ToLower(strings.ReplaceAll(o, "_", " "))))
		}
	}
	line := fmt.Sprintf("%d files: %s", s.files, strings.Join(parts, ", "))
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
