package v01

import (
	"encoding/base64"
	"regexp"
	"sync"
)

// The text scans of v0.1 steps 9 and 10 (REFERENCE §5.2) run on the compact
// serialization of the bundle with ECMAScript Unicode regular-expression
// semantics. RE2's case-insensitive matching already uses Unicode simple
// case folding (so the Kelvin sign matches "k" and the long s matches "s",
// as with the /iu flags), but its \s is ASCII-only: the ECMAScript class is
// spelled out.
const ecmaSpaceClass = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

// The patterns compile on first use, not at package init (the CLI's
// startup budget).
var (
	// authHeaderPattern is step 9:
	// /authorization\s*[:=]\s*(?:bearer|basic)\s+[a-z0-9._~+/-]+/iu.
	authHeaderPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)authorization` + ecmaSpaceClass + `*[:=]` + ecmaSpaceClass +
			`*(?:bearer|basic)` + ecmaSpaceClass + `+[a-z0-9._~+/-]+`)
	})
	// base64RunPattern finds the candidate runs of step 10:
	// /[A-Za-z0-9+/]{24,}={0,2}/g (greedy, leftmost, non-overlapping).
	base64RunPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[A-Za-z0-9+/]{24,}={0,2}`)
	})
	// decodedSecretPattern is step 10's test on the decoded text:
	// /(?:authorization\s*:\s*bearer|api[_-]?key\s*[:=]|token\s*[:=])/iu.
	decodedSecretPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:authorization` + ecmaSpaceClass + `*:` + ecmaSpaceClass +
			`*bearer|api[_-]?key` + ecmaSpaceClass + `*[:=]|token` + ecmaSpaceClass + `*[:=])`)
	})
)

// encodedSecret reports the offset of the first base64 run in text whose
// lenient decoding, read as UTF-8, matches decodedSecretPattern.
//
// The decoded bytes are matched as they are: RE2 reads an invalid UTF-8
// byte as U+FFFD, which a pattern of ASCII letters, ':', '=' and
// whitespace can never match, exactly like the replacement characters of
// upstream's UTF-8 decoder (which never swallows a following ASCII byte).
func encodedSecret(text []byte) (int, bool) {
	re := decodedSecretPattern()
	for _, loc := range base64RunPattern().FindAllIndex(text, -1) {
		if re.Match(lenientBase64(text[loc[0]:loc[1]])) {
			return loc[0], true
		}
	}
	return 0, false
}

// lenientBase64 decodes a run of the standard base64 alphabet as Node's
// Buffer.from(s, "base64") does for such runs (REFERENCE §5.2): "=" padding
// dropped, complete 4-character groups decoded, a trailing group of 2 or 3
// characters decoded to 1 or 2 bytes, a single trailing character ignored,
// non-zero unused bits ignored.
func lenientBase64(run []byte) []byte {
	n := len(run)
	for n > 0 && run[n-1] == '=' {
		n--
	}
	if n%4 == 1 {
		n--
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(n))
	// The run holds only alphabet characters, so decoding cannot fail; the
	// non-strict decoder ignores non-zero unused bits.
	m, _ := base64.RawStdEncoding.Decode(out, run[:n])
	return out[:m]
}
