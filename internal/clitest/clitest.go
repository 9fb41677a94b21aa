// Package clitest runs CLI script tests in the style of age's
// cmd/age/testdata/*.txt (rogpeppe/go-internal/testscript), without its
// dependencies: each testdata/script/NAME.txt is a txtar-like file whose
// leading lines are a script and whose "-- path --" sections are files
// written into a fresh temporary working directory.
//
// The program under test is the test binary itself, re-executed with
// MCPRES_CLITEST_MAIN set (see [Main]), so every command runs as a real
// process: the exit status, stdout and stderr are the ones a pipeline sees,
// and stdin is empty and not a terminal.
//
// Script lines (# starts a comment; words are split on spaces, with
// 'single quotes' and "double quotes"; $WORK is the working directory):
//
//	[!] PROG ARGS...     run a registered program; without ! it must exit 0,
//	                     with ! it must exit non-zero
//	exit N               the last program exited with status N
//	[!] stdout REGEXP    the last program's stdout matches (or not)
//	[!] stderr REGEXP    the same for stderr
//	[!] exists FILE      FILE exists (Lstat; or not)
//	[!] glob PATTERN     some file matches PATTERN (or none does)
//	kind FILE KIND       FILE is a regular, dir, symlink, fifo or socket
//	cmp FILE1 FILE2      the files have the same content
//	cmpstdout FILE       the last stdout equals FILE's content
//	mkdir DIR, symlink NAME TARGET, mkfifo NAME, mksock NAME
//	env NAME=VALUE       set a variable for the following programs
//
// $MCPRES_PASSWORD and $COSIGN_PASSWORD are removed from the environment
// the programs inherit; HOME and WORK are the working directory.
//
//	skip MESSAGE         skip the rest of this script
package clitest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const mainEnv = "MCPRES_CLITEST_MAIN"

// Main is called from TestMain with the programs a script may run, by
// name. When the test binary is re-executed for one of them it runs that
// program's main (which exits) instead of the tests.
func Main(m *testing.M, progs map[string]func()) {
	Programs(progs)
	os.Exit(m.Run())
}

// Programs is the first half of [Main], for a TestMain that runs the
// tests itself: when the test binary was re-executed as one of progs, it
// runs that program and exits; otherwise it returns.
func Programs(progs map[string]func()) {
	if name := os.Getenv(mainEnv); name != "" {
		main, ok := progs[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "clitest: no program %q\n", name)
			os.Exit(255)
		}
		main()
		os.Exit(0)
	}
}

// Run runs every *.txt script in dir as a subtest; seed holds files every
// script's working directory starts with, and progs names the programs
// registered with [Main] that scripts may call.
func Run(t *testing.T, dir string, seed map[string][]byte, progs ...string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s (%v)", dir, err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := &script{t: t, work: t.TempDir(), self: self, progs: progs}
			for name, content := range seed {
				if err := os.WriteFile(filepath.Join(s.work, name), content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s.run(data)
		})
	}
}

type script struct {
	t              *testing.T
	work, self     string
	progs          []string
	env            []string
	line           int
	ran            bool
	code           int
	stdout, stderr string
}

func (s *script) fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("line %d: "+format, append([]any{s.line}, args...)...)
}

func (s *script) run(data []byte) {
	lines, files := parse(data)
	for name, content := range files {
		p := filepath.Join(s.work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	for i, l := range lines {
		s.line = i + 1
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		words, err := split(strings.ReplaceAll(l, "$WORK", s.work))
		if err != nil {
			s.fatalf("%v", err)
		}
		neg := false
		if words[0] == "!" {
			neg, words = true, words[1:]
		}
		if len(words) == 0 {
			s.fatalf("! without a command")
		}
		if s.do(neg, words[0], words[1:]) {
			return
		}
	}
}

// do runs one command; it returns true when the script is skipped.
func (s *script) do(neg bool, cmd string, args []string) bool {
	s.t.Helper()
	nargs := func(n int) {
		if len(args) != n {
			s.fatalf("%s takes %d arguments, got %q", cmd, n, args)
		}
	}
	path := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(s.work, p)
	}
	for _, p := range s.progs {
		if cmd == p {
			s.exec(neg, cmd, args)
			return false
		}
	}
	switch cmd {
	case "exit":
		nargs(1)
		want, err := strconv.Atoi(args[0])
		if err != nil || !s.ran {
			s.fatalf("exit N after a program")
		}
		if s.code != want {
			s.fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", s.code, want, s.stdout, s.stderr)
		}
	case "stdout", "stderr":
		nargs(1)
		out := s.stdout
		if cmd == "stderr" {
			out = s.stderr
		}
		re, err := regexp.Compile("(?m)" + args[0])
		if err != nil {
			s.fatalf("%v", err)
		}
		if re.MatchString(out) == neg {
			s.fatalf("%s %smatches %q:\n%s", cmd, map[bool]string{true: "", false: "does not "}[neg], args[0], out)
		}
	case "exists":
		nargs(1)
		_, err := os.Lstat(path(args[0]))
		if (err == nil) == neg {
			s.fatalf("exists %s: %v (negated %v)", args[0], err, neg)
		}
	case "glob":
		nargs(1)
		m, err := filepath.Glob(path(args[0]))
		if err != nil || (len(m) > 0) == neg {
			s.fatalf("glob %s: %q (negated %v, %v)", args[0], m, neg, err)
		}
	case "kind":
		nargs(2)
		fi, err := os.Lstat(path(args[0]))
		if err != nil {
			s.fatalf("%v", err)
		}
		m := fi.Mode()
		got := "other"
		switch {
		case m.IsRegular():
			got = "regular"
		case m.IsDir():
			got = "dir"
		case m&os.ModeSymlink != 0:
			got = "symlink"
		case m&os.ModeNamedPipe != 0:
			got = "fifo"
		case m&os.ModeSocket != 0:
			got = "socket"
		}
		if got != args[1] {
			s.fatalf("%s is %s, want %s", args[0], got, args[1])
		}
	case "cmp":
		nargs(2)
		a, errA := os.ReadFile(path(args[0]))
		b, errB := os.ReadFile(path(args[1]))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			s.fatalf("%s and %s differ (%v, %v)", args[0], args[1], errA, errB)
		}
	case "cmpstdout":
		nargs(1)
		b, err := os.ReadFile(path(args[0]))
		if err != nil || string(b) != s.stdout {
			s.fatalf("stdout differs from %s (%v):\n%s", args[0], err, s.stdout)
		}
	case "mkdir":
		nargs(1)
		if err := os.MkdirAll(path(args[0]), 0o755); err != nil {
			s.fatalf("%v", err)
		}
	case "symlink":
		nargs(2)
		if err := os.Symlink(args[1], path(args[0])); err != nil {
			s.fatalf("%v", err)
		}
	case "mkfifo":
		nargs(1)
		if err := syscall.Mkfifo(path(args[0]), 0o644); err != nil {
			s.fatalf("%v", err)
		}
	case "mksock":
		nargs(1)
		l, err := net.Listen("unix", path(args[0]))
		if err != nil {
			s.fatalf("%v", err)
		}
		s.t.Cleanup(func() { l.Close() })
	case "env":
		nargs(1)
		if !strings.Contains(args[0], "=") {
			s.fatalf("env NAME=VALUE")
		}
		s.env = append(s.env, args[0])
	case "skip":
		s.t.Skip(strings.Join(args, " "))
		return true
	default:
		s.fatalf("unknown command %q", cmd)
	}
	return false
}

func (s *script) exec(neg bool, prog string, args []string) {
	s.t.Helper()
	c := exec.Command(s.self, args...)
	c.Dir = s.work
	var env []string
	for _, kv := range os.Environ() {
		// Passphrases come only from the script.
		if !strings.HasPrefix(kv, "MCPRES_PASSWORD=") && !strings.HasPrefix(kv, "COSIGN_PASSWORD=") {
			env = append(env, kv)
		}
	}
	c.Env = append(append(env, mainEnv+"="+prog, "HOME="+s.work, "WORK="+s.work), s.env...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	s.ran, s.stdout, s.stderr = true, stdout.String(), stderr.String()
	s.code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		s.code = ee.ExitCode()
	} else if err != nil {
		s.fatalf("%s: %v", prog, err)
	}
	if (s.code != 0) != neg {
		s.fatalf("%s %s: exit status %d\nstdout:\n%s\nstderr:\n%s", prog, strings.Join(args, " "), s.code, s.stdout, s.stderr)
	}
}

// parse splits a script file into its script lines and its files.
func parse(data []byte) (lines []string, files map[string][]byte) {
	files = map[string][]byte{}
	var cur string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimRight(l, "\n"), "-- "); ok && strings.HasSuffix(name, " --") {
			cur = strings.TrimSpace(strings.TrimSuffix(name, " --"))
			files[cur] = nil
			continue
		}
		if cur == "" {
			lines = append(lines, strings.TrimRight(l, "\n"))
		} else {
			files[cur] = append(files[cur], l...)
		}
	}
	return lines, files
}

// split splits a line into words, honouring single and double quotes.
func split(l string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range l {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
