package signednote

import (
	"fmt"
	"time"
)

// A CountedCosignature is a witness's cosignature/v1 signature on a
// checkpoint that verified and counts: once per witness key, whatever the
// names and however many lines the key signed. Package offline counts
// them toward a trust's quorum, package attest reports them
// (attest.VerifiedTransparency), and package witness lists them on a
// checkpoint it attaches cosignatures to.
type CountedCosignature struct {
	// Name is the witness's name: the trust policy's name for it where a
	// policy counts (packages offline and attest), else the name of its
	// key (package witness).
	Name string
	// Fingerprint is the witness key's fingerprint, the lowercase hex
	// SHA-256 of its SPKI DER ([Verifier.Fingerprint]).
	Fingerprint string
	// Time is the cosignature's timestamp as the witness wrote it, in
	// seconds since the Unix epoch ([CosignatureTimestamp]).
	Time uint64
}

// An UncountedCosignature is a witness's cosignature/v1 signature that
// verified but does not count, because of its timestamp
// ([JudgeCosignature]).
type UncountedCosignature struct {
	Name   string // the trust policy's name for the witness
	Time   uint64 // the cosignature's timestamp, Unix seconds, as written
	Reason string // why it does not count: "dated after the evaluation time …", "older than …"
}

// String is "NAME (cosigned TIME: REASON)", TIME in RFC 3339 (UTC).
func (u *UncountedCosignature) String() string {
	return fmt.Sprintf("%s (cosigned %s: %s)", u.Name, unixText(u.Time), u.Reason)
}

// Error is "cosignature of NAME dated TIME is not counted: REASON": an
// UncountedCosignature is the error of a witness whose only cosignature
// does not count (package tlog/witnessclient).
func (u *UncountedCosignature) Error() string {
	return fmt.Sprintf("cosignature of %s dated %s is not counted: %s", u.Name, unixText(u.Time), u.Reason)
}

// JudgeCosignature is the one time rule of mcpres's cosignatures: it
// decides whether c, a cosignature that verified against its checkpoint
// (under its witness key: this function checks no signature), counts at
// the evaluation time at, and returns nil when it does or why it does not.
// It does not count when it is
//
//   - dated after at (Reason "dated after the evaluation time AT"): a
//     witness vouches for nothing yet, and a cosignature dated in the
//     future would count at logging or signing time only to be rejected
//     by every consumer that verifies before that date; or
//   - older than maxAge at at, when maxAge is not zero (Reason "older than
//     the maximum cosignature age of Ns at the evaluation time AT").
//
// Timestamps have a resolution of one second: at is rounded down to its
// second, so a cosignature in the same second counts, and so does one
// exactly maxAge old; maxAge counts in whole seconds. There is no
// allowance for a witness's clock running ahead: the rule is the
// verifier's, whenever it is applied. An at before 1970 counts nothing.
//
// It is applied when a log collects cosignatures (tlog/witnessclient: a
// cosignature that does not count is not attached), when a quorum is
// required of a reference before it is written or signed
// (offline.Witnessed: log add and log proof --require-quorum, attest sign
// --require-quorum) and when a reference is verified (offline.Verify, at
// the trust's EvaluatedAt and MaxCosignatureAge).
func JudgeCosignature(c CountedCosignature, at time.Time, maxAge time.Duration) *UncountedCosignature {
	sec := at.Unix()
	if sec < 0 {
		return &UncountedCosignature{Name: c.Name, Time: c.Time, Reason: "dated after the evaluation time " + at.UTC().Format(time.RFC3339)}
	}
	now := uint64(sec)
	switch limit := uint64(maxAge / time.Second); {
	case c.Time > now:
		return &UncountedCosignature{Name: c.Name, Time: c.Time, Reason: "dated after the evaluation time " + unixText(now)}
	case maxAge > 0 && now-c.Time > limit:
		return &UncountedCosignature{Name: c.Name, Time: c.Time, Reason: fmt.Sprintf("older than the maximum cosignature age of %ds at the evaluation time %s", limit, unixText(now))}
	}
	return nil
}

// unixText is a timestamp in RFC 3339 (UTC), or "Unix time N" past the
// four-digit years RFC 3339 has.
func unixText(ts uint64) string {
	const maxRFC3339 = 253402300799 // 9999-12-31T23:59:59Z
	if ts > maxRFC3339 {
		return fmt.Sprintf("Unix time %d", ts)
	}
	return time.Unix(int64(ts), 0).UTC().Format(time.RFC3339)
}
