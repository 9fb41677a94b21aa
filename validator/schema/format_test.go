package schema

import (
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

// TestPatternAnchors checks the RE2 assumption behind §1.8: without (?m),
// "$" matches only at the very end of the text and "^" only at its start.
func TestPatternAnchors(t *testing.T) {
	re, err := compilePattern(`^[a-f0-9]{64}$`)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{hex64 + "\n", hex64 + "\r\n", "\n" + hex64, hex64 + "\u2028", hex64 + hex64[:1]} {
		if re.MatchString(s) {
			t.Errorf("%q matched", s)
		}
	}
	if !re.MatchString(hex64) {
		t.Error("control did not match")
	}
}
