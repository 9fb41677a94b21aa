package trustpolicy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpres/mcpres/internal/truncate"
)

// Limits of a signer's subjects (see [ParseScope]).
const (
	// MaxScopes is the most subject patterns one signer may carry.
	MaxScopes = 32
	// MaxScopeLength is the longest pattern, in characters: the longest
	// subject name (evidence.subject.name, 128 characters).
	MaxScopeLength = 128
)

// A Scope is a parsed subject-name pattern: what a signer's "subjects"
// entry says it may vouch for.
//
// # Pattern language
//
// A pattern is matched against the whole subject name
// (evidence.subject.name), byte for byte and case-sensitively. Every
// character stands for itself except "*", which stands for any run of
// characters, possibly empty, that contains no "/": a "*" never matches
// across a "/", so "io.github.acme/*" matches "io.github.acme/server" and
// not "io.github.acme/team/server" (nor "io.github.acme.evil/x"). There is
// no other wildcard and no escape.
//
// Patterns that could match more than their author meant are refused when
// a policy loads: an empty pattern, one holding white space or a control
// character, "**" (no pattern crosses "/"), and one with no character
// other than "*" and "/" ("*", "*/*": they name no subject at all). A
// pattern is at most [MaxScopeLength] characters of valid UTF-8, and a
// signer has 1 to [MaxScopes] distinct patterns; a signer without
// "subjects" is trusted for every subject.
type Scope struct {
	pattern string
	// segments are the pattern split at "/"; each is matched against the
	// name's segment at the same position.
	segments []string
}

// ParseScope checks pattern against the rules of [Scope] and returns it
// parsed; the error says which rule it breaks.
func ParseScope(pattern string) (Scope, error) {
	fail := func(format string, args ...any) (Scope, error) {
		return Scope{}, fmt.Errorf("subject pattern %q: "+format, append([]any{truncate.String(pattern, 80)}, args...)...)
	}
	switch {
	case pattern == "":
		return fail("empty: leave subjects out to trust the signer for any subject")
	case !utf8.ValidString(pattern):
		return fail("not valid UTF-8")
	case utf8.RuneCountInString(pattern) > MaxScopeLength:
		return fail("%d characters, more than %d (the longest subject name)", utf8.RuneCountInString(pattern), MaxScopeLength)
	case strings.IndexFunc(pattern, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fail("holds white space or a control character")
	case strings.Contains(pattern, "**"):
		return fail(`"**" is not taken: "*" never matches across "/", and no pattern does`)
	case strings.Trim(pattern, "*/") == "":
		return fail(`no character other than "*" and "/": it would match whatever the subject, so name the subjects (or leave subjects out)`)
	}
	return Scope{pattern: pattern, segments: strings.Split(pattern, "/")}, nil
}

// String returns the pattern as written.
func (s Scope) String() string { return s.pattern }

// Match reports whether the subject name matches the pattern (see
// [Scope]). The zero Scope matches nothing.
func (s Scope) Match(name string) bool {
	if len(s.segments) == 0 {
		return false
	}
	n := 0
	for rest := name; ; n++ {
		seg, after, found := strings.Cut(rest, "/")
		if n >= len(s.segments) || !matchSegment(s.segments[n], seg) {
			return false
		}
		if !found {
			break
		}
		rest = after
	}
	return n == len(s.segments)-1
}

// matchSegment matches one segment of a pattern (literal bytes and "*",
// any run of bytes; neither holds "/") against one segment of a name: the
// classic linear-space backtracking glob, which only ever backtracks to
// the last "*".
func matchSegment(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			mark++
			pi, si = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchAny reports whether one of scopes matches name.
func matchAny(scopes []Scope, name string) bool {
	for _, s := range scopes {
		if s.Match(name) {
			return true
		}
	}
	return false
}
