package keyfile

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidBase64 is wrapped by every error of [DecodeStrictBase64].
var ErrInvalidBase64 = errors.New("invalid strict base64")

// DecodeStrictBase64 decodes s as "strict base64" (REFERENCE §6.8), the
// encoding of the envelope members payload, publicKeySpkiBase64, sig and
// inclusionProofBase64.
//
// s is accepted if and only if it matches the upstream regular expression
//
//	^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$
//
// that is: the standard alphabet only (no URL-safe "-" or "_"), a length that
// is a multiple of 4, padding mandatory and only at the end, no whitespace or
// line breaks, and no superfluous padding after a complete final group
// ("QUJD=" and "QUJD==" are rejected, REFERENCE §10 row 42). The check is
// procedural; no regular expression is compiled.
//
// Unused bits in the last group need not be zero: "QR==" is accepted and
// decodes like "QQ==", as both upstream decoders do (REFERENCE §10 row 36).
// Consequently decoding does not always round-trip: re-encoding the result
// may differ from s in the last character before the padding.
//
// The empty string matches the expression and decodes to an empty, non-nil
// slice with a nil error; callers enforce minimum lengths (the envelope
// schema requires at least 4 characters).
//
// On failure the result is nil and the error wraps [ErrInvalidBase64] and
// names the length or the byte offset at fault; it never quotes the input.
func DecodeStrictBase64(s string) ([]byte, error) {
	// Fast path, one pass: on input without line breaks the standard
	// decoder accepts exactly what the expression does (groups of four,
	// padding only in the last, nothing after it). It also skips CR and
	// LF, but s holds none when the decoded length is the one len(s)
	// gives: four or more of them (the rest of len(s) must be groups of
	// four) would take at least three bytes off it. Anything else goes
	// the slow way, which names the fault.
	if len(s)%4 == 0 {
		out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		n, err := base64.StdEncoding.Decode(out, []byte(s))
		if err == nil && n == len(s)/4*3-trailingPadding(s) {
			return out[:n], nil
		}
	}
	if err := checkStrictBase64(s); err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, []byte(s))
	if err != nil {
		// Unreachable: the syntax check admits only input the standard
		// decoder accepts.
		return nil, fmt.Errorf("%w: %v", ErrInvalidBase64, err)
	}
	return out[:n], nil
}

// trailingPadding is how many of the last two bytes of s are "=", counted
// from the end.
func trailingPadding(s string) int {
	switch {
	case strings.HasSuffix(s, "=="):
		return 2
	case strings.HasSuffix(s, "="):
		return 1
	}
	return 0
}

// checkStrictBase64 reports whether s matches the §6.8 regular expression.
func checkStrictBase64(s string) error {
	n := len(s)
	if n%4 != 0 {
		return fmt.Errorf("%w: length %d is not a multiple of 4", ErrInvalidBase64, n)
	}
	// Only the last group may carry padding: "xx==" or "xxx=".
	body := n
	if n > 0 && s[n-1] == '=' {
		body--
		if s[n-2] == '=' {
			body--
		}
	}
	for i := 0; i < body; i++ {
		if !isStdBase64Char(s[i]) {
			if s[i] == '=' {
				return fmt.Errorf("%w: misplaced padding at offset %d", ErrInvalidBase64, i)
			}
			return fmt.Errorf("%w: byte at offset %d is not in the standard base64 alphabet", ErrInvalidBase64, i)
		}
	}
	return nil
}

func isStdBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}
