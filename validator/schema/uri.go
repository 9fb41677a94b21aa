package schema

import "strings"

// checkURI reports why s is not an RFC 3986 URI, or "" if it is one:
//
//	URI       = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
//	hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty
//
// Only RFC 3986 characters are allowed; anything else (spaces, non-ASCII,
// "\", "<", …) must be percent-encoded as %HH.
func checkURI(s string) string {
	rest, reason := cutScheme(s)
	if reason != "" {
		return reason
	}
	if before, frag, ok := strings.Cut(rest, "#"); ok {
		if !allChars(frag, isQueryChar) {
			return "bad character or percent-encoding in the fragment"
		}
		rest = before
	}
	if before, query, ok := strings.Cut(rest, "?"); ok {
		if !allChars(query, isQueryChar) {
			return "bad character or percent-encoding in the query"
		}
		rest = before
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		authority, path := after, ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
		if reason := checkAuthority(authority); reason != "" {
			return reason
		}
		rest = path
	}
	// path-abempty, path-absolute, path-rootless and path-empty are all
	// pchar and "/" here: "//" at the start was taken as an authority.
	if !allChars(rest, isPathChar) {
		return "bad character or percent-encoding in the path"
	}
	return ""
}

// cutScheme checks scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) and
// returns what follows its ":".
func cutScheme(s string) (string, string) {
	if s == "" || !isAlpha(s[0]) {
		return "", "must start with a scheme (a letter)"
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return s[i+1:], ""
		case isAlpha(c) || isDigit(c) || c == '+' || c == '-' || c == '.':
		default:
			return "", "bad character in the scheme or missing \":\""
		}
	}
	return "", "missing \":\" after the scheme"
}

// checkAuthority checks authority = [ userinfo "@" ] host [ ":" port ].
func checkAuthority(a string) string {
	if userinfo, hostport, ok := strings.Cut(a, "@"); ok {
		if !allChars(userinfo, isUserinfoChar) {
			return "bad character or percent-encoding in the userinfo"
		}
		a = hostport
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "unterminated IP literal"
		}
		if !isIPLiteral(a[1:end]) {
			return "bad IP literal"
		}
		host, port = "", a[end+1:]
		if port != "" {
			if port[0] != ':' {
				return "unexpected characters after the IP literal"
			}
			port = port[1:]
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i+1:]
	}
	if !allChars(host, isRegNameChar) {
		return "bad character or percent-encoding in the host"
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return "port must be digits"
		}
	}
	return ""
}

// isIPLiteral checks IPv6address / IPvFuture (the text between brackets).
func isIPLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		ver, rest, ok := strings.Cut(s[1:], ".")
		if !ok || ver == "" || rest == "" || !allBytes(ver, isHexDigit) {
			return false
		}
		return allBytes(rest, func(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' })
	}
	return isIPv6(s)
}

// isIPv6 checks the RFC 3986 IPv6address production: eight h16 groups, the
// last two of which may be written as an IPv4 address, with at most one
// "::" standing for one or more zero groups.
func isIPv6(s string) bool {
	head, tail, compressed := strings.Cut(s, "::")
	if !compressed {
		n, ok := countGroups(s, true)
		return ok && n == 8
	}
	if strings.Contains(tail, "::") {
		return false
	}
	hn, ok := countGroups(head, false)
	if !ok {
		return false
	}
	tn, ok := countGroups(tail, true)
	return ok && hn+tn <= 7
}

// countGroups counts the 16-bit groups of a ":"-separated list of h16
// ("" has none). With v4Last the last field may be an IPv4 address (two
// groups).
func countGroups(s string, v4Last bool) (int, bool) {
	if s == "" {
		return 0, true
	}
	fields := strings.Split(s, ":")
	n := 0
	for i, f := range fields {
		switch {
		case v4Last && i == len(fields)-1 && strings.Contains(f, "."):
			if !isIPv4(f) {
				return 0, false
			}
			n += 2
		case len(f) >= 1 && len(f) <= 4 && allBytes(f, isHexDigit):
			n++
		default:
			return 0, false
		}
	}
	return n, true
}

// isIPv4 checks four dec-octets (0–255, no leading zeros) joined by ".".
func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || !allBytes(p, isDigit) || (len(p) > 1 && p[0] == '0') {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// allChars checks s against ok, accepting %HH percent-encodings wherever
// pct-encoded is allowed (every component checked with it allows them).
func allChars(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return false
			}
			i += 2
			continue
		}
		if !ok(c) {
			return false
		}
	}
	return true
}

func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return hexValue(c) >= 0 }

func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

func isRegNameChar(c byte) bool  { return isUnreserved(c) || isSubDelim(c) }
func isUserinfoChar(c byte) bool { return isRegNameChar(c) || c == ':' }
func isPChar(c byte) bool        { return isUserinfoChar(c) || c == '@' }
func isPathChar(c byte) bool     { return isPChar(c) || c == '/' }
func isQueryChar(c byte) bool    { return isPathChar(c) || c == '?' }
