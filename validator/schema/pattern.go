package schema

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
)

// ECMAScript classes that RE2 spells differently (REFERENCE §1.8).
const (
	// ecmaSpace is the content of the ECMAScript \s class (WhiteSpace and
	// LineTerminator); RE2's \s is ASCII only and lacks VT.
	ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
	// ecmaDot is ECMAScript "." with the u flag: any code point except the
	// line terminators LF, CR, U+2028 and U+2029. RE2's "." excludes only LF.
	ecmaDot = `[^\n\r\x{2028}\x{2029}]`
)

// A matcher tests a string against one compiled pattern.
type matcher interface {
	MatchString(s string) bool
}

// compilePattern compiles an ECMAScript (u-flag) regular expression as used
// by JSON Schema "pattern". Matching is a search, as in ECMAScript
// RegExp.prototype.test; "^" and "$" (no m flag) anchor the start and the
// very end of the string, so a trailing LF never satisfies "$".
//
// Patterns of the form ^ (char or ASCII class, quantified) … $ whose greedy
// reading is unambiguous — every MCP-RES identifier pattern — get a
// byte-level matcher (see simplePattern). Any other pattern is translated to
// RE2 (translatePattern), checked for syntax now and compiled on first use,
// so that loading never pays for patterns nobody matches.
func compilePattern(src string) (matcher, error) {
	if sp, ok := parseSimplePattern(src); ok {
		return sp, nil
	}
	tr, err := translatePattern(src)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", src, err)
	}
	if _, err := syntax.Parse(tr, syntax.Perl); err != nil {
		return nil, fmt.Errorf("pattern %q: %w", src, err)
	}
	return &lazyRegexp{src: tr}, nil
}

// lazyRegexp compiles its RE2 translation on first use. Syntax was checked
// at load, so a compile failure here is a bug in this package.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) MatchString(s string) bool {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re.MatchString(s)
}

// translatePattern rewrites an ECMAScript pattern into RE2 syntax.
// Translated: "." outside classes, \s and \S, \uXXXX and \u{X…}. Rejected,
// because RE2 cannot express them or gives them another meaning:
// backreferences, lookaround, named groups, inline flags, \c, \k, \A,
// \z, \Q and other letter escapes ECMAScript does not define, and the
// empty classes "[]" and "[^]".
func translatePattern(src string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			n, err := translateEscape(&b, src[i:], inClass)
			if err != nil {
				return "", err
			}
			i += n
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte('[')
			i++
			if i < len(src) && src[i] == '^' {
				b.WriteByte('^')
				i++
			}
			if i < len(src) && src[i] == ']' {
				return "", fmt.Errorf("empty class at offset %d is not supported", i)
			}
			continue
		case c == '[' && inClass:
			b.WriteString(`\[`) // literal in ECMAScript; RE2 would see [:class:]
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(']')
		case c == '.' && !inClass:
			b.WriteString(ecmaDot)
		case c == '{' && !inClass:
			// A quantifier; ECMAScript allows leading zeros ({01}), RE2
			// would read them as literal text.
			lo, hi, n, ok := parseQuantifier(src[i:])
			if !ok || n == 0 {
				return "", fmt.Errorf("bad quantifier at offset %d", i)
			}
			b.WriteString("{" + strconv.Itoa(lo))
			switch {
			case hi < 0:
				b.WriteString(",")
			case hi != lo || strings.Contains(src[i:i+n], ","):
				b.WriteString("," + strconv.Itoa(hi))
			}
			b.WriteString("}")
			i += n
			continue
		case c == '(' && !inClass && strings.HasPrefix(src[i:], "(?"):
			if !strings.HasPrefix(src[i:], "(?:") {
				return "", fmt.Errorf("group %q at offset %d is not supported", src[i:min(i+3, len(src))], i)
			}
			b.WriteString("(?:")
			i += 3
			continue
		default:
			b.WriteByte(c)
		}
		i++
	}
	if inClass {
		return "", fmt.Errorf("unterminated character class")
	}
	return b.String(), nil
}

// translateEscape writes the RE2 form of the escape at the start of s and
// returns how many bytes it consumed.
func translateEscape(b *strings.Builder, s string, inClass bool) (int, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("trailing backslash")
	}
	d := s[1]
	switch {
	case d == 's':
		if inClass {
			b.WriteString(ecmaSpace)
		} else {
			b.WriteString("[" + ecmaSpace + "]")
		}
		return 2, nil
	case d == 'S':
		if inClass {
			return 0, fmt.Errorf(`\S inside a class is not supported`)
		}
		b.WriteString("[^" + ecmaSpace + "]")
		return 2, nil
	case d == 'u':
		return translateUnicodeEscape(b, s)
	case strings.IndexByte("dDwWbBtnrfv", d) >= 0:
		if d == 'b' && inClass {
			b.WriteString(`\x08`) // backspace inside a class
			return 2, nil
		}
		b.WriteByte('\\')
		b.WriteByte(d)
		return 2, nil
	case d == 'p' || d == 'P':
		b.WriteByte('\\')
		b.WriteByte(d)
		return 2, nil
	case d == '0' && (len(s) == 2 || s[2] < '0' || s[2] > '9'):
		b.WriteString(`\x00`)
		return 2, nil
	case d < 0x80 && !isAlnum(d):
		b.WriteByte('\\')
		b.WriteByte(d)
		return 2, nil
	}
	return 0, fmt.Errorf("escape %q is not supported", s[:2])
}

func translateUnicodeEscape(b *strings.Builder, s string) (int, error) {
	var hex string
	var n int
	if strings.HasPrefix(s, `\u{`) {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, fmt.Errorf(`unterminated \u{…} escape`)
		}
		hex, n = s[3:end], end+1
	} else {
		if len(s) < 6 {
			return 0, fmt.Errorf(`short \u escape`)
		}
		hex, n = s[2:6], 6
	}
	var r rune
	for i := 0; i < len(hex); i++ {
		v := hexValue(hex[i])
		if v < 0 || len(hex) > 6 {
			return 0, fmt.Errorf("bad unicode escape %q", s[:n])
		}
		r = r<<4 | rune(v)
	}
	if hex == "" || r > 0x10FFFF || (0xD800 <= r && r <= 0xDFFF) {
		return 0, fmt.Errorf("unicode escape %q is not a scalar value", s[:n])
	}
	fmt.Fprintf(b, `\x{%x}`, r)
	return n, nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
