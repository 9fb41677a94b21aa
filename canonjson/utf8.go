package canonjson

import "strings"

// ValidUTF8 returns a copy of v whose strings and member names are valid
// UTF-8, each invalid byte sequence replaced with U+FFFD. A document that
// quotes what cannot be encoded (a path or an excerpt of input that is not
// UTF-8) can then be printed: [Compact] refuses invalid UTF-8.
func ValidUTF8(v *Value) *Value {
	c := v.Clone()
	var fix func(*Value)
	fix = func(x *Value) {
		if x == nil {
			return
		}
		x.Str = strings.ToValidUTF8(x.Str, "\uFFFD")
		for _, it := range x.Items {
			fix(it)
		}
		for i := range x.Members {
			x.Members[i].Key = strings.ToValidUTF8(x.Members[i].Key, "\uFFFD")
			fix(x.Members[i].Value)
		}
	}
	fix(c)
	return c
}
