package schema

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestCheckURI(t *testing.T) {
	valid := []struct{ name, uri string }{
		{"https with path query fragment", "https://example.com/a/b?c=d&e=f#frag"},
		{"upstream repository", "https://github.com/aliengineering-byte/resilireplay"},
		{"urn", "urn:isbn:0451450523"},
		{"mailto", "mailto:someone@example.com"},
		{"scheme with + - .", "git+ssh.v-2://host/path"},
		{"empty authority", "file:///etc/hosts"},
		{"empty path", "https://example.com"},
		{"path-empty", "about:"},
		{"path-absolute", "x:/a/b"},
		{"userinfo and port", "https://user:pass@example.com:8443/"},
		{"empty port", "https://example.com:/"},
		{"IPv4 host", "http://192.168.0.1/"},
		{"IPv6 loopback", "http://[::1]:8080/"},
		{"IPv6 full", "http://[2001:db8:0:0:1:0:0:1]/"},
		{"IPv6 with IPv4 tail", "http://[::ffff:192.0.2.128]/"},
		{"IPv6 unspecified", "http://[::]/"},
		{"IPvFuture", "http://[v1.fe80::a+en1]/"},
		{"percent-encoding", "https://example.com/%E2%82%AC?q=%20#%7e"},
		{"sub-delims everywhere", "x://a!$&'()*+,;=b/c!$&'()*+,;=:@?d/?#e/?"},
		{"fragment with ? and /", "https://example.com/#a?b/c"},
		{"upper-case scheme", "HTTPS://EXAMPLE.COM/"},
	}
	for _, tt := range valid {
		t.Run("valid "+tt.name, func(t *testing.T) {
			if reason := checkURI(tt.uri); reason != "" {
				t.Errorf("checkURI(%q) = %q, want valid", tt.uri, reason)
			}
		})
	}
	invalid := []struct{ name, uri, reason string }{
		{"empty", "", "must start with a scheme"},
		{"relative reference", "//example.com/a", "must start with a scheme"},
		{"relative path", "a/b", "missing \":\""},
		{"digit first in scheme", "1http://x", "must start with a scheme"},
		{"bad scheme character", "ht_tp://x", "bad character in the scheme"},
		{"space in path", "https://example.com/a b", "in the path"},
		{"space in query", "https://example.com/?a b", "in the query"},
		{"second # in fragment", "https://example.com/#a#b", "in the fragment"},
		{"non-ASCII path", "https://example.com/é", "in the path"},
		{"non-ASCII host", "https://exämple.com/", "in the host"},
		{"backslash", `https://example.com\a`, "in the host"},
		{"angle bracket", "https://example.com/<a>", "in the path"},
		{"bad percent-encoding", "https://example.com/%zz", "in the path"},
		{"truncated percent-encoding", "https://example.com/%4", "in the path"},
		{"non-digit port", "https://example.com:80a/", "port must be digits"},
		{"two colons in host", "https://a:b:80/", "in the host"},
		{"two @", "https://a@b@c/", "in the host"},
		{"unterminated IPv6", "http://[::1/", "unterminated IP literal"},
		{"IPv6 too many groups", "http://[1:2:3:4:5:6:7:8:9]/", "bad IP literal"},
		{"IPv6 too few groups", "http://[1:2:3]/", "bad IP literal"},
		{"IPv6 two ::", "http://[1::2::3]/", "bad IP literal"},
		{"IPv6 group too long", "http://[12345::]/", "bad IP literal"},
		{"IPv6 zone", "http://[fe80::1%25eth0]/", "bad IP literal"},
		{"IPv6 :: covering nothing", "http://[1:2:3:4:5:6:7::8]/", "bad IP literal"},
		{"IPv4 tail leading zero", "http://[::ffff:192.0.2.01]/", "bad IP literal"},
		{"IPv4 tail out of range", "http://[::ffff:192.0.2.256]/", "bad IP literal"},
		{"junk after IP literal", "http://[::1]x/", "after the IP literal"},
		{"bad IPvFuture", "http://[v.x]/", "bad IP literal"},
		{"trailing LF", "https://example.com/\n", "in the path"},
		{"scheme alone", "https", "missing \":\" after the scheme"},
		{"space in userinfo", "https://us er@example.com/", "in the userinfo"},
		{"bad percent-encoding in userinfo", "https://a%zz@example.com/", "in the userinfo"},
		{"IPv4 tail of three octets", "http://[::ffff:192.0.2]/", "bad IP literal"},
		{"IPv4 tail with a letter", "http://[::ffff:192.0.a.1]/", "bad IP literal"},
	}
	for _, tt := range invalid {
		t.Run("invalid "+tt.name, func(t *testing.T) {
			reason := checkURI(tt.uri)
			if reason == "" || !strings.Contains(reason, tt.reason) {
				t.Errorf("checkURI(%q) = %q, want a reason containing %q", tt.uri, reason, tt.reason)
			}
		})
	}
}

func TestTranslatePattern(t *testing.T) {
	tests := []struct{ in, want string }{
		{`^[a-f0-9]{64}$`, `^[a-f0-9]{64}$`},
		{`^.{1,192}:.{1,192}$`, `^` + ecmaDot + `{1,192}:` + ecmaDot + `{1,192}$`},
		{`^[.]$`, `^[.]$`},
		{`^a\.b$`, `^a\.b$`},
		{`\s`, `[` + ecmaSpace + `]`},
		{`[\s\d]`, `[` + ecmaSpace + `\d]`},
		{`\S`, `[^` + ecmaSpace + `]`},
		{`\u00e9\u{1F600}`, `\x{e9}\x{1f600}`},
		{`[\b]`, `[\x08]`},
		{`\0`, `\x00`},
		{`[[]`, `[\[]`},
		{`(?:ab)+`, `(?:ab)+`},
		{`[^\]]`, `[^\]]`},
		{`^0{01}$`, `^0{1}$`},
		{`a{2,}b{03,004}?`, `a{2,}b{3,4}?`},
		{`a{2,2}`, `a{2,2}`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := translatePattern(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("translatePattern(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			if _, err := compilePattern(tt.in); err != nil {
				t.Errorf("compilePattern(%q): %v", tt.in, err)
			}
		})
	}
}

// TestPatternAnchors checks the RE2 assumption behind §1.8 — without (?m),
// "$" matches only at the very end of the text and "^" only at its start —
// and that the byte-level matcher agrees.
func TestPatternAnchors(t *testing.T) {
	src := `^[a-f0-9]{64}$`
	tr, err := translatePattern(src)
	if err != nil {
		t.Fatal(err)
	}
	simple, ok := parseSimplePattern(src)
	if !ok {
		t.Fatal("sha256 pattern should take the byte-level matcher")
	}
	for name, m := range map[string]matcher{"RE2": regexp.MustCompile(tr), "simple": simple} {
		for _, s := range []string{hex64 + "\n", hex64 + "\r\n", "\n" + hex64, hex64 + "\u2028", hex64 + hex64[:1]} {
			if m.MatchString(s) {
				t.Errorf("%s: %q matched", name, s)
			}
		}
		if !m.MatchString(hex64) {
			t.Errorf("%s: control did not match", name)
		}
	}
}

// schemaPatterns are the patterns of REFERENCE §3 (and §3.4's checkRef).
var schemaPatterns = []string{
	`^[a-f0-9]{64}$`,
	`^[a-f0-9]{40}$`,
	`^[A-Za-z0-9][A-Za-z0-9._/-]{0,255}$`,
	`^mcp-res/[a-z0-9-]+/v[1-9][0-9]*$`,
	`^[1-9][0-9]*\.[0-9]+\.[0-9]+$`,
	`^[A-Za-z0-9._:-]{8,128}$`,
	`^[A-Z][A-Z0-9_]{2,95}$`,
	`^obs-[A-Za-z0-9._:-]+$`,
	`^[a-z0-9][a-z0-9-]{1,95}$`,
	`^.{1,192}:.{1,192}$`,
}

func TestSimplePatternSelection(t *testing.T) {
	simple := append(schemaPatterns[:9:9],
		`^a?b?c?$`, `^[\d]+x$`, `^\d{3}-\d{4}$`, `^[\-\]]*$`, `^$`, `^a{2,}$`, `^ab$`, `^[a-c]*[d-f]?[g]$`)
	for _, p := range simple {
		if _, ok := parseSimplePattern(p); !ok {
			t.Errorf("%q should take the byte-level matcher", p)
		}
	}
	for _, p := range []string{
		`^.{1,192}:.{1,192}$`, // "." is not ASCII-only
		`^[a-z]*[a-c]$`,       // ambiguous: greedy would over-consume
		`^a?a$`,               // ambiguous
		`^[a-z]*[0-9]?[a-c]$`, // ambiguous through an optional atom
		`abc`,                 // unanchored
		`^abc`,                // no end anchor
		`^abc\$`,              // escaped end
		`^[^a]$`,              // negated class
		`^é$`,                 // non-ASCII
		`^\s$`,                // not ASCII
		`^a*?$`,               // lazy
		`^(ab)+$`,             // group
		`^a|b$`,               // alternation
		`^[a-z]{3,2}$`,        // bad count
	} {
		if _, ok := parseSimplePattern(p); ok {
			t.Errorf("%q must not take the byte-level matcher", p)
		}
	}
}

// TestSimplePatternMatchesRE2 compares the byte-level matcher with the RE2
// translation on every string over a pattern-specific alphabet up to a
// length, plus random longer strings.
func TestSimplePatternMatchesRE2(t *testing.T) {
	patterns := append(schemaPatterns[:9:9],
		`^a?b?c?$`, `^\d{3}-\d{4}$`, `^[a-c]*[d-f]?[g]$`, `^x{2,4}y{0,2}z+$`, `^[\-\]]*$`)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		sp, ok := parseSimplePattern(p)
		if !ok {
			t.Fatalf("%q is not simple", p)
		}
		tr, err := translatePattern(p)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(tr)
		alphabet := alphabetFor(p)
		check := func(s string) {
			if got, want := sp.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%q on %q: simple %v, RE2 %v", p, s, got, want)
			}
		}
		var gen func(prefix string, depth int)
		gen = func(prefix string, depth int) {
			check(prefix)
			if depth == 0 {
				return
			}
			for _, r := range alphabet {
				gen(prefix+string(r), depth-1)
			}
		}
		gen("", 3)
		for i := 0; i < 4000; i++ {
			var b strings.Builder
			n := rng.IntN(140)
			for j := 0; j < n; j++ {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			check(b.String())
		}
		// Strings built from the pattern's own accepting shapes.
		for _, s := range []string{hex64, hex64[:40], "mcp-res/server-tool-call/v1", "2.0.0", "10.0.0", "01.0.0",
			"run-v02-example-0001", "INVALID_RESULT_SHAPE", "obs-process", "observations/obs-process.json", "check-1"} {
			check(s)
			check(s + "\n")
		}
	}
}

// alphabetFor collects the characters of a pattern plus characters that
// probe its edges (line terminators, non-ASCII, neighbours of ranges).
func alphabetFor(p string) []rune {
	seen := map[rune]bool{}
	for _, r := range p + "\n\ré😀 09azAZ_-./:" {
		seen[r] = true
	}
	var out []rune
	for r := range seen {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// The matcher takes runs of an atom eight bytes a step: runs of every
// length up to past the longest bound, with one foreign byte at each
// position, match as RE2 says.
func TestSimplePatternLongRuns(t *testing.T) {
	for _, c := range []struct{ pattern, fill string }{
		{`^[a-f0-9]{64}$`, "0123456789abcdef"},
		{`^[a-f0-9]{40}$`, "f0"},
		{`^[A-Za-z0-9][A-Za-z0-9._/-]{0,255}$`, "aZ9._/-"},
		{`^[A-Z][A-Z0-9_]{2,95}$`, "A_0"},
		{`^x{2,4}y{0,2}z+$`, "z"},
	} {
		sp, ok := parseSimplePattern(c.pattern)
		if !ok {
			t.Fatalf("%q is not simple", c.pattern)
		}
		tr, err := translatePattern(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(tr)
		head := ""
		if c.pattern == `^x{2,4}y{0,2}z+$` {
			head = "xxy"
		}
		for n := 0; n <= 270; n++ {
			b := []byte(head)
			for i := range n {
				b = append(b, c.fill[i%len(c.fill)])
			}
			for bad := -1; bad < len(b); bad++ {
				s := []byte(string(b))
				if bad >= 0 {
					s[bad] = '!'
				}
				if got, want := sp.MatchString(string(s)), re.MatchString(string(s)); got != want {
					t.Fatalf("%q on %q: simple %v, RE2 %v", c.pattern, s, got, want)
				}
			}
		}
	}
}
