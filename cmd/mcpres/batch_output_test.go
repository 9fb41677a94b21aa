package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

// A directory, even of one file, or several inputs make every JSON result
// name its file first, in validate and attest verify alike; one FILE does
// not (the reference implementation's exact output) unless --with-file.
func TestCLIBatchFileMember(t *testing.T) {
	dir := t.TempDir()
	one := copyFixture(t, dir, "witnessed.json", "only.json")
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	at := "2026-08-27T18:05:00.000Z"
	for _, tt := range []struct {
		name string
		args []string
		file []string // the file member of each result, "" for none
	}{
		{"verify one file", []string{"attest", "verify", "--policy", policy, "--subject-name", exampleSubjectName, "--evaluated-at", at, one}, []string{""}},
		{"verify a directory of one", []string{"attest", "verify", "--policy", policy, "--subject-name", exampleSubjectName, "--evaluated-at", at, dir}, []string{one}},
		{"verify two files", []string{"attest", "verify", "--policy", policy, "--subject-name", exampleSubjectName, "--evaluated-at", at, one, "missing.json"}, []string{one, "missing.json"}},
		{"validate one file", []string{"validate", one}, []string{""}},
		{"validate one file --with-file", []string{"validate", "--with-file", one}, []string{one}},
		{"validate a directory of one", []string{"validate", dir}, []string{one}},
		{"validate two files", []string{"validate", "missing.json", one}, []string{"missing.json", one}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, _ := runCLI(t, tt.args...)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(lines) != len(tt.file) {
				t.Fatalf("%d results, want %d:\n%s", len(lines), len(tt.file), stdout)
			}
			for i, l := range lines {
				v, err := canonjson.Parse([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				f := v.Get("file")
				switch {
				case tt.file[i] == "" && f != nil:
					t.Errorf("result %d has a file member: %s", i, l)
				case tt.file[i] != "" && (f == nil || f.Str != tt.file[i] || v.Members[0].Key != "file"):
					t.Errorf("result %d: want first member file %q: %s", i, tt.file[i], l)
				}
			}
		})
	}
	// Text and markdown name the path of every result.
	for _, format := range []string{"text", "markdown"} {
		stdout, _, _ := runCLI(t, "attest", "verify", "--format", format, "--policy", policy, "--subject-name", exampleSubjectName, "--evaluated-at", at, dir, "missing.json")
		for _, p := range []string{one, "missing.json"} {
			if !strings.Contains(stdout, p) {
				t.Errorf("--format %s does not name %s:\n%s", format, p, stdout)
			}
		}
	}
}

// screen is a terminal shared by stdout and stderr, as when both are the
// same tty: it interprets \r (back to column 0) and ESC [K (erase to the end
// of the line), which is all the progress counter uses.
type screen struct {
	mu   sync.Mutex
	raw  bytes.Buffer
	done []string
	line []rune
	col  int
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	rs := []rune(string(p))
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\n':
			s.done = append(s.done, string(s.line))
			s.line, s.col = nil, 0
		case r == '\r':
			s.col = 0
		case r == '\033' && i+2 < len(rs) && rs[i+1] == '[' && rs[i+2] == 'K':
			s.line = s.line[:s.col]
			i += 2
		default:
			if s.col < len(s.line) {
				s.line[s.col] = r
			} else {
				s.line = append(s.line, r)
			}
			s.col++
		}
	}
	return len(p), nil
}

// runTerminal runs a command line with stdout and stderr on one simulated
// terminal (or, with stdoutTTY false, stdout redirected to a buffer).
func runTerminal(args []string, stdoutTTY bool) (scr *screen, stdout *bytes.Buffer, code int) {
	scr, stdout = &screen{}, &bytes.Buffer{}
	var out io.Writer = stdout
	if stdoutTTY {
		out = scr
	}
	a := &app{stdin: strings.NewReader(""), stdout: out, stderr: scr,
		isTerminal: func(w io.Writer) bool { return w == io.Writer(scr) }}
	code = a.execute(args)
	return scr, stdout, code
}

// On a terminal the progress counter never shares a line with a result or
// the summary; it is shown only when stderr is a terminal, and --quiet
// silences it.
func TestCLIBatchProgress(t *testing.T) {
	dir := t.TempDir()
	const n = 30
	for i := range n {
		copyFixture(t, dir, "witnessed.json", fmt.Sprintf("b%02d.json", i))
	}
	policy := filepath.Join(attestFixtures, "witnessed.trust-policy.json")
	base := []string{"attest", "verify", "--policy", policy, "--subject-name", exampleSubjectName, "--evaluated-at", "2026-08-27T18:05:00.000Z", dir}
	for _, format := range []string{"json", "text", "markdown"} {
		scr, _, code := runTerminal(append(base, "--format", format), true)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !bytes.Contains(scr.raw.Bytes(), []byte("mcpres: 1/30")) || !bytes.Contains(scr.raw.Bytes(), []byte("mcpres: 30/30")) {
			t.Errorf("%s: no progress counter on a terminal stderr: %q", format, scr.raw.String())
		}
		results := 0
		for _, l := range scr.done {
			if strings.Contains(l, "mcpres: ") && !strings.Contains(l, "files: ") || strings.Contains(l, "/30") {
				t.Errorf("%s: a line carries progress text: %q", format, l)
			}
			if strings.Contains(l, "b0") || strings.Contains(l, "b1") || strings.Contains(l, "b2") {
				results++
			}
		}
		if results < n {
			t.Errorf("%s: %d result lines on the screen, want %d", format, results, n)
		}
		if len(scr.line) != 0 {
			t.Errorf("%s: the counter is left on the screen: %q", format, string(scr.line))
		}
	}
	// stdout redirected: the results are clean and the counter is still
	// erased before the summary on stderr.
	scr, stdout, _ := runTerminal(base, false)
	if strings.Contains(stdout.String(), "mcpres") || strings.Count(stdout.String(), "\n") != n {
		t.Errorf("redirected stdout: %q", stdout.String())
	}
	if len(scr.done) != 1 || !strings.HasPrefix(scr.done[0], "mcpres: 30 files: 30 passed") {
		t.Errorf("stderr lines %q, want the summary alone", scr.done)
	}
	// --quiet, and a stderr that is not a terminal: no counter at all.
	for _, q := range []string{"--quiet", "-q"} {
		scr, _, _ = runTerminal(append(base, q), true)
		if bytes.Contains(scr.raw.Bytes(), []byte("/30")) || bytes.Contains(scr.raw.Bytes(), []byte("\r")) {
			t.Errorf("%s: progress printed: %q", q, scr.raw.String())
		}
		scr, _, _ = runTerminal([]string{"validate", q, dir}, true)
		if bytes.Contains(scr.raw.Bytes(), []byte("/30")) {
			t.Errorf("validate %s: progress printed", q)
		}
	}
	_, stderr, _ := runCLI(t, base...)
	if strings.Contains(stderr, "/30") || strings.Contains(stderr, "\r") {
		t.Errorf("progress on a stderr that is not a terminal: %q", stderr)
	}
}
