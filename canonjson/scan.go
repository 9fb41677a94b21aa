package canonjson

import "math/bits"

// plainPrefix returns the length of the longest prefix of s made of bytes
// a JSON string holds as themselves in both directions: ASCII other than
// control characters, the quote and the backslash. It is the inner loop of
// the reader and the encoder, so it tests eight bytes at a time.
func plainPrefix[T string | []byte](s T) int {
	n := len(s)
	i := 0
	for ; i+8 <= n; i += 8 {
		if m := specialBytes(word8(s[i : i+8])); m != 0 {
			return i + firstFlagged(m)
		}
	}
	switch {
	case i == n:
		return n
	case n >= 8:
		// The last eight bytes, overlapping the ones already tested:
		// their flags are shifted out (a plain byte flags nothing and
		// lends no borrow to the next, so the first flag left is exact).
		k := 8 - (n - i)
		if m := specialBytes(word8(s[n-8:])) >> (8 * k); m != 0 {
			return i + firstFlagged(m)
		}
		return n
	case n >= 4:
		// Four to seven bytes: the first four and the last four, each
		// padded with plain bytes to a word.
		if m := specialBytes(word4(s[:4])); m != 0 {
			return firstFlagged(m)
		}
		k := 8 - n // bytes of the last four already tested
		if m := specialBytes(word4(s[n-4:])) >> (8 * k); m != 0 {
			return 4 + firstFlagged(m)
		}
		return n
	}
	for ; i < n && plainASCII[s[i]]; i++ {
	}
	return i
}

// word8 is the little-endian word of w's eight bytes (the compiler merges
// the loads into one).
func word8[T string | []byte](w T) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// word4 is the little-endian word of w's four bytes above four plain ones
// ('a'), which specialBytes never flags.
func word4[T string | []byte](w T) uint64 {
	_ = w[3]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 | 0x61616161<<32
}

// specialBytes sets the high bit of every byte of x that is ≥ 0x80,
// < 0x20, '"' or '\\', and of no byte below the first such one (the
// classic "has zero byte" test on x, x^'"' and x^'\\': a borrow starts
// only at a flagged byte and runs upward, so bits above the first flag may
// be spurious, the lowest one never is).
func specialBytes(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return (x | (x - ones*0x20) | ((q - ones) &^ q) | ((b - ones) &^ b)) & highs
}

// firstFlagged is the index of the lowest byte flagged in m.
func firstFlagged(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

// plainASCII marks the bytes plainPrefix accepts.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// HasNoEscape reports whether b is printable ASCII (0x20 to 0x7F) with no
// backslash. In a JSON document made of such bytes no string holds an
// escape, so every quote opens or closes a string, and the canonical
// encoding writes each string's characters as themselves: what a fast
// reader of one fixed layout (as offline.ParseEntry's) needs to know
// before it splits at quotes. It tests eight bytes at a time, as
// plainPrefix does.
func HasNoEscape(b string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	// The success path reads every byte, so the words are folded into one
	// mask tested once (no branch per word). A byte's high bit is set in
	// the mask when it is ≥ 0x80, < 0x20 or '\\' (a borrow out of a byte
	// below 0x20 can only add bits where the answer is already false).
	var m uint64
	for ; i+16 <= len(b); i += 16 {
		w := b[i : i+16]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		y := uint64(w[8]) | uint64(w[9])<<8 | uint64(w[10])<<16 | uint64(w[11])<<24 |
			uint64(w[12])<<32 | uint64(w[13])<<40 | uint64(w[14])<<48 | uint64(w[15])<<56
		e, f := x^(ones*'\\'), y^(ones*'\\')
		m |= x | (x - ones*0x20) | ((e - ones) &^ e) | y | (y - ones*0x20) | ((f - ones) &^ f)
	}
	for ; i+8 <= len(b); i += 8 {
		w := b[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		e := x ^ (ones * '\\')
		m |= x | (x - ones*0x20) | ((e - ones) &^ e)
	}
	if m&highs != 0 {
		return false
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}
