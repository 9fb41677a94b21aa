package keyfile

import (
	"bytes"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// strictBase64Pattern is the upstream expression of REFERENCE §6.8. Tests
// only: the package checks it procedurally.
const strictBase64Pattern = `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`

func TestDecodeStrictBase64(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // decoded bytes, when ok
		ok   bool
	}{
		{"empty matches the expression", "", "", true},
		{"one full group", "QUJD", "ABC", true},
		{"two padding", "QQ==", "A", true},
		{"one padding", "QUI=", "AB", true},
		{"all alphabet", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", "", true},
		{"non-zero trailing bits, one byte", "QR==", "A", true},
		{"non-zero trailing bits, two bytes", "QUJ=", "AB", true},
		{"max trailing bits", "Q///", "C\xff\xff", true},
		{"superfluous padding after full group", "QUJD=", "", false},
		{"two superfluous padding", "QUJD==", "", false},
		{"four padding after full group", "QUJD====", "", false},
		{"missing padding", "QQ", "", false},
		{"missing one padding", "QUI", "", false},
		{"three padding", "Q===", "", false},
		{"only padding", "====", "", false},
		{"padding in the middle", "QQ==QUJD", "", false},
		{"padding inside a group", "Q=I=", "", false},
		{"url-safe minus", "QUJ-", "", false},
		{"url-safe underscore", "QUJ_", "", false},
		{"space", "QUJD QUJD", "", false},
		{"trailing newline", "QUJD\n", "", false},
		{"inner newline", "QUJD\nQUJD", "", false},
		{"carriage return", "QUJD\r\nQUJD", "", false},
		// Line breaks the standard decoder skips, in a length that is a
		// multiple of 4 (the one-pass decode must not take them).
		{"four line breaks", "QUJD\r\n\r\nQUJD", "", false},
		{"four newlines before padding", "QUJDQQ\n\n\n\n==", "", false},
		{"newlines in place of padding", "QUJDQQ\n\nQUJD", "", false},
		{"tab", "\tQUJD", "", false},
		{"non-ASCII", "QUJ\u00e9", "", false},
		{"NUL", "QUJ\x00", "", false},
		{"length 5", "QUJDQ", "", false},
		{"single character", "Q", "", false},
	}
	re := regexp.MustCompile(strictBase64Pattern)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if re.MatchString(tc.in) != tc.ok {
				t.Fatalf("test table disagrees with the upstream expression for %q", tc.in)
			}
			got, err := DecodeStrictBase64(tc.in)
			if !tc.ok {
				if !errors.Is(err, ErrInvalidBase64) {
					t.Fatalf("DecodeStrictBase64(%q) error = %v, want ErrInvalidBase64", tc.in, err)
				}
				if got != nil {
					t.Fatalf("DecodeStrictBase64(%q) = %x with an error, want nil", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeStrictBase64(%q) error = %v", tc.in, err)
			}
			if got == nil {
				t.Fatalf("DecodeStrictBase64(%q) = nil, want non-nil", tc.in)
			}
			if tc.want != "" && string(got) != tc.want {
				t.Fatalf("DecodeStrictBase64(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// The error names the position or the length, and never quotes the input.
func TestDecodeStrictBase64Messages(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"QUJDQ", "length 5 is not a multiple of 4"},
		{"QUJD=A==", "misplaced padding at offset 4"},
		{"QUJDQU-=", "byte at offset 6 is not in the standard base64 alphabet"},
		{"secretkeymaterial=", "length 18"},
	} {
		_, err := DecodeStrictBase64(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeStrictBase64(%q) error = %v, want it to contain %q", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), tc.in) {
			t.Errorf("DecodeStrictBase64(%q) error %q quotes the input", tc.in, err)
		}
	}
}

// StdEncoding.Strict() would reject non-zero trailing bits; REFERENCE §6.8
// requires accepting them (both upstream decoders do).
func TestDecodeStrictBase64AcceptsWhatStrictRejects(t *testing.T) {
	if _, err := base64.StdEncoding.Strict().DecodeString("QR=="); err == nil {
		t.Fatal("base64.StdEncoding.Strict() accepts QR==; the premise of this test is wrong")
	}
	got, err := DecodeStrictBase64("QR==")
	if err != nil || !bytes.Equal(got, []byte("A")) {
		t.Fatalf("DecodeStrictBase64(QR==) = %q, %v; want \"A\", nil", got, err)
	}
}

func FuzzDecodeStrictBase64(f *testing.F) {
	for _, s := range []string{"", "QUJD", "QQ==", "QUI=", "QR==", "QUJD=", "QUJD==", "Q===", "QUJ-", "QUJD\n", "QUJD\r\n\r\nQUJD", "QQ\n\n\n\n==", "QQ", testKeyOneSPKIB64} {
		f.Add(s)
	}
	re := regexp.MustCompile(strictBase64Pattern)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := DecodeStrictBase64(s)
		match := re.MatchString(s)
		if (err == nil) != match {
			t.Fatalf("DecodeStrictBase64(%q) error = %v, but the upstream expression match = %v", s, err, match)
		}
		if err != nil {
			if got != nil || !errors.Is(err, ErrInvalidBase64) {
				t.Fatalf("DecodeStrictBase64(%q) = %x, %v; want nil, ErrInvalidBase64", s, got, err)
			}
			return
		}
		want, stdErr := base64.StdEncoding.DecodeString(s)
		if stdErr != nil || !bytes.Equal(got, want) {
			t.Fatalf("DecodeStrictBase64(%q) = %x; base64.StdEncoding gives %x, %v", s, got, want, stdErr)
		}
		// Re-encoding round-trips except, with padding, in the last
		// character before it (its unused bits may be non-zero).
		pad := len(s) - len(strings.TrimRight(s, "="))
		re := base64.StdEncoding.EncodeToString(got)
		if len(re) != len(s) {
			t.Fatalf("re-encoding %q gives %q of another length", s, re)
		}
		cut := len(s)
		if pad > 0 {
			cut = len(s) - pad - 1
		}
		if re[:cut] != s[:cut] || re[len(s)-pad:] != s[len(s)-pad:] {
			t.Fatalf("re-encoding %q gives %q", s, re)
		}
	})
}
