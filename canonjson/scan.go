package canonjson

// plainPrefix returns the length of the longest prefix of s made of bytes
// a JSON string holds as themselves in both directions: ASCII other than
// control characters, the quote and the backslash. It is the inner loop of
// the reader and the encoder, so it tests eight bytes at a time.
func plainPrefix[T string | []byte](s T) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// The compiler merges these into one 64-bit load.
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// A byte's high bit is set in m when it is ≥ 0x80, < 0x20, '"'
		// or '\\' (the classic "has zero byte" test on x, x^'"' and
		// x^'\\'; exact for bytes below 0x80, which are all that remain
		// once the high bits of x are in m).
		q := x ^ (ones * '"')
		b := x ^ (ones * '\\')
		m := x | (x - ones*0x20) | ((q - ones) &^ q) | ((b - ones) &^ b)
		if m&highs != 0 {
			break
		}
	}
	for ; i < len(s) && plainASCII[s[i]]; i++ {
	}
	return i
}

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
