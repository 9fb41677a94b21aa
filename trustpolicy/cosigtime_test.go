package trustpolicy

import (
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
)

// TestCosignatureTimes: the evaluation time reaches the cosignature count
// (a cosignature dated after it does not count, and the notes or the
// diagnostic say so), and transparency.maxCosignatureAgeSeconds is applied;
// controls: the same attestation evaluated later, or without the maximum
// age, verifies.
func TestCosignatureTimes(t *testing.T) {
	f := newTLogFixture(t)
	one := attesttest.TestOnlyKeyOne()
	// WA cosigns in 2100, WB at 2026-01-01T00:00:01Z.
	ref := f.ref(2, f.wa.At(4102444800), f.wb)
	w := attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, ref))

	// 1 of 2 at the evaluation time: WB counts, WA does not, and the note says so.
	r := verify(t, w, withTLog(testPolicy(), f.text("1")), attesttest.EvaluatedAt)
	note := strings.Join(r.Evaluation.Notes, "\n")
	if !r.Valid || !strings.Contains(note, "cosigned by WB") || !strings.Contains(note, "not counted: WA (cosigned 2100-01-01T00:00:00Z: dated after the evaluation time") {
		t.Fatalf("1 of 2: valid %t %s\n%s", r.Valid, r.Detail, note)
	}
	// The evaluation records both, with their times, for the report.
	v := r.Evaluation.Envelopes[0].Verified
	if v == nil || len(v.Witnesses) != 1 || v.Witnesses[0].Name != "WB" || v.Witnesses[0].Time != 1767225601 ||
		len(v.NotCounted) != 1 || v.NotCounted[0].Name != "WA" || v.NotCounted[0].Time != 4102444800 ||
		!strings.HasPrefix(v.NotCounted[0].Reason, "dated after the evaluation time") {
		t.Fatalf("1 of 2: verified %+v", v)
	}
	// 2 of 2: fails, naming WA's time.
	r = verify(t, w, withTLog(testPolicy(), f.text("2")), attesttest.EvaluatedAt)
	if r.Valid || r.Diagnostics[0] != attest.CodeTransparencyInvalid || !strings.Contains(r.Detail, "not counted: WA (cosigned 2100-01-01T00:00:00Z: dated after the evaluation time") {
		t.Fatalf("2 of 2: valid %t %v %s", r.Valid, r.Diagnostics, r.Detail)
	}
	// Control: both dated before the evaluation time, 2 of 2.
	okRef := f.ref(2, f.wa, f.wb)
	wok := attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, okRef))
	if r = verify(t, wok, withTLog(testPolicy(), f.text("2")), attesttest.EvaluatedAt); !r.Valid {
		t.Fatalf("control: %s", r.Detail)
	}
	// A maximum age of one second: the 2026-01-01 cosignatures are too old
	// at the evaluation time; without it they count (the control above).
	d := withTLog(testPolicy(), f.text("1"))
	d.Transparency.MaxCosignatureAgeSeconds = 1
	r = verify(t, wok, d, attesttest.EvaluatedAt)
	if r.Valid || !strings.Contains(r.Detail, "older than the maximum cosignature age of 1s") {
		t.Fatalf("max age: valid %t %s", r.Valid, r.Detail)
	}
	// The schema bounds the field.
	for _, bad := range []int64{-1, MaxCosignatureAgeLimit + 1} {
		d.Transparency.MaxCosignatureAgeSeconds = bad
		if _, problems := Load(d.Value(), testVal); len(problems) == 0 {
			t.Errorf("maxCosignatureAgeSeconds %d accepted", bad)
		}
	}
	d.Transparency.MaxCosignatureAgeSeconds = MaxCosignatureAgeLimit
	if _, problems := Load(d.Value(), testVal); len(problems) != 0 {
		t.Errorf("maxCosignatureAgeSeconds at the limit: %v", problems)
	}
}
