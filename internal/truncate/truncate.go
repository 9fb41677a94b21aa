// Package truncate bounds the untrusted text that messages quote: a name,
// a line or a field of an input is cut to a fixed number of bytes, on a
// character boundary, so that a diagnostic never carries a megabyte of
// input. Every package of mcpres that quotes input in a message uses it.
package truncate

import "unicode/utf8"

// String shortens s to at most n bytes, on a character boundary, marking
// the cut with "…"; a string of n bytes or fewer is returned as is.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
