package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/termsafe"
)

// hostileText is what an attacker puts into a name, an identity or an
// error body: a screen clear, a carriage return that would overwrite the
// line with a lie, a right-to-left override, a C1 line break (NEL), and
// a newline followed by a line that passes for a result.
const hostileText = "\x1b[2J\rnothing was verified\u202e\u0085\nforged.json: VALID"

// hostileShown is how text output shows it within one line
// (internal/termsafe: the characters as their JSON escapes).
const hostileShown = `\u001b[2J\u000dnothing was verified\u202e\u0085\u000aforged.json: VALID`

// rawControl returns the first character of s that must never reach a
// terminal raw — a control other than newline and tab, a bidirectional
// control, a line or paragraph separator, a byte that is not UTF-8 —
// judged by Unicode's tables, not by internal/termsafe's own switch.
func rawControl(s string) (rune, bool) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return rune(s[i]), true
			}
		}
		if (unicode.Is(unicode.Cc, r) && r != '\n' && r != '\t') ||
			unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			return r, true
		}
	}
	return 0, false
}

func checkNoRawControl(t *testing.T, what, s string) {
	t.Helper()
	if r, bad := rawControl(s); bad {
		t.Errorf("%s holds %U raw:\n%q", what, r, s)
	}
}

// hostileEnv is an attested bundle signed with a hostile identity, saved
// under a hostile file name, alone in its folder; and an honest one
// under a name in plain UTF-8.
type hostileEnv struct {
	dir, file, honest string
}

func newHostileEnv(t *testing.T) *hostileEnv {
	t.Helper()
	d := t.TempDir()
	src := t.TempDir()
	key := writeTestKey(t, src, "one.key", attesttest.TestOnlyKeyOne())
	plain := exampleBundleFile(t, src)
	signed := filepath.Join(src, "signed.json")
	runExpect(t, exitValid, signArgs(plain, key, "ci"+hostileText, signed)...)
	data, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	e := &hostileEnv{dir: d}
	e.file = writeTestFile(t, d, "evil"+hostileText+".json", data, 0o644)
	e.honest = writeTestFile(t, t.TempDir(), "é 漢字.json", data, 0o644)
	return e
}

// TestCLIHostileTextOutput: a hostile file name and a hostile signer
// identity go through validate, attest verify and inspect in every
// format, and through an input that cannot be read: neither stdout nor
// stderr carries a control, bidirectional or separator character raw;
// text shows them as escapes on the line they belong to (no line is
// forged); JSON escapes them and still holds the exact values.
func TestCLIHostileTextOutput(t *testing.T) {
	e := newHostileEnv(t)
	at := "--evaluated-at=" + attesttest.EvaluatedAt
	missing := filepath.Join(e.dir, "missing"+hostileText+".json")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"validate json", []string{"validate", e.file}},
		{"validate json, folder", []string{"validate", e.dir}},
		{"validate text", []string{"validate", "--format", "text", e.file}},
		{"validate markdown", []string{"validate", "--format", "markdown", e.file}},
		{"attest verify json", []string{"attest", "verify", at, e.file}},
		{"attest verify json, folder", []string{"attest", "verify", at, e.dir}},
		{"attest verify text", []string{"attest", "verify", at, "--format", "text", e.file}},
		{"attest verify markdown", []string{"attest", "verify", at, "--format", "markdown", e.file}},
		{"inspect text", []string{"inspect", e.file}},
		{"inspect json", []string{"inspect", "--format", "json", e.file}},
		{"unreadable, text", []string{"attest", "verify", at, "--format", "text", missing}},
		{"unreadable, json", []string{"validate", missing}},
		{"unreadable, inspect", []string{"inspect", missing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code == exitInput && !strings.HasPrefix(tc.name, "unreadable") {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			checkNoRawControl(t, "stdout", stdout)
			checkNoRawControl(t, "stderr", stderr)
			for _, l := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(l, "forged") {
					t.Errorf("a hostile value wrote a line of its own:\n%s", stdout)
				}
			}
			switch {
			case strings.Contains(tc.name, "json"):
				if n := checkJSONLines(t, stdout); n == 0 && !strings.HasPrefix(tc.name, "unreadable") {
					t.Errorf("no signer identity in the JSON to compare:\n%s", stdout)
				}
			case strings.Contains(tc.name, "markdown"):
				// A cell is one line anyway (mdCell makes white space,
				// CR and NEL among it, one space); the rest is escaped.
				if !strings.Contains(stdout, `\u001b[2J nothing was verified\u202e forged.json: VALID`) {
					t.Errorf("markdown does not show the name escaped:\n%s", stdout)
				}
			default:
				if !strings.Contains(stdout, hostileShown) {
					t.Errorf("text does not show the name escaped on its line:\n%s", stdout)
				}
			}
		})
	}
}

// checkJSONLines: every stdout line is a JSON object whose "file" (when
// there is one) is the hostile path and whose signer identities (when
// there are any) are the hostile identity, exactly; it returns how many
// identities it compared.
func checkJSONLines(t *testing.T, stdout string) int {
	t.Helper()
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		v, err := canonjson.Parse([]byte(l))
		if err != nil {
			t.Fatalf("not a JSON line: %v\n%s", err, l)
		}
		if f := v.Get("file"); f != nil && !strings.Contains(f.Str, hostileText) {
			t.Errorf("file %q, want the hostile path", f.Str)
		}
		envs := v.Path("evaluation", "envelopes")
		if envs == nil {
			envs = v.Path("attestation", "envelopes") // inspect
		}
		if envs == nil {
			continue
		}
		for _, env := range envs.Items {
			if got := env.Get("signerIdentity").Str; got != "ci"+hostileText {
				t.Errorf("signerIdentity %q, want %q", got, "ci"+hostileText)
			}
			n++
		}
	}
	return n
}

// TestCLIHonestTextOutput is the control: plain UTF-8 (accents, CJK) is
// shown as it is, and text keeps its own lines.
func TestCLIHonestTextOutput(t *testing.T) {
	e := newHostileEnv(t)
	at := "--evaluated-at=" + attesttest.EvaluatedAt
	stdout, _, _ := runCLI(t, "attest", "verify", at, "--format", "text", e.honest)
	if !strings.HasPrefix(stdout, e.honest+": VALID") || strings.Count(stdout, "\n") < 3 || strings.Contains(stdout, `\u000a`) {
		t.Errorf("honest text changed:\n%s", stdout)
	}
	stdout, _, _ = runCLI(t, "inspect", e.honest)
	if !strings.HasPrefix(stdout, e.honest+": ") || !strings.Contains(stdout, "\n  nothing was verified") {
		t.Errorf("honest inspect changed:\n%s", stdout)
	}
	stdout, _, _ = runCLI(t, "validate", "--with-file", e.honest)
	if !strings.Contains(stdout, `"file":"`+e.honest+`"`) {
		t.Errorf("honest JSON changed:\n%s", stdout)
	}
}

// TestCLIDocumentOnStdoutUnchanged: a document written to standard
// output (-o -) is data: its bytes are the file's, C1 and bidirectional
// characters raw in its strings, never escaped for a terminal.
func TestCLIDocumentOnStdoutUnchanged(t *testing.T) {
	src := t.TempDir()
	key := writeTestKey(t, src, "one.key", attesttest.TestOnlyKeyOne())
	plain := exampleBundleFile(t, src)
	identity := "ci\u202e\u0085"
	file := filepath.Join(src, "signed.json")
	runExpect(t, exitValid, signArgs(plain, key, identity, file)...)
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, signArgs(plain, key, identity, "-")...)
	if code != exitValid || stdout != string(want) {
		t.Fatalf("attest sign -o -: exit %d, stdout differs from the file (%d bytes, %d)\n%s", code, len(stdout), len(want), stderr)
	}
	if !strings.Contains(stdout, "\u202e\u0085") {
		t.Fatalf("the document does not hold the identity raw, as canonical JSON writes it")
	}
}

// TestCLILogAddServerErrorBody: a log server whose refusal carries
// terminal escapes in its body: the error on stderr shows them escaped.
func TestCLILogAddServerErrorBody(t *testing.T) {
	e := newLogEnv(t)
	b := exampleBundleFile(t, e.dir)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte("refused" + hostileText))
	}))
	defer srv.Close()
	stdout, stderr, code := runCLI(t, "log", "add", "--server", srv.URL, "--log-key", e.p("log.vkey"), b, "-o", e.p("ref.json"))
	if code != exitInput || !strings.Contains(stderr, "HTTP 400") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	checkNoRawControl(t, "stdout", stdout)
	checkNoRawControl(t, "stderr", stderr)
	if !strings.Contains(stderr, `refused\u001b[2J\u000dnothing was verified\u202e\u0085`) {
		t.Errorf("stderr does not show the body escaped:\n%q", stderr)
	}
}

// TestCLIProgressThroughTermsafe: with the streams wrapped as run wraps
// them, the progress counter still reaches the terminal with its own CR
// and ESC [K (not escaped into text), and is erased from the screen.
func TestCLIProgressThroughTermsafe(t *testing.T) {
	dir := t.TempDir()
	const n = 5
	for i := range n {
		copyFixture(t, dir, "witnessed.json", fmt.Sprintf("b%02d.json", i))
	}
	scr := &screen{}
	a := &app{stdin: strings.NewReader(""), stdout: termsafe.NewWriter(scr), stderr: termsafe.NewWriter(scr),
		isTerminal: func(w io.Writer) bool { return w == io.Writer(scr) }}
	if code := a.execute([]string{"validate", "--format", "text", dir}); code == exitInput {
		t.Fatalf("exit %d: %q", code, scr.raw.String())
	}
	raw := scr.raw.String()
	if !strings.Contains(raw, "\r\x1b[Kmcpres: 5/5") || strings.Contains(raw, `\u001b`) || strings.Contains(raw, `\u000d`) {
		t.Errorf("the counter did not reach the terminal as control sequences: %q", raw)
	}
	for _, l := range scr.done {
		if strings.Contains(l, "/5") {
			t.Errorf("a line carries progress text: %q", l)
		}
	}
	if len(scr.line) != 0 {
		t.Errorf("the counter is left on the screen: %q", string(scr.line))
	}
}
