package termsafe

import (
	"bytes"
	"testing"
)

// FuzzSanitise: whatever the input, String and Line write valid UTF-8
// with nothing the rule escapes, honest text is unchanged, the rule is a
// fixed point, and a Writer fed the input in two pieces writes what
// String does.
func FuzzSanitise(f *testing.F) {
	for _, s := range []string{"", "plain", hostile, "\x1b[2J\x1b]52;c;aGk=\x07", "a\r\nb", "\xf0\x9f\x99", "\u202e\u2066\u0085\x9b", `\u001b`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		out := String(s)
		checkSafe(t, s, out, false)
		line := Line(s)
		checkSafe(t, s, line, true)
		if String(out) != out || Line(line) != line || Line(out) != line {
			t.Fatalf("not a fixed point: %q -> %q, %q", s, out, line)
		}
		honest := true
		for _, r := range s {
			if r == 0xfffd || mustEscape(r) {
				honest = false
			}
		}
		if honest && out != s {
			t.Fatalf("honest text changed: %q -> %q", s, out)
		}
		if cut < 0 {
			cut = -cut
		}
		if len(s) > 0 {
			cut %= len(s) + 1
		} else {
			cut = 0
		}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Write([]byte(s[:cut]))
		w.Write([]byte(s[cut:]))
		w.Flush()
		if buf.String() != out {
			t.Fatalf("Writer split at %d wrote %q, String %q", cut, buf.String(), out)
		}
	})
}
