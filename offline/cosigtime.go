package offline

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
)

// FormatNotCounted renders cosignatures not counted for messages.
func FormatNotCounted(ns []signednote.UncountedCosignature) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("%s (cosigned %s: %s)", n.Name, unixText(n.Time), n.Reason)
	}
	return strings.Join(parts, ", ")
}

// cosignatureTimes is the time rule of a checked Trust.
type cosignatureTimes struct {
	judged bool
	at     uint64 // the evaluation time, Unix seconds (rounded down)
	maxAge uint64 // seconds, 0: none
}

func (s *trustSet) setTimes(t Trust) error {
	if t.MaxCosignatureAge < 0 {
		return &TrustError{Msg: fmt.Sprintf("maximum cosignature age %v is negative", t.MaxCosignatureAge)}
	}
	if t.MaxCosignatureAge > 0 && t.EvaluatedAt.IsZero() {
		return &TrustError{Msg: "a maximum cosignature age needs an evaluation time"}
	}
	if t.EvaluatedAt.IsZero() {
		return nil
	}
	if t.EvaluatedAt.Unix() < 0 {
		return &TrustError{Msg: "evaluation time before 1970"}
	}
	age := uint64(t.MaxCosignatureAge / time.Second)
	if t.MaxCosignatureAge > 0 && age == 0 {
		return &TrustError{Msg: fmt.Sprintf("maximum cosignature age %v is less than a second", t.MaxCosignatureAge)}
	}
	s.times = cosignatureTimes{judged: true, at: uint64(t.EvaluatedAt.Unix()), maxAge: age}
	return nil
}

// judge returns why a cosignature dated ts is not counted, or nil. A
// cosignature in the same second as the evaluation time counts (the
// timestamps have a resolution of one second).
func (c cosignatureTimes) judge(name string, ts uint64) *signednote.UncountedCosignature {
	switch {
	case !c.judged:
		return nil
	case ts > c.at:
		return &signednote.UncountedCosignature{Name: name, Time: ts, Reason: "dated after the evaluation time " + unixText(c.at)}
	case c.maxAge > 0 && c.at-ts > c.maxAge:
		return &signednote.UncountedCosignature{Name: name, Time: ts, Reason: fmt.Sprintf("older than the maximum cosignature age of %ds at the evaluation time %s", c.maxAge, unixText(c.at))}
	}
	return nil
}

func unixText(ts uint64) string {
	if ts > 1<<62 {
		return fmt.Sprintf("Unix time %d", ts)
	}
	return time.Unix(int64(ts), 0).UTC().Format(time.RFC3339)
}
