package truncate

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"", 0, ""},
		{"héllo", 2, "h…"}, // é is 2 bytes at 1..2: cut before it
		{"héllo", 3, "hé…"},
		{"\x80\x80\x80", 1, "…"}, // only continuation bytes: cut to nothing
	} {
		if got := String(tc.s, tc.n); got != tc.want {
			t.Errorf("String(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
