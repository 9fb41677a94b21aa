package signednote_test

import (
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
)

// TestJudgeCosignature holds the one time rule at its edges: a cosignature
// dated after the evaluation time (one second, a year) does not count, one
// in the same second (the evaluation time rounded down) or before counts;
// with a maximum age, exactly that age counts and one second more does
// not; an evaluation time before 1970 counts nothing. Each refusal names
// the witness, the cosignature's time and the rule.
func TestJudgeCosignature(t *testing.T) {
	at := time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)
	now := uint64(at.Unix())
	year := uint64(365 * 24 * 3600)
	for _, c := range []struct {
		name   string
		ts     uint64
		at     time.Time
		maxAge time.Duration
		want   string // "" counts; else Error()
	}{
		{"now", now, at, 0, ""},
		{"now, at with a fraction", now, at.Add(999 * time.Millisecond), 0, ""},
		{"an hour ago", now - 3600, at, 0, ""},
		{"the epoch", 0, at, 0, ""},
		{"one second ahead", now + 1, at, 0, "cosignature of W dated 2026-08-27T18:05:01Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"one second ahead of a fraction", now + 1, at.Add(999 * time.Millisecond), 0, "cosignature of W dated 2026-08-27T18:05:01Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"a year ahead", now + year, at, 0, "cosignature of W dated 2027-08-27T18:05:00Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"a year ahead, with an age", now + year, at, time.Hour, "cosignature of W dated 2027-08-27T18:05:00Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"the last RFC 3339 second", 253402300799, at, 0, "cosignature of W dated 9999-12-31T23:59:59Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"past RFC 3339", 253402300800, at, 0, "cosignature of W dated Unix time 253402300800 is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"beyond int64", 1<<63 + 5, at, 0, "cosignature of W dated Unix time 9223372036854775813 is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"},
		{"exactly the maximum age", now - 3600, at, time.Hour, ""},
		{"a second older than the maximum age", now - 3601, at, time.Hour, "cosignature of W dated 2026-08-27T17:04:59Z is not counted: older than the maximum cosignature age of 3600s at the evaluation time 2026-08-27T18:05:00Z"},
		{"a fractional maximum age counts whole seconds", now - 2, at, 1500 * time.Millisecond, "cosignature of W dated 2026-08-27T18:04:58Z is not counted: older than the maximum cosignature age of 1s at the evaluation time 2026-08-27T18:05:00Z"},
		{"evaluated before 1970", 0, time.Unix(-1, 0), 0, "cosignature of W dated 1970-01-01T00:00:00Z is not counted: dated after the evaluation time 1969-12-31T23:59:59Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := signednote.CountedCosignature{Name: "W", Fingerprint: "00", Time: c.ts}
			got := signednote.JudgeCosignature(cs, c.at, c.maxAge)
			switch {
			case c.want == "" && got != nil:
				t.Errorf("not counted: %v", got)
			case c.want != "" && got == nil:
				t.Errorf("counted, want %q", c.want)
			case got != nil && (got.Error() != c.want || got.Name != "W" || got.Time != c.ts):
				t.Errorf("got %+v (%v)\nwant %s", got, got, c.want)
			}
		})
	}
}

// TestUncountedCosignatureText: the two renderings of a cosignature that
// does not count.
func TestUncountedCosignatureText(t *testing.T) {
	u := &signednote.UncountedCosignature{Name: "WB", Time: 4102444800, Reason: "dated after the evaluation time 2026-08-27T18:05:00Z"}
	if got, want := u.String(), "WB (cosigned 2100-01-01T00:00:00Z: dated after the evaluation time 2026-08-27T18:05:00Z)"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	if got, want := u.Error(), "cosignature of WB dated 2100-01-01T00:00:00Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z"; got != want {
		t.Errorf("Error %q, want %q", got, want)
	}
}
