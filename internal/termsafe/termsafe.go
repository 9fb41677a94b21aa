// Package termsafe makes untrusted text safe to show on a terminal: every
// text output of every mcpres binary goes through it, so that a string
// read from an input, a registry, a log server or a helper process (an
// identity, a subject name, a checkpoint origin, an annotation, a file
// name, an error body) can neither drive the terminal nor pass for text
// the program wrote.
//
// # The rule
//
// These are escaped wherever they occur:
//
//   - the C0 controls U+0000–U+001F except newline and tab (carriage
//     return included: it would let a string overwrite the line it is on),
//     and DEL U+007F;
//   - the C1 controls U+0080–U+009F (U+009B is a one-byte CSI, U+0085 a
//     line break);
//   - the bidirectional formatting characters, which reorder what a line
//     shows: U+061C, U+200E, U+200F, U+202A–U+202E (embeddings and
//     overrides) and U+2066–U+2069 (isolates);
//   - the line and paragraph separators U+2028 and U+2029;
//   - every byte that is not part of valid UTF-8.
//
// ESC (U+001B) is a C0 control, so no escape sequence (CSI, OSC, a
// terminal's title or clipboard) survives. A character is written as its
// JSON escape, a backslash, u and four lowercase hex digits (ESC is
// \u001b, U+202E is \u202e); an invalid byte as \x and two hex digits
// (\xff). Everything else, plain UTF-8 such as é or 漢字 included, is
// kept. [Line] also escapes newline and tab (\u000a, \u0009), for a value
// that must stay on its line; [String] and [Writer] keep them, for text
// that has lines of its own.
//
// The backslash itself is not escaped: honest text (a Windows path, a
// pattern in a diagnostic) reads as it was written, and the output of the
// rule is a fixed point of it, so text that passes through twice (a
// companion's stderr relayed by mcpres) is escaped once. The price is that
// the rendering is not injective: a string holding the six characters
// \u001b reads like one holding ESC. What the rule guarantees is that no
// control or reordering character reaches the terminal, never that two
// strings read differently; where an exact value matters the JSON output
// is exact.
//
// # JSON
//
// JSON text escapes the C0 controls already, and a C1, bidirectional or
// separator character is written in a JSON string as the same \uXXXX
// escape this package uses, so JSON written through a [Writer] is still
// JSON, with the same value, that a terminal shows safely. That is how
// result lines are printed; documents written to standard output (-o -:
// an attested bundle, canonical bytes, a report) are data, not text, and
// never go through this package.
package termsafe

import (
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// escaped reports whether the rule escapes the character r (valid UTF-8,
// not an invalid byte); line says whether newline and tab are escaped too.
func escaped(r rune, line bool) bool {
	switch {
	case r < 0x20:
		return line || (r != '\n' && r != '\t')
	case r < 0x7f:
		return false
	case r <= 0x9f: // DEL and the C1 controls
		return true
	case r < 0x061c:
		return false
	}
	switch r {
	case 0x061c, 0x200e, 0x200f, 0x2028, 0x2029,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x2066, 0x2067, 0x2068, 0x2069:
		return true
	}
	return false
}

// clean returns the length of the longest prefix of s that the rule
// leaves as it is.
func clean[T string | []byte](s T, line bool, decode func(T) (rune, int)) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			if escaped(rune(c), line) {
				return i
			}
			i++
			continue
		}
		r, size := decode(s[i:])
		if (r == utf8.RuneError && size == 1) || escaped(r, line) {
			return i
		}
		i += size
	}
	return i
}

// appendEscaped appends s to dst under the rule.
func appendEscaped[T string | []byte](dst []byte, s T, line bool, decode func(T) (rune, int)) []byte {
	for len(s) > 0 {
		n := clean(s, line, decode)
		dst = append(dst, s[:n]...)
		if n == len(s) {
			break
		}
		s = s[n:]
		r, size := decode(s)
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, '\\', 'x', hexDigits[s[0]>>4], hexDigits[s[0]&0xf])
		} else {
			dst = append(dst, '\\', 'u',
				hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		}
		s = s[size:]
	}
	return dst
}

// String returns s with every character of the rule escaped (see the
// package documentation); newline and tab are kept. A string with nothing
// to escape is returned as it is.
func String(s string) string {
	return str(s, false)
}

// Line is [String] for a value shown within one line (an identity, a
// name, a file name in a one-line result, a rendered result line):
// newline and tab are escaped too, so the value cannot start a line of its
// own that passes for the program's.
func Line(s string) string {
	return str(s, true)
}

func str(s string, line bool) string {
	n := clean(s, line, utf8.DecodeRuneInString)
	if n == len(s) {
		return s
	}
	dst := make([]byte, 0, len(s)+16)
	return string(appendEscaped(dst, s, line, utf8.DecodeRuneInString))
}

// Append appends p to dst under the rule of [String].
func Append(dst, p []byte) []byte {
	return appendEscaped(dst, p, false, utf8.DecodeRune)
}
