package termsafe

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// mustEscape is the rule written from Unicode's own tables rather than
// from the package's switch: the controls (Cc) but newline and tab, the
// Bidi_Control characters, and the line and paragraph separators (Zl, Zp).
func mustEscape(r rune) bool {
	return (unicode.Is(unicode.Cc, r) && r != '\n' && r != '\t') ||
		unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}

// checkSafe fails when out holds anything the rule escapes.
func checkSafe(t *testing.T, in, out string, line bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("escaping %q gave invalid UTF-8 %q", in, out)
	}
	for _, r := range out {
		if mustEscape(r) || (line && (r == '\n' || r == '\t')) {
			t.Fatalf("escaping %q left %U raw: %q", in, r, out)
		}
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want, line string }{
		// Honest text is kept: lines, tabs, accents, CJK, emoji, backslashes.
		{"plain", "plain", "plain"},
		{"a\tb\nc", "a\tb\nc", `a\u0009b\u000ac`},
		{"é 漢字 🙂", "é 漢字 🙂", "é 漢字 🙂"},
		{`C:\dir\x1b`, `C:\dir\x1b`, `C:\dir\x1b`},
		// Terminal escapes, carriage return, DEL.
		{"\x1b[2Jgone", `\u001b[2Jgone`, `\u001b[2Jgone`},
		{"VALID\rINVALID", `VALID\u000dINVALID`, `VALID\u000dINVALID`},
		{"\x00\x07\x08\x7f", `\u0000\u0007\u0008\u007f`, `\u0000\u0007\u0008\u007f`},
		{"\x1b]0;title\x07", `\u001b]0;title\u0007`, `\u001b]0;title\u0007`},
		// C1: NEL, CSI.
		{"a\u0085b\u009b2J", `a\u0085b\u009b2J`, `a\u0085b\u009b2J`},
		// Bidirectional formatting and separators.
		{"evil\u202etxt.exe", `evil\u202etxt.exe`, `evil\u202etxt.exe`},
		{"\u2066x\u2069\u200e\u200f\u061c", `\u2066x\u2069\u200e\u200f\u061c`, `\u2066x\u2069\u200e\u200f\u061c`},
		{"a\u2028b\u2029", `a\u2028b\u2029`, `a\u2028b\u2029`},
		// Invalid UTF-8: each byte.
		{"a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
		{"\xed\xa0\x80", `\xed\xa0\x80`, `\xed\xa0\x80`}, // a surrogate
		// Characters near the escaped ones are kept.
		{"\u00a0\u061b\u200d\u2027\u202f\u2065\u206a", "\u00a0\u061b\u200d\u2027\u202f\u2065\u206a", "\u00a0\u061b\u200d\u2027\u202f\u2065\u206a"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := string(Append([]byte("x"), []byte(tc.in))); got != "x"+tc.want {
			t.Errorf("Append(%q) = %q, want %q", tc.in, got, "x"+tc.want)
		}
		checkSafe(t, tc.in, String(tc.in), false)
		checkSafe(t, tc.in, Line(tc.in), true)
	}
}

// TestEveryCharacter holds the rule to Unicode's tables for every code
// point: escaped exactly when a control, a bidirectional control or a
// separator, as \u and its four hex digits; kept as it is otherwise.
func TestEveryCharacter(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // not encodable in UTF-8
		}
		s := string(r)
		want := s
		if mustEscape(r) {
			want = `\u` + strings.Repeat("0", 4-len(hex(r))) + hex(r)
		}
		if got := String(s); got != want {
			t.Fatalf("String(%U) = %q, want %q", r, got, want)
		}
	}
}

func hex(r rune) string {
	const digits = "0123456789abcdef"
	var b []byte
	for ; r > 0; r >>= 4 {
		b = append([]byte{digits[r&0xf]}, b...)
	}
	return string(b)
}

// TestFixedPoint: what the rule writes passes through it unchanged, so a
// companion's stderr relayed by mcpres is escaped once.
func TestFixedPoint(t *testing.T) {
	for _, s := range []string{"\x1b[2J\r\u202e\u0085\xff", `\u001b already`, "é\n\t漢"} {
		once := String(s)
		if twice := String(once); twice != once {
			t.Errorf("String(String(%q)) = %q, not %q", s, twice, once)
		}
	}
	if inner := NewWriter(&bytes.Buffer{}); NewWriter(inner) != inner {
		t.Error("NewWriter of a Writer wrapped it again")
	}
}

// hostile holds every kind of character the rule escapes, multi-byte
// ones among honest multi-byte text, so that every split of it across
// Write calls cuts some character.
const hostile = "ok é\x1b[2J\r漢\u202e\u0085字\xff🙂\xe2\x80\n\tend\u2069"

func TestWriterSplits(t *testing.T) {
	want := String(hostile)
	// Every split in two, and one byte at a time.
	for cut := 0; cut <= len(hostile); cut++ {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Write([]byte(hostile[:cut]))
		w.Write([]byte(hostile[cut:]))
		w.Flush()
		if buf.String() != want {
			t.Fatalf("split at %d: wrote %q, want %q", cut, buf.String(), want)
		}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range len(hostile) {
		if n, err := w.Write([]byte{hostile[i]}); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	w.Flush()
	if buf.String() != want {
		t.Fatalf("byte by byte: wrote %q, want %q", buf.String(), want)
	}
}

// TestWriterFlush: an incomplete character at the end is held until Flush
// writes it as the invalid bytes it is; a complete one is never held.
func TestWriterFlush(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write([]byte("a\xe6\xbc"))
	if buf.String() != "a" {
		t.Fatalf("before Flush: %q", buf.String())
	}
	w.Flush()
	if buf.String() != `a\xe6\xbc` {
		t.Fatalf("after Flush: %q", buf.String())
	}
	buf.Reset()
	w.Write([]byte("漢"))
	if buf.String() != "漢" {
		t.Fatalf("a whole character was held: %q", buf.String())
	}
	// An invalid start byte is no beginning of a character: not held.
	buf.Reset()
	w.Write([]byte("b\xff"))
	if buf.String() != `b\xff` {
		t.Fatalf("invalid byte: %q", buf.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterError(t *testing.T) {
	w := NewWriter(failWriter{})
	if n, err := w.Write([]byte("x\x1b")); n != 0 || err == nil {
		t.Errorf("Write to a failing writer = %d, %v", n, err)
	}
}

// TestJSONThroughWriter: JSON written through a Writer is JSON with the
// same value (encoding/json writes C1 and bidirectional characters raw).
func TestJSONThroughWriter(t *testing.T) {
	in := map[string]string{"name": "a\u0085b\u202ec\x7fd\u2066é漢\x1b[2J\r", `k\u0085`: "\\u202e"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.ContainsRune(raw, 0x202e) || !bytes.ContainsRune(raw, 0x85) {
		t.Fatalf("encoding/json escaped the test's characters itself: %s", raw)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write(raw)
	checkSafe(t, string(raw), buf.String(), false)
	var out map[string]string
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatalf("not JSON after the Writer: %v: %s", err, buf.Bytes())
	}
	for k, v := range in {
		if out[k] != v {
			t.Errorf("%q: %q after the Writer, want %q", k, out[k], v)
		}
	}
}

func TestUnwrap(t *testing.T) {
	var buf bytes.Buffer
	if Unwrap(NewWriter(&buf)) != &buf {
		t.Error("Unwrap of a Writer is not the writer under it")
	}
	if Unwrap(&buf) != &buf {
		t.Error("Unwrap of another writer is not that writer")
	}
}
