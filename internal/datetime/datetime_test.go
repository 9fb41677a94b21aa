package datetime

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the same instant in canonical UTC form
	}{
		{"milliseconds Z", "2026-08-27T12:00:00.000Z", "2026-08-27T12:00:00Z"},
		{"lower-case t and z", "2026-08-27t12:00:00z", "2026-08-27T12:00:00Z"},
		{"lower-case t", "2026-08-27t12:00:00Z", "2026-08-27T12:00:00Z"},
		{"space separator and ±hh offset", "2026-08-27 12:00:00+02", "2026-08-27T10:00:00Z"},
		{"T with ±hh offset", "2026-08-27T12:00:00+02", "2026-08-27T10:00:00Z"},
		{"±hhmm offset", "2026-08-27T12:00:00-0230", "2026-08-27T14:30:00Z"},
		{"±hh:mm offset", "2026-08-27T12:00:00+05:45", "2026-08-27T06:15:00Z"},
		{"negative zero offset", "2024-02-29T00:00:00-00:00", "2024-02-29T00:00:00Z"},
		{"leap day 2000", "2000-02-29T23:59:59Z", "2000-02-29T23:59:59Z"},
		{"U+2028 separator", "2026-08-27\u202812:00:00Z", "2026-08-27T12:00:00Z"},
		{"U+2029 separator", "2026-08-27\u202912:00:00Z", "2026-08-27T12:00:00Z"},
		{"TAB separator", "2026-08-27\t12:00:00Z", "2026-08-27T12:00:00Z"},
		{"LF separator", "2026-08-27\n12:00:00Z", "2026-08-27T12:00:00Z"},
		{"VT separator", "2026-08-27\v12:00:00Z", "2026-08-27T12:00:00Z"},
		{"NBSP separator", "2026-08-27\u00a012:00:00Z", "2026-08-27T12:00:00Z"},
		{"U+200A separator", "2026-08-27\u200a12:00:00Z", "2026-08-27T12:00:00Z"},
		{"BOM separator", "2026-08-27\ufeff12:00:00Z", "2026-08-27T12:00:00Z"},
		{"ideographic space separator", "2026-08-27\u300012:00:00Z", "2026-08-27T12:00:00Z"},
		{"offset crosses the day", "2026-12-31T23:30:00-23:59", "2027-01-01T23:29:00Z"},
		{"year 0000", "0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"},
		{"year 9999 end", "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"},
		{"epoch", "1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"},
		{"before epoch", "1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59.5Z"},
		{"long fraction", "2026-08-27T12:00:00.1234567891Z", "2026-08-27T12:00:00.123456Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, want valid", tt.in, err)
			}
			ref, err := time.Parse(time.RFC3339Nano, tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if want := FromTime(ref); got != want {
				t.Errorf("Parse(%q) = %v, want %v", tt.in, got, want)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string // substring of ParseError.Reason
	}{
		{"leap second", "2026-12-31T23:59:60Z", "leap second"},
		{"leap second with offset", "2026-12-31T23:59:60+00:00", "leap second"},
		{"second 61", "2026-12-31T23:59:61Z", "second 61"},
		{"29 February in a common year", "2026-02-29T00:00:00Z", "day 29 does not exist in 2026-02"},
		{"29 February 1900", "1900-02-29T00:00:00Z", "day 29 does not exist"},
		{"31 April", "2026-04-31T00:00:00Z", "day 31 does not exist"},
		{"day 00", "2026-08-00T00:00:00Z", "day 00"},
		{"month 13", "2026-13-01T00:00:00Z", "month 13"},
		{"month 00", "2026-00-01T00:00:00Z", "month 00"},
		{"hour 24", "2026-08-27T24:00:00Z", "hour 24"},
		{"minute 60", "2026-08-27T12:60:00Z", "minute 60"},
		{"basic format", "20260827T120000Z", "'-' after the year"},
		{"missing seconds", "2026-08-27T12:00Z", "':' and seconds"},
		{"comma fraction", "2026-08-27T12:00:00,5Z", "want an offset"},
		{"empty fraction", "2026-08-27T12:00:00.Z", "digit after '.'"},
		{"trailing LF", "2026-08-27T12:00:00Z\n", "after the offset"},
		{"leading space", " 2026-08-27T12:00:00Z", "four-digit year"},
		{"missing offset", "2026-08-27T12:00:00", "want an offset"},
		{"offset hour 24", "2026-08-27T12:00:00+24:00", "offset hour 24"},
		{"offset minute 60", "2026-08-27T12:00:00+01:60", "offset minute 60"},
		{"one-digit offset", "2026-08-27T12:00:00+1", "offset hour"},
		{"three-digit offset", "2026-08-27T12:00:00+013", "offset minute"},
		{"offset colon without minute", "2026-08-27T12:00:00+01:", "offset minute"},
		{"two separators", "2026-08-27  12:00:00Z", "two-digit hour"},
		{"underscore separator", "2026-08-27_12:00:00Z", "separator '_'"},
		{"U+0085 is not ECMAScript whitespace", "2026-08-27\u008512:00:00Z", "separator"},
		{"U+200B is not ECMAScript whitespace", "2026-08-27\u200b12:00:00Z", "separator"},
		{"week date", "2026-W35-4T12:00:00Z", "two-digit month"},
		{"ordinal date", "2026-239T12:00:00Z", "'-' after the month"},
		{"unicode minus offset", "2026-08-27T12:00:00\u221201:00", "want an offset"},
		{"full-width digits", "２０２６-08-27T12:00:00Z", "four-digit year"},
		{"empty", "", "four-digit year"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, %v; want a *ParseError", tt.in, got, err)
			}
			if got != 0 {
				t.Errorf("Parse(%q) returned instant %d with an error", tt.in, got)
			}
			if pe.Value != tt.in || !strings.Contains(pe.Reason, tt.reason) {
				t.Errorf("Parse(%q) error = %q, want reason containing %q", tt.in, err, tt.reason)
			}
		})
	}
}

func TestInstantArithmetic(t *testing.T) {
	mustParse := func(s string) Instant {
		t.Helper()
		v, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	t.Run("sub-microsecond digits truncate to equal instants", func(t *testing.T) {
		started := mustParse("2026-08-27T12:00:00.0000005Z")
		finished := mustParse("2026-08-27T12:00:00.0000001Z")
		if c := finished.Compare(started); c != 0 {
			t.Errorf("Compare = %d, want 0", c)
		}
		if d := finished.Sub(started); d != 0 {
			t.Errorf("Sub = %d µs, want 0", d)
		}
	})
	t.Run("truncation never rounds up", func(t *testing.T) {
		a := mustParse("2026-08-27T12:00:00.0000019Z")
		if a.Micros()%1_000_000 != 1 {
			t.Errorf("fraction = %d µs, want 1", a.Micros()%1_000_000)
		}
	})
	t.Run("one microsecond apart", func(t *testing.T) {
		a := mustParse("2026-08-27T12:00:00.000001Z")
		b := mustParse("2026-08-27T12:00:00.000002Z")
		if a.Compare(b) != -1 || b.Compare(a) != 1 || b.Sub(a) != 1 {
			t.Errorf("Compare/Sub wrong: %d %d %d", a.Compare(b), b.Compare(a), b.Sub(a))
		}
	})
	t.Run("offsets denote the same instant", func(t *testing.T) {
		forms := []string{
			"2026-08-27T12:00:00.000Z",
			"2026-08-27 14:00:00+02",
			"2026-08-27t14:00:00+0200",
			"2026-08-27T07:30:00-04:30",
			"2026-08-27\u202812:00:00-00:00",
		}
		want := mustParse(forms[0])
		for _, f := range forms[1:] {
			if got := mustParse(f); got != want {
				t.Errorf("%q = %v, want %v", f, got, want)
			}
		}
	})
	t.Run("bundle run duration in microseconds", func(t *testing.T) {
		a := mustParse("2026-08-27T12:00:00.000Z")
		b := mustParse("2026-08-27T12:00:01.000Z")
		if d := b.Sub(a); d != 1000*1000 {
			t.Errorf("Sub = %d µs, want 1000000", d)
		}
	})
	t.Run("epoch is zero", func(t *testing.T) {
		if v := mustParse("1970-01-01T00:00:00Z"); v != 0 {
			t.Errorf("epoch = %d", v)
		}
	})
	t.Run("round trip through time.Time", func(t *testing.T) {
		v := mustParse("2026-08-27T12:34:56.789012+01:00")
		if got := FromTime(v.Time()); got != v {
			t.Errorf("FromTime(Time()) = %v, want %v", got, v)
		}
		if s := v.String(); s != "2026-08-27T11:34:56.789012Z" {
			t.Errorf("String = %q", s)
		}
	})
}

// A time.Time outside the Instant range saturates instead of wrapping
// around into the range of parsed instants; one inside it is exact.
func TestFromTimeSaturates(t *testing.T) {
	last, _ := Parse("9999-12-31T23:59:59.999999Z")
	first, _ := Parse("0000-01-01T00:00:00Z")
	for _, tc := range []struct {
		tm   time.Time
		want Instant
	}{
		{time.Unix(math.MaxInt64/1_000_000+1, 0), math.MaxInt64},
		{time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC), math.MaxInt64},
		{time.Unix(1<<62, 0), math.MaxInt64},
		{time.Date(-300000, 1, 1, 0, 0, 0, 0, time.UTC), math.MinInt64},
		{time.Unix(-1<<62, 0), math.MinInt64},
		{time.Unix(0, 1999), 1},
		{time.Unix(-1, 999_999_999), -1},
		{time.Time{}, Instant(time.Time{}.Unix() * 1_000_000)},
	} {
		got := FromTime(tc.tm)
		if got != tc.want {
			t.Errorf("FromTime(%v) = %d, want %d", tc.tm, got, tc.want)
		}
		if tc.want == math.MaxInt64 && got.Compare(last) <= 0 || tc.want == math.MinInt64 && got.Compare(first) >= 0 {
			t.Errorf("FromTime(%v) = %d is within the parsed range", tc.tm, got)
		}
	}
}

// TestAgainstTimePackage checks every day of a 400-year cycle plus edges
// against the standard library calendar.
func TestAgainstTimePackage(t *testing.T) {
	start := time.Date(1899, 12, 25, 0, 0, 0, 0, time.UTC)
	for d := start; d.Year() < 2301; d = d.AddDate(0, 0, 1) {
		s := d.Format("2006-01-02") + "T13:14:15.161718Z"
		got, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		want := FromTime(d.Add(13*time.Hour + 14*time.Minute + 15*time.Second + 161718*time.Microsecond))
		if got != want {
			t.Fatalf("Parse(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestParseDoesNotAllocate(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if _, err := Parse("2026-08-27T12:00:00.000+02:00"); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("Parse allocates %.0f times per valid call, want 0", n)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"2026-08-27T12:00:00.000Z", "2026-08-27t12:00:00Z", "2026-08-27 12:00:00+02",
		"2024-02-29T00:00:00-00:00", "2026-12-31T23:59:60Z", "20260827T120000Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			if v != 0 {
				t.Fatalf("error with non-zero instant")
			}
			return
		}
		// Every accepted value re-parses to the same instant once its
		// separator and offset are normalized by the time package.
		if FromTime(v.Time()) != v {
			t.Fatalf("round trip of %q changed the instant", s)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse("2026-08-27T12:00:00.000Z"); err != nil {
			b.Fatal(err)
		}
	}
}
