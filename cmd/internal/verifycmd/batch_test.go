package verifycmd

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineCounter counts the lines written to it.
type lineCounter struct {
	mu    sync.Mutex
	lines int
	buf   bytes.Buffer
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines += bytes.Count(p, []byte("\n"))
	return c.buf.Write(p)
}

func (c *lineCounter) printed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lines
}

// Run prints in input order however the evaluations finish, and never
// holds more than the window of reports evaluated but not yet rendered,
// nor more than a window of rendered results not yet written.
func TestRunBatchBoundedWindowInOrder(t *testing.T) {
	const n = 500
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%03d.json", i)
	}
	out := &lineCounter{}
	a := &Printer{Stdout: out, Stderr: io.Discard, Prog: "mcpres"}
	var mu sync.Mutex
	evaluated, maxAhead := 0, 0
	window := batchWindow * min(runtime.GOMAXPROCS(0), n)
	code := a.Run(pathInputs(paths, true), "text", false, func(p string) Report {
		var i int
		fmt.Sscanf(p, "f%d.json", &i)
		if i%7 == 0 {
			time.Sleep(time.Millisecond) // finish out of order
		}
		mu.Lock()
		evaluated++
		maxAhead = max(maxAhead, evaluated-out.printed())
		mu.Unlock()
		return Report{Path: p, Code: i % 2, Outcome: OutcomeValid, Text: []string{p}}
	})
	if code != 1 {
		t.Errorf("exit %d, want the worst, 1", code)
	}
	lines := strings.Split(out.buf.String(), "\n")
	for i := range n {
		if lines[i] != paths[i] {
			t.Fatalf("line %d = %q, want %q: results out of input order", i, lines[i], paths[i])
		}
	}
	if lines[n] != "500 files: 500 valid" {
		t.Errorf("summary %q", lines[n])
	}
	if maxAhead > 2*window {
		t.Errorf("%d reports evaluated ahead of the output, want at most the window %d and a window of results buffered", maxAhead, window)
	}
	t.Logf("window %d, at most %d ahead", window, maxAhead)
}

// pathInputs returns Inputs of the given paths, in order.
func pathInputs(paths []string, many bool) Inputs {
	in := Inputs{Many: many}
	for _, p := range paths {
		in.add(p)
	}
	return in
}

// Run's output buffer keeps Stdout and Stderr in order: a report's hints
// (Stderr) come after the results printed before it, however the two are
// buffered, and the batch's output is written in a few writes, not one a
// file.
func TestRunBatchOutputOrder(t *testing.T) {
	const n = 40
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%03d.json", i)
	}
	both := &lineCounter{}
	writes := 0
	stdout := writerFunc(func(p []byte) (int, error) { writes++; return both.Write(p) })
	a := &Printer{Stdout: stdout, Stderr: both, Prog: "mcpres"}
	a.Run(pathInputs(paths, true), "text", false, func(p string) Report {
		r := Report{Path: p, Outcome: OutcomeValid, Text: []string{p}}
		if p[3] == '7' {
			r.Hints = []string{"about " + p}
		}
		return r
	})
	var want []string
	for _, p := range paths {
		if p[3] == '7' {
			want = append(want, "mcpres: hint: about "+p)
		}
		want = append(want, p)
	}
	want = append(want, "40 files: 40 valid", "")
	if got := strings.Split(both.buf.String(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if writes > n/2 {
		t.Errorf("%d writes to Stdout for %d results", writes, n)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
