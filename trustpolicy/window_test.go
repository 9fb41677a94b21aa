package trustpolicy

import (
	"strings"
	"testing"
	"time"
)

// OutOfWindow agrees with InForce (step G6, both ends inclusive) and says
// which side of the window the evaluation time is on. The time is a
// time.Time as outside code has it; a fraction finer than a microsecond is
// truncated (REFERENCE §1.7), so 2027-01-01T00:00:00.0000009Z is still
// validUntil.
func TestOutOfWindow(t *testing.T) {
	p := mustLoad(t, testPolicy()) // 2026-01-01 … 2027-01-01
	for _, tc := range []struct{ at, want string }{
		{"2025-12-31T23:59:59.999Z", "not in force yet: its window 2026-01-01T00:00:00.000Z … 2027-01-01T00:00:00.000Z starts after the evaluation time 2025-12-31T23:59:59.999Z"},
		{"2026-01-01T00:00:00.000Z", ""},
		{"2027-01-01T00:00:00.000Z", ""},
		{"2027-01-01T00:00:00.0000009Z", ""},
		{"2027-01-01T00:00:00.000001Z", "expired: its window 2026-01-01T00:00:00.000Z … 2027-01-01T00:00:00.000Z ended before the evaluation time 2027-01-01T00:00:00.000001Z"},
		{"2027-01-01T00:00:00.001Z", "expired: its window 2026-01-01T00:00:00.000Z … 2027-01-01T00:00:00.000Z ended before the evaluation time 2027-01-01T00:00:00.001Z"},
	} {
		at, err := time.Parse(time.RFC3339Nano, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		got := p.OutOfWindow(at, tc.at)
		if got != tc.want {
			t.Errorf("OutOfWindow(%s) = %q, want %q", tc.at, got, tc.want)
		}
		if inForce := p.InForce(at, tc.at) == nil; inForce != (got == "") || (!inForce && !strings.Contains(p.InForce(at, tc.at).Detail, "outside the policy window")) {
			t.Errorf("at %s: InForce %t, OutOfWindow %q", tc.at, inForce, got)
		}
	}
}
