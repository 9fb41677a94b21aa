package signednote_test

import (
	"fmt"
	"time"

	"github.com/mcpres/mcpres/signednote"
)

// ExampleJudgeCosignature judges a verified cosignature at two evaluation
// times: a year before its date it does not count, at its date it does.
func ExampleJudgeCosignature() {
	c := signednote.CountedCosignature{Name: "w1", Fingerprint: "…", Time: 1819389900} // 2027-08-27T18:05:00Z
	if u := signednote.JudgeCosignature(c, time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC), 0); u != nil {
		fmt.Println(u)
	}
	fmt.Println(signednote.JudgeCosignature(c, time.Unix(1819389900, 0), 0) == nil)
	// Output:
	// cosignature of w1 dated 2027-08-27T18:05:00Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z
	// true
}
