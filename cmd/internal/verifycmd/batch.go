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
	"bufio"
	"cmp"
	"errors"
	"fmt"
	sgbundle "github.com/mcpres/mcpres/attest/sigstore"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"golang.org/x/term"
)

// Exit codes (DESIGN §5), every binary's (internal/cli).
const (
	ExitValid   = cli.ExitValid   // valid
	ExitInvalid = cli.ExitInvalid // a failing diagnostic or gate
	ExitInput   = cli.ExitInput   // unreadable or invalid input, or a usage error
)

// Outcomes of one input, for summaries.
const (
	OutcomeValid        = "VALID"
	OutcomeInvalid      = "INVALID"
	OutcomeInputInvalid = "INPUT_INVALID"
	OutcomeGateFailed   = "GATE_FAILED"
	// OutcomePassed is a valid input that passed a gate (attest verify
	// with a trust source: every check of attest.Gate).
	OutcomePassed = "PASSED"
)

// A Report is the outcome for one input. Evaluations build reports
// concurrently; they are rendered strictly in input order (Printer.Run).
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
// messages on Stderr ("mcpres", "mcpres-sigstore"). It is used by one
// goroutine at a time (it keeps a line buffer).
type Printer struct {
	Stdout, Stderr io.Writer
	Prog           string
	// Quiet is --quiet: no progress counter (and, for other code of the
	// command, no messages on Stderr about what was written).
	Quiet bool
	// IsTerminal replaces the terminal test of Stdout and Stderr (tests).
	IsTerminal func(io.Writer) bool
	// Unit names the inputs in the summary ("files" when empty).
	Unit string

	line []byte // PrintJSON's buffer
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

// Inputs are the files a batch command evaluates, in the order given or
// found. Many is set when several files were named or any argument was a
// directory: then every result names its file (a "file" member in JSON).
//
// A batch keeps its list of files for its whole run, and at the batch's
// GOGC every live byte costs about three, so the list is packed: a file
// found in a directory costs its name and 12 bytes, not a string of its
// whole path (100,000 files in a temporary directory: 2 MB, not 9 MB).
type Inputs struct {
	Many bool

	prefixes []string // a directory's path with its separator, or a named file's path
	names    string   // the names found in directories, end to end
	entries  []input
}

// An input is prefixes[prefix] followed by names[start:end].
type input struct{ prefix, start, end uint32 }

// Len is the number of files.
func (in *Inputs) Len() int { return len(in.entries) }

// Path returns the path of file i: an argument as given, or a directory
// entry as filepath.Join(dir, name) spells it.
func (in *Inputs) Path(i int) string {
	e := in.entries[i]
	return in.prefixes[e.prefix] + in.names[e.start:e.end]
}

// add appends a path named on the command line.
func (in *Inputs) add(path string) {
	in.prefixes = append(in.prefixes, path)
	in.entries = append(in.entries, input{prefix: uint32(len(in.prefixes) - 1)})
}

// ExpandInputs turns FILE and DIR arguments into the list of files to
// evaluate. A directory contributes its *.json entries (any non-directory
// entry, so that a symbolic link is reported rather than silently skipped),
// with --recursive those of its subdirectories too, in lexical order of
// their paths. A path that does not exist is kept: its result reports the
// error. The error names the directory; callers report it as a command
// error (exit 2).
func ExpandInputs(args []string, recursive bool) (Inputs, error) {
	in := Inputs{Many: len(args) > 1}
	var names strings.Builder
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil || !st.IsDir() {
			in.add(arg)
			continue
		}
		in.Many = true
		first := len(in.entries)
		if err := in.jsonFiles(&names, arg, recursive); err != nil {
			return Inputs{}, fmt.Errorf("reading %s: %v", arg, err)
		}
		if len(in.entries) == first {
			how := ""
			if !recursive {
				how = " (use --recursive to include subdirectories)"
			}
			return Inputs{}, fmt.Errorf("%s holds no .json files%s", arg, how)
		}
		all := names.String()
		slices.SortFunc(in.entries[first:], func(a, b input) int {
			return compareJoined(in.prefixes[a.prefix], all[a.start:a.end], in.prefixes[b.prefix], all[b.start:b.end])
		})
	}
	in.names = names.String()
	return in, nil
}

// compareJoined compares a1+a2 with b1+b2 as strings, without joining them.
func compareJoined(a1, a2, b1, b2 string) int {
	for {
		if a1 == "" {
			a1, a2 = a2, ""
		}
		if b1 == "" {
			b1, b2 = b2, ""
		}
		if a1 == "" || b1 == "" {
			return cmp.Compare(len(a1), len(b1))
		}
		n := min(len(a1), len(b1))
		if c := strings.Compare(a1[:n], b1[:n]); c != 0 {
			return c
		}
		a1, b1 = a1[n:], b1[n:]
	}
}

// jsonFiles adds the non-directory entries of dir named *.json, with
// recursive those of its subdirectories too, unsorted. Entries are read a
// block at a time and only their names kept.
func (in *Inputs) jsonFiles(names *strings.Builder, dir string, recursive bool) error {
	pending := []string{dir}
	for len(pending) > 0 {
		d := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		f, err := os.Open(d)
		if err != nil {
			return err
		}
		// filepath.Join(d, name) for any entry name (no separator, not
		// "." or ".."): the cleaned directory and its separator.
		j := filepath.Join(d, "x")
		prefix := uint32(len(in.prefixes))
		in.prefixes = append(in.prefixes, j[:len(j)-1])
		for {
			entries, err := f.ReadDir(1024)
			for _, e := range entries {
				switch {
				case e.IsDir():
					if recursive {
						pending = append(pending, filepath.Join(d, e.Name()))
					}
				case sgbundle.IsMaterialName(e.Name()):
					// The verification material of a keyless
					// signature of the attested bundle beside it.
				case strings.HasSuffix(e.Name(), ".json"):
					if names.Len()+len(e.Name()) > math.MaxUint32 {
						f.Close()
						return errors.New("too many files")
					}
					start := uint32(names.Len())
					names.WriteString(e.Name())
					in.entries = append(in.entries, input{prefix: prefix, start: start, end: uint32(names.Len())})
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
	}
	return nil
}

// QuietUsage is the help of --quiet on the batch commands.
const QuietUsage = "print no progress and do not say on stderr what was written"

// batchWindow is how many results the workers may compute ahead of the
// one being printed, per core: memory stays bounded by the window, not by
// the number of files.
const batchWindow = 4

// batchGCPercent is the GOGC of a batch of more than one file (Run).
const batchGCPercent = 400

// A batch's output is held in a buffer of batchOutputBuffer bytes and
// written when it is full or holds a window of results, before anything
// is said on Stderr, at the end, and, while the next result is not ready,
// once batchFlushEvery has passed since the last write.
const (
	batchOutputBuffer = 32 << 10
	batchFlushEvery   = 100 * time.Millisecond
)

// Run evaluates every path on all cores and prints the reports strictly in
// input order as they complete, through a window of at most
// batchWindow×GOMAXPROCS reports computed ahead: memory does not grow with
// the number of files, and the summary comes from counters. JSON results
// name their file when withFile or in.Many. It returns the worst exit
// code. One unreadable file yields its own INPUT_INVALID Report and does
// not stop the others.
func (a *Printer) Run(in Inputs, format string, withFile bool, eval func(path string) Report) int {
	n := in.Len()
	workers := min(runtime.GOMAXPROCS(0), n)
	window := min(batchWindow*workers, n)
	w := startWindow(in, eval, workers, window)
	defer close(w.stop)
	if n > 1 && os.Getenv("GOGC") == "" {
		// The window bounds the live heap to a few reports and documents
		// (about 1 MB after a collection, for small files), so the
		// collector's heap goal is its minimum, 4 MB × GOGC/100, and the
		// goal sets how often it runs: at GOGC 200, 25 times per 1,000
		// small files (86 ms of about 700 ms of CPU, GODEBUG=gctrace=1); at
		// batchGCPercent 9 times (19 ms), peak memory flat: 33 MB at 1,000
		// files, 36–42 MB at 10,000. $GOGC, when set, wins.
		defer debug.SetGCPercent(debug.SetGCPercent(batchGCPercent))
	}
	withFile = withFile || in.Many
	p := a.newProgress(n)
	o := newBatchOut(a.Stdout)
	defer o.out.Flush()
	pr := *a
	pr.Stdout = o.out
	var sum batchSummary
	worst := ExitValid
	for i := range n {
		r := o.receive(w.slots[i%window])
		if len(r.Hints) > 0 || p.on {
			o.flush()
		}
		p.clear()
		pr.Render(r, format, withFile, i == 0)
		<-w.tokens // after printing: at most window reports wait unprinted
		if o.held++; o.held >= window || p.on {
			o.flush()
		}
		p.show(i + 1)
		sum.add(r)
		worst = max(worst, r.Code)
	}
	o.out.Flush()
	p.done()
	if n > 1 {
		a.summary(sum, format)
	}
	return worst
}

// A batchWindowState is the workers of a batch and the slots they fill.
type batchWindowState struct {
	slots  []chan Report
	tokens chan struct{}
	stop   chan struct{}
}

// startWindow starts workers evaluating in's paths. Report i goes to slot
// i%window. A worker takes a token before it claims the next job, and the
// printer returns a token after printing a report, so at most window jobs
// are claimed and not printed: when job i is claimed, jobs 0…i are, and
// report i-window has been printed, which frees slot i%window. (Workers
// claim jobs themselves, not from a dispatching goroutine: one hand-off
// fewer per file.) Closing stop ends the workers.
func startWindow(in Inputs, eval func(path string) Report, workers, window int) batchWindowState {
	n := in.Len()
	w := batchWindowState{slots: make([]chan Report, window), tokens: make(chan struct{}, window), stop: make(chan struct{})}
	for i := range w.slots {
		w.slots[i] = make(chan Report, 1)
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for {
				select {
				case w.tokens <- struct{}{}:
				case <-w.stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				w.slots[i%window] <- eval(in.Path(i))
			}
		}()
	}
	return w
}

// A batchOut holds a batch's results in a buffer (batchFlushEvery: output
// still follows the work, and Stdout and Stderr keep their order), not
// one write per file.
type batchOut struct {
	out     *bufio.Writer
	flushed time.Time
	held    int
}

func newBatchOut(w io.Writer) *batchOut {
	return &batchOut{out: bufio.NewWriterSize(w, batchOutputBuffer), flushed: time.Now()}
}

func (o *batchOut) flush() {
	o.out.Flush()
	o.flushed, o.held = time.Now(), 0
}

// receive waits for the next report; what is held is written once
// batchFlushEvery has passed since the last write while it waits.
func (o *batchOut) receive(slot chan Report) Report {
	select {
	case r := <-slot:
		return r
	default:
	}
	wait := batchFlushEvery - time.Since(o.flushed)
	if wait <= 0 || o.out.Buffered() == 0 {
		o.flush()
		return <-slot
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-slot:
		return r
	case <-t.C:
		o.flush()
		return <-slot
	}
}

// terminal reports whether w is a terminal; tests replace it through
// Printer.IsTerminal.
func (a *Printer) terminal(w io.Writer) bool {
	w = termsafe.Unwrap(w) // the stream itself, not its escaping
	if a.IsTerminal != nil {
		return a.IsTerminal(w)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// A progress counter on Stderr ("mcpres: 12/100"), shown only when Stderr
// is a terminal, with more than one input and without Quiet. Its line is
// cleared before each result when Stdout is a terminal too (the two share
// the screen), and at the end in any case, so that no result line and no
// summary ever carries progress text.
type progress struct {
	w             io.Writer
	prog          string
	n             int
	on, shareLine bool
	shown         bool
	last          time.Time
}

func (a *Printer) newProgress(n int) *progress {
	on := n > 1 && !a.Quiet && a.terminal(a.Stderr)
	// The counter's own CR and ESC [K go to the terminal itself, not
	// through the escaping of the stream (internal/termsafe).
	return &progress{w: termsafe.Unwrap(a.Stderr), prog: a.Prog, n: n, on: on, shareLine: on && a.terminal(a.Stdout)}
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
		fmt.Fprintf(p.w, "\r\033[K%s: %d/%d", p.prog, i, p.n)
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

func (s *batchSummary) add(r Report) {
	if s.outcomes == nil {
		s.outcomes, s.levels = map[string]int{}, map[string]int{}
	}
	s.files++
	s.outcomes[r.Outcome]++
	if r.Level != "" && (r.Outcome == OutcomeValid || r.Outcome == OutcomePassed) {
		s.levels[r.Level]++
	}
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
			// One line each: a newline in a value it quotes (a file
			// name, an identity) is escaped, not a line of its own.
			fmt.Fprintln(a.Stdout, termsafe.Line(l))
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
func (a *Printer) summary(s batchSummary, format string) {
	outcomes, levels := s.outcomes, s.levels
	var parts []string
	for _, o := range []string{OutcomePassed, OutcomeValid, OutcomeInvalid, OutcomeGateFailed, OutcomeInputInvalid} {
		if outcomes[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", outcomes[o], strings.ToLower(strings.ReplaceAll(o, "_", " "))))
		}
	}
	unit := a.Unit
	if unit == "" {
		unit = "files"
	}
	line := fmt.Sprintf("%d %s: %s", s.files, unit, strings.Join(parts, ", "))
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
