package offline

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/signednote"
)

// FormatNotCounted renders cosignatures not counted for messages:
// "NAME (cosigned TIME: REASON)", comma-separated.
func FormatNotCounted(ns []signednote.UncountedCosignature) string {
	parts := make([]string, len(ns))
	for i := range ns {
		parts[i] = ns[i].String()
	}
	return strings.Join(parts, ", ")
}

// cosignatureTimes is the time rule of a checked Trust: the arguments of
// signednote.JudgeCosignature, which decides.
type cosignatureTimes struct {
	judged bool
	at     time.Time
	maxAge time.Duration // 0: none
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
	if t.MaxCosignatureAge > 0 && t.MaxCosignatureAge < time.Second {
		return &TrustError{Msg: fmt.Sprintf("maximum cosignature age %v is less than a second", t.MaxCosignatureAge)}
	}
	s.times = cosignatureTimes{judged: true, at: t.EvaluatedAt, maxAge: t.MaxCosignatureAge}
	return nil
}

// judge returns why the verified cosignature c is not counted, or nil:
// signednote.JudgeCosignature at the trust's evaluation time and maximum
// age; without an evaluation time, nothing is judged.
func (c cosignatureTimes) judge(cs signednote.CountedCosignature) *signednote.UncountedCosignature {
	if !c.judged {
		return nil
	}
	return signednote.JudgeCosignature(cs, c.at, c.maxAge)
}
