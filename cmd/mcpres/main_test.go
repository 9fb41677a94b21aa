package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/upstreamtest"
)

// usagePointer ends the message of a usage error (internal/cli
// PrintError): the cause, then where the usage is, never the usage text.
const usagePointer = "--help' for usage.\n"

// runCLI runs one command line in-process and returns its streams and exit code.
func runCLI(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// runExpect runs one command line in-process, fails the test unless it
// exits with want, and returns its stdout and stderr together.
func runExpect(t testing.TB, want int, args ...string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, args...)
	if code != want {
		t.Fatalf("mcpres %s: exit %d, want %d\nstdout %s\nstderr %s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout + stderr
}

func upstreamDir(t testing.TB, version string) string {
	t.Helper()
	return upstreamtest.Dir(t, "../..", version)
}

// TestCLIUpstreamV02Catalog runs every v0.2.0 vector through `mcpres
// validate` and checks the printed result object and the exit code.
func TestCLIUpstreamV02Catalog(t *testing.T) {
	dir := upstreamDir(t, "v0.2.0")
	_, cat, err := canonjson.ReadFile(filepath.Join(dir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, group := range []string{"valid", "invalid"} {
		for _, e := range cat.Get(group).Items {
			n++
			id, path := e.Get("id").Str, e.Get("path").Str
			var want []string
			for _, d := range e.Get("expectedDiagnostics").Items {
				want = append(want, d.Str)
			}
			t.Run(id, func(t *testing.T) {
				stdout, stderr, code := runCLI(t, "validate", filepath.Join(dir, path))
				wantCode := exitValid
				if len(want) > 0 {
					wantCode = exitInvalid
				}
				if code != wantCode || stderr != "" {
					t.Errorf("exit %d (stderr %q), want %d", code, stderr, wantCode)
				}
				res, err := canonjson.Parse([]byte(stdout))
				if err != nil {
					t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
				}
				var got []string
				for _, d := range res.Get("diagnostics").Items {
					got = append(got, d.Str)
				}
				if res.Get("valid").Bool != (len(want) == 0) || !slices.Equal(got, want) {
					t.Errorf("result %s, want diagnostics %v", stdout, want)
				}
			})
		}
	}
	if n != 25 {
		t.Errorf("catalog has %d vectors, want 25", n)
	}
}

// Every strict-reader rule makes `mcpres validate` exit 2 with the
// MCP_RES_INPUT_INVALID object and a readable reason.
func TestCLIReaderRulesExit2(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string
		reason  string
	}{
		{"duplicate key", `{"a":1,"a":2}`, `duplicate key \"a\" at byte 7`},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "invalid UTF-8 at byte 6"},
		{"byte order mark", "\xEF\xBB\xBF{}", "byte order mark is not allowed at byte 0"},
		{"lone surrogate", `{"value":"\ud800"}`, "unpaired surrogate escape at byte 10"},
		{"unsafe integer", `{"n":9007199254740992}`, "integer outside ±9007199254740991 at byte 5"},
		{"fraction", `{"n":1.0}`, "fraction or exponent"},
		{"exponent", `{"n":1e2}`, "fraction or exponent"},
		{"trailing data", `{}x`, "unexpected data after the JSON value at byte 2"},
		{"depth", strings.Repeat("[", 130) + strings.Repeat("]", 130), "nesting deeper than 128"},
		{"nodes", "[" + strings.TrimSuffix(strings.Repeat("0,", 250_001), ",") + "]", "more than 250000 values and keys"},
		{"string length", `"` + strings.Repeat("a", 1<<20+1) + `"`, "string longer than 1048576 code points"},
		{"zip archive", "PK\x03\x04\x14\x00", "unexpected character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, "validate", path)
			if code != exitInput {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.HasPrefix(stdout, `{"valid":false,"diagnostics":["MCP_RES_INPUT_INVALID"],"message":"MCP_RES_INPUT_INVALID: `) || !strings.Contains(stdout, tt.reason) {
				t.Errorf("stdout = %s, want the INPUT_INVALID object with %q", stdout, tt.reason)
			}
			if stderr != "" {
				t.Errorf("stderr = %q, want nothing", stderr)
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(dir, "target.json")
		os.WriteFile(target, []byte(`{}`), 0o644)
		link := filepath.Join(dir, "link.json")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		stdout, _, code := runCLI(t, "validate", link)
		if code != exitInput || !strings.Contains(stdout, "not a regular file (a symbolic link)") {
			t.Errorf("exit %d, stdout %s", code, stdout)
		}
	})
	t.Run("size limit", func(t *testing.T) {
		path := filepath.Join(dir, "big.json")
		if err := os.WriteFile(path, append([]byte("0"), bytes.Repeat([]byte(" "), 16<<20)...), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, _, code := runCLI(t, "validate", path)
		if code != exitInput || !strings.Contains(stdout, "input is larger than 16777216 bytes") {
			t.Errorf("exit %d, stdout %s", code, stdout)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		stdout, _, code := runCLI(t, "validate", filepath.Join(dir, "nope.json"))
		if code != exitInput || !strings.Contains(stdout, "no such file") {
			t.Errorf("exit %d, stdout %s", code, stdout)
		}
	})
}

func TestCLIUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no arguments to validate", []string{"validate"}, "requires at least 1 arg"},
		{"unknown flag", []string{"validate", "--nope", "x.json"}, "unknown flag: --nope"},
		{"bad format", []string{"validate", "--format", "yaml", "x.json"}, `--format must be json, text or markdown, not "yaml"`},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != exitInput || stdout != "" || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, usagePointer) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, usage on stderr naming %q", code, stdout, stderr, tt.want)
			}
			// The cause is not buried under the usage text: it is
			// followed by the one line that says where the usage is.
			if !strings.HasPrefix(stderr, "mcpres: error: ") || !strings.HasSuffix(stderr, usagePointer) || strings.Contains(stderr, "Usage:") || strings.Contains(stderr, "Flags:") {
				t.Errorf("stderr %q: want the cause and a pointer to --help, not the usage text", stderr)
			}
		})
	}
}

func TestCLIWorstExitCodeWins(t *testing.T) {
	dir := upstreamDir(t, "v0.2.0")
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{`), 0o644)
	stdout, _, code := runCLI(t, "validate",
		filepath.Join(dir, "valid", "reason-bound-negative.json"),
		bad,
		filepath.Join(dir, "invalid", "wrong-stop-reason.json"))
	if code != exitInput {
		t.Errorf("exit %d, want 2", code)
	}
	if lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); len(lines) != 3 {
		t.Errorf("got %d result lines, want 3 (one per file, in order):\n%s", len(lines), stdout)
	}
}

func TestCLIVersion(t *testing.T) {
	stdout, _, code := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "mcpres ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

// A path that is not valid UTF-8 is printed with U+FFFD, never by
// corrupting another member of the result object.
func TestCLIInvalidUTF8Path(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad-\xff.json")
	if err := os.WriteFile(name, []byte(`{`), 0o644); err != nil {
		t.Skipf("file system refuses non-UTF-8 names: %v", err)
	}
	missing := filepath.Join(dir, "missing-\xff.json") // the OS error quotes the path
	for _, args := range [][]string{{"validate", name}, {"validate", "--with-file", name}, {"validate", missing}} {
		stdout, _, code := runCLI(t, args...)
		v, err := canonjson.Parse([]byte(stdout))
		if code != exitInput || err != nil || v.Get("valid").Kind != canonjson.Bool || v.Get("valid").Bool {
			t.Errorf("%v: exit %d, %s (%v)", args, code, stdout, err)
		}
		if args[1] == "--with-file" && !strings.Contains(v.Get("file").Str, "bad-\uFFFD.json") {
			t.Errorf("file member = %q", v.Get("file").Str)
		}
	}
}
