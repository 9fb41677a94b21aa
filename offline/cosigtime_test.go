package offline_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/offline"
)

// TestCosignatureTimes: with an evaluation time, a cosignature dated after
// it is not counted (and the quorum error says why), and so is one older
// than the maximum age; cosignatures within the window count, and without
// an evaluation time no time is judged.
func TestCosignatureTimes(t *testing.T) {
	f := newFixture(t)
	// WA at 1767225600, WB 1767225601, WC 1767225602 (2026-01-01T00:00:0xZ).
	p := f.proof(f.wa, f.wb, f.wc).Marshal()
	at := func(unix int64, maxAge time.Duration, threshold int) offline.Trust {
		tr := f.trust(threshold, f.wa, f.wb, f.wc)
		tr.EvaluatedAt = time.Unix(unix, 0)
		tr.MaxCosignatureAge = maxAge
		return tr
	}
	// Control: evaluated after every cosignature, no maximum age.
	v, err := offline.Verify(p, f.want, at(1767225602, 0, 3))
	if err != nil || len(v.Checkpoint.Witnesses) != 3 || len(v.Checkpoint.NotCounted) != 0 {
		t.Fatalf("control: %+v, %v", v, err)
	}
	// Evaluated between WB and WC: WC is in the future.
	v, err = offline.Verify(p, f.want, at(1767225601, 0, 2))
	if err != nil || len(v.Checkpoint.Witnesses) != 2 || len(v.Checkpoint.NotCounted) != 1 || v.Checkpoint.NotCounted[0].Name != "WC" ||
		!strings.Contains(v.Checkpoint.NotCounted[0].Reason, "dated after the evaluation time 2026-01-01T00:00:01Z") {
		t.Fatalf("WC in the future, 2 of 3: %+v, %v", v, err)
	}
	_, err = offline.Verify(p, f.want, at(1767225601, 0, 3))
	var qe *offline.QuorumError
	if !errors.As(err, &qe) || qe.Counted != 2 || !strings.Contains(err.Error(), "not counted: WC (cosigned 2026-01-01T00:00:02Z: dated after the evaluation time") {
		t.Fatalf("WC in the future, 3 of 3: %v", err)
	}
	// A day later, with a maximum age of one day: WA is one second too old.
	day := int64(86400)
	v, err = offline.Verify(p, f.want, at(1767225601+day, 24*time.Hour, 2))
	if err != nil || len(v.Checkpoint.NotCounted) != 1 || v.Checkpoint.NotCounted[0].Name != "WA" ||
		!strings.Contains(v.Checkpoint.NotCounted[0].Reason, "older than the maximum cosignature age of 86400s") {
		t.Fatalf("WA too old: %+v, %v", v, err)
	}
	// Control of the age: exactly one day old counts.
	if v, err = offline.Verify(p, f.want, at(1767225600+day, 24*time.Hour, 3)); err != nil || len(v.Checkpoint.NotCounted) != 0 {
		t.Fatalf("exactly the maximum age: %+v, %v", v, err)
	}
	// A trust that asks for an age without a time, or a negative age, is
	// unusable.
	tr := f.trust(1, f.wa)
	tr.MaxCosignatureAge = time.Hour
	var te *offline.TrustError
	if _, err := offline.Verify(p, f.want, tr); !errors.As(err, &te) {
		t.Fatalf("age without time: %v", err)
	}
	if _, err := offline.Verify(p, f.want, at(1767225602, -time.Hour, 1)); !errors.As(err, &te) {
		t.Fatalf("negative age: %v", err)
	}
	// Without an evaluation time, a cosignature from 2100 counts (times
	// are reported, not judged).
	late := f.proof(f.wa.At(4102444800)).Marshal()
	if _, err := offline.Verify(late, f.want, f.trust(1, f.wa)); err != nil {
		t.Fatalf("no evaluation time: %v", err)
	}
	if _, err := offline.Verify(late, f.want, at(1767225602, 0, 1)); !errors.As(err, &qe) {
		t.Fatalf("a cosignature dated 2100 at an evaluation in 2026: %v", err)
	}
}
