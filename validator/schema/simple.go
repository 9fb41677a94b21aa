package schema

import "strings"

// A simplePattern is an anchored sequence of quantified ASCII character
// sets, ^ a1{min,max} a2{min,max} … $, matched greedily byte by byte.
//
// Greedy matching is exact (no backtracking is ever needed) because
// parseSimplePattern accepts a pattern only if, for every atom whose count
// may vary, its set is disjoint from every set that can supply the next
// character (the following atoms up to and including the first mandatory
// one). Then any accepting match must give each atom exactly as many
// characters as greedy does. Counting bytes is counting code points: every
// matched byte is ASCII, and a byte ≥ 0x80 is in no set.
//
// All identifier patterns of REFERENCE §3 have this form; it avoids RE2's
// cost of compiling counted repetitions such as {0,255} and matches a
// sha256 in a few nanoseconds.
type simplePattern struct {
	atoms []atom
}

type atom struct {
	set      asciiSet
	min, max int // max < 0: unbounded
	// in is set as a table: the matcher's inner loop is one load a byte.
	in *[256]bool
}

// asciiSet is a bitmap of ASCII bytes.
type asciiSet [2]uint64

func (a *asciiSet) add(c byte)           { a[c>>6] |= 1 << (c & 63) }
func (a asciiSet) has(c byte) bool       { return c < 0x80 && a[c>>6]&(1<<(c&63)) != 0 }
func (a asciiSet) meets(b asciiSet) bool { return a[0]&b[0] != 0 || a[1]&b[1] != 0 }

func (p *simplePattern) MatchString(s string) bool {
	pos := 0
	for i := range p.atoms {
		a := &p.atoms[i]
		run := s[pos:]
		if a.max >= 0 && a.max < len(run) {
			run = run[:a.max]
		}
		in, n := a.in, 0
		// Eight bytes a step while they are all in the set (digests
		// are 64), then one at a time.
		for ; n+8 <= len(run); n += 8 {
			w := run[n : n+8]
			if !(in[w[0]] && in[w[1]] && in[w[2]] && in[w[3]] && in[w[4]] && in[w[5]] && in[w[6]] && in[w[7]]) {
				break
			}
		}
		for n < len(run) && in[run[n]] {
			n++
		}
		if n < a.min {
			return false
		}
		pos += n
	}
	return pos == len(s)
}

// table returns set as a byte table.
func (a asciiSet) table() *[256]bool {
	var t [256]bool
	for c := range 256 {
		t[c] = a.has(byte(c))
	}
	return &t
}

// parseSimplePattern recognizes the simplePattern subset of ECMAScript
// syntax: "^", then atoms — an ASCII literal (letters, digits, or escaped or
// harmless punctuation), \d, or a non-negated class of those and ranges —
// each optionally followed by {n}, {n,}, {n,m}, +, * or ?, then "$".
// Anything else, or an ambiguous sequence, returns false and goes to RE2.
func parseSimplePattern(src string) (*simplePattern, bool) {
	body, ok := strings.CutPrefix(src, "^")
	if !ok {
		return nil, false
	}
	body, ok = strings.CutSuffix(body, "$")
	if !ok || strings.HasSuffix(body, `\`) {
		return nil, false
	}
	var p simplePattern
	for i := 0; i < len(body); {
		set, n, ok := parseAtom(body[i:])
		if !ok {
			return nil, false
		}
		i += n
		lo, hi, n, ok := parseQuantifier(body[i:])
		if !ok {
			return nil, false
		}
		i += n
		if n > 0 && i < len(body) && strings.IndexByte("?+*{", body[i]) >= 0 {
			return nil, false // lazy or stacked quantifier
		}
		p.atoms = append(p.atoms, atom{set: set, min: lo, max: hi, in: set.table()})
	}
	if !p.unambiguous() {
		return nil, false
	}
	return &p, true
}

func (p *simplePattern) unambiguous() bool {
	for i, a := range p.atoms {
		if a.min == a.max {
			continue
		}
		for _, next := range p.atoms[i+1:] {
			if a.set.meets(next.set) {
				return false
			}
			if next.min > 0 {
				break
			}
		}
	}
	return true
}

// parseAtom reads one literal, escape or class and returns its set and
// length.
func parseAtom(s string) (asciiSet, int, bool) {
	var set asciiSet
	switch c := s[0]; {
	case c == '[':
		return parseClass(s)
	case c == '\\':
		if len(s) < 2 {
			return set, 0, false
		}
		return escapeSet(s[1])
	case isLiteral(c):
		set.add(c)
		return set, 1, true
	}
	return set, 0, false
}

// parseClass reads a non-negated class of ASCII members and ranges.
func parseClass(s string) (asciiSet, int, bool) {
	var set asciiSet
	i := 1
	member := func() (byte, bool) {
		if i >= len(s) {
			return 0, false
		}
		c := s[i]
		if c == '\\' {
			if i+1 >= len(s) || !(isSyntaxChar(s[i+1]) || s[i+1] == '-') {
				return 0, false
			}
			i += 2
			return s[i-1], true
		}
		if c >= 0x80 || c == '[' || c == ']' {
			return 0, false
		}
		i++
		return c, true
	}
	if i < len(s) && (s[i] == '^' || s[i] == ']') {
		return set, 0, false
	}
	for i < len(s) && s[i] != ']' {
		if strings.HasPrefix(s[i:], `\d`) {
			set = digitSet(set)
			i += 2
			continue
		}
		lo, ok := member()
		if !ok {
			return set, 0, false
		}
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			i++
			hi, ok := member()
			if !ok || hi < lo {
				return set, 0, false
			}
			for c := lo; ; c++ {
				set.add(c)
				if c == hi {
					break
				}
			}
			continue
		}
		set.add(lo)
	}
	if i >= len(s) {
		return set, 0, false
	}
	return set, i + 1, true
}

func escapeSet(c byte) (asciiSet, int, bool) {
	var set asciiSet
	switch {
	case c == 'd':
		return digitSet(set), 2, true
	case isSyntaxChar(c):
		set.add(c)
		return set, 2, true
	}
	return set, 0, false
}

func digitSet(set asciiSet) asciiSet {
	for c := byte('0'); c <= '9'; c++ {
		set.add(c)
	}
	return set
}

// parseQuantifier reads an optional quantifier — +, *, ?, {n}, {n,} or
// {n,m}, counts in decimal with leading zeros allowed as in ECMAScript —
// and returns its bounds (hi < 0: unbounded) and length; (1, 1, 0) if none.
func parseQuantifier(s string) (lo, hi, n int, ok bool) {
	if s == "" {
		return 1, 1, 0, true
	}
	switch s[0] {
	case '+':
		lo, hi, n = 1, -1, 1
	case '*':
		lo, hi, n = 0, -1, 1
	case '?':
		lo, hi, n = 0, 1, 1
	case '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, 0, 0, false
		}
		var okLo, okHi bool
		first, second, comma := strings.Cut(s[1:end], ",")
		lo, okLo = smallInt(first)
		switch {
		case !comma:
			hi, okHi = lo, okLo
		case second == "":
			hi, okHi = -1, true
		default:
			hi, okHi = smallInt(second)
		}
		if !okLo || !okHi || hi >= 0 && hi < lo {
			return 0, 0, 0, false
		}
		n = end + 1
	default:
		return 1, 1, 0, true
	}
	return lo, hi, n, true
}

func smallInt(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

// isLiteral: printable ASCII that stands for itself outside a class.
func isLiteral(c byte) bool {
	return ' ' <= c && c < 0x7f && (c == '/' || !isSyntaxChar(c))
}

// isSyntaxChar: the characters ECMAScript (u flag) lets one escape outside
// a class; inside a class "-" may be escaped too.
func isSyntaxChar(c byte) bool { return strings.IndexByte(`^$\.*+?()[]{}|/`, c) >= 0 }
