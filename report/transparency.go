package report

import (
	"fmt"
	"time"

	"github.com/mcpres/mcpres/attest"
)

// transparencyTables lay out what attest.Verify established about each
// envelope's transparency reference: one row per envelope (its check, log,
// entry, tree size and quorum), and one row per witness cosignature of a
// reference verified offline (its time and whether it counted toward the
// quorum). A reference that is only digest-checked shows its log and
// entry as the signer's claim.
func transparencyTables(envs []attest.EnvelopeEvaluation) (refs, witnesses *table) {
	refs = newTable(col("Envelope"), col("Result"), mono("Log"), mono("Entry"), col("Tree size"), col("Quorum"))
	witnesses = newTable(col("Envelope"), col("Witness"), mono("Witness key"), col("Cosigned at"), col("Counted toward the quorum"))
	for _, e := range envs {
		n := fmt.Sprint(e.Index)
		switch v, ref := e.Verified, e.Reference; {
		case e.Transparency == attest.TransparencyVerifiedOffline && v != nil:
			entry := fmt.Sprintf("leaf %d", v.LeafIndex)
			if ref != nil {
				entry += " (entryUuid " + show(ref.EntryUUID, 200) + ")"
			}
			refs.add(n, "VERIFIED_OFFLINE: "+show(v.Kind, 100)+" verified against a log the policy trusts",
				show(v.Origin, 300)+" (log key "+show(v.LogKey, 300)+")", entry, fmt.Sprint(v.TreeSize), show(v.Quorum, 300)+" (satisfied)")
			for _, w := range v.Witnesses {
				witnesses.add(n, show(w.Name, 200), show(w.Fingerprint, 300), cosignedAt(w.Time), "yes")
			}
			for _, w := range v.NotCounted {
				witnesses.add(n, show(w.Name, 200), "—", cosignedAt(w.Time), "no: "+show(w.Reason, 500))
			}
		case e.Transparency == attest.TransparencyDigestOnly && ref != nil:
			refs.add(n, "DIGEST_ONLY: only the SHA-256 of the proof bytes was checked; no log was consulted",
				show(ref.LogID, 300)+" (claimed, not verified)", show(ref.EntryUUID, 300)+" (claimed, not verified)", "not verified", "not verified")
		case e.Transparency == attest.TransparencyFailed:
			log, entry := "—", "—"
			if ref != nil {
				log, entry = show(ref.LogID, 300)+" (claimed, not verified)", show(ref.EntryUUID, 300)+" (claimed, not verified)"
			}
			refs.add(n, "FAILED: the reference did not verify (see the diagnostics)", log, entry, "not verified", "not verified")
		case e.Transparency == attest.TransparencyNone:
			refs.add(n, "NONE: the statement carries no transparency reference", "—", "—", "—", "—")
		default: // a result put together by hand
			refs.add(n, show(e.Transparency, 40), "—", "—", "—", "—")
		}
	}
	return refs.orNil(), witnesses.orNil()
}

// cosignedAt is a cosignature timestamp (Unix seconds, as the witness
// wrote it) as an RFC 3339 UTC date-time.
func cosignedAt(ts uint64) string {
	const maxRFC3339 = 253402300799 // 9999-12-31T23:59:59Z
	if ts > maxRFC3339 {
		return fmt.Sprintf("Unix time %d", ts)
	}
	return time.Unix(int64(ts), 0).UTC().Format(time.RFC3339)
}
