package offline_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"golang.org/x/mod/sumdb/note"
)

// Witnessed says who cosigned and who is missing, and judges the quorum
// without failing on it: a 3-of-3 quorum with one witness missing is
// unmet, 2 of 3 with the same proof is met (control), and every other
// fault is still Verify's error.
func TestWitnessed(t *testing.T) {
	f := newFixture(t)
	p := f.proof(f.wa, f.wb).Marshal()
	// The fixture's cosignatures are dated 2026-01-01T00:00:0xZ.
	at := time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)
	trust := func(threshold int, members ...*offlinetest.Witness) offline.Trust {
		tr := f.trust(threshold, members...)
		tr.EvaluatedAt = at
		return tr
	}
	w, err := offline.Witnessed(p, f.want, trust(3, f.wa, f.wb, f.wc))
	if err != nil {
		t.Fatal(err)
	}
	if w.Satisfied() || w.Unmet.Counted != 2 || w.Unmet.Required != 3 || strings.Join(w.Missing, ",") != "WC" || len(w.Cosigned) != 2 {
		t.Fatalf("3 of 3: %+v", w)
	}
	if got, want := w.String(), "cosigned by 2 of 3: WA, WB; missing: WC; quorum witnesses not satisfied: cosignatures: 2 of 3 required (WC missing)"; got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	w, err = offline.Witnessed(p, f.want, trust(2, f.wa, f.wb, f.wc))
	if err != nil || !w.Satisfied() || w.String() != "cosigned by 2 of 3: WA, WB; missing: WC; quorum witnesses satisfied" {
		t.Errorf("2 of 3: %v %v", w, err)
	}
	// No cosignature at all, and no quorum.
	none := offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa}, nil, "none")
	none.EvaluatedAt = at
	w, err = offline.Witnessed(f.proof().Marshal(), f.want, none)
	if err != nil || !w.Satisfied() || w.String() != "cosigned by 0 of 1; missing: WA; quorum none satisfied" {
		t.Errorf("none: %v %v", w, err)
	}
	// Other faults fail as Verify does.
	var be *offline.BindingError
	if _, err := offline.Witnessed(p, f.other, trust(3, f.wa, f.wb, f.wc)); !errors.As(err, &be) {
		t.Errorf("another entry: %v", err)
	}
	var ue *offline.UnknownLogError
	other := offlinetest.NewLog(testOrigin, "another log")
	otherTrust := offlinetest.Trust([]*offlinetest.Log{other}, nil, nil, "none")
	otherTrust.EvaluatedAt = at
	if _, err := offline.Witnessed(p, f.want, otherTrust); !errors.As(err, &ue) {
		t.Errorf("another log: %v", err)
	}
}

// TestWitnessedTimeRule: Witnessed counts under the verifier's time rule.
// A correctly signed cosignature dated a year after the evaluation time
// does not count (NotCounted, naming the witness and why) and leaves a
// quorum that needs it unmet; the same proof evaluated a year later, and
// a cosignature in the same second as the evaluation time, count
// (controls); without an evaluation time Witnessed refuses to count at
// all (the hole through which such a cosignature once counted at logging
// and signing time), and a bad signature dated in the future is refused
// for its signature, not its time.
func TestWitnessedTimeRule(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)
	future := uint64(at.AddDate(1, 0, 0).Unix())
	p := f.proof(f.wa, f.wb.At(future)).Marshal()
	trust := func(at time.Time) offline.Trust {
		tr := f.trust(2, f.wa, f.wb)
		tr.EvaluatedAt = at
		return tr
	}
	w, err := offline.Witnessed(p, f.want, trust(at))
	if err != nil {
		t.Fatal(err)
	}
	if w.Satisfied() || len(w.Cosigned) != 1 || len(w.NotCounted) != 1 || w.NotCounted[0].Name != "WB" ||
		!strings.Contains(w.String(), "not counted: WB (cosigned 2027-08-27T18:05:00Z: dated after the evaluation time 2026-08-27T18:05:00Z)") ||
		!strings.Contains(w.String(), "quorum witnesses not satisfied: cosignatures: 1 of 2 required (WB missing)") {
		t.Fatalf("a cosignature a year ahead: %v", w)
	}
	// Controls: a year later it counts; so does one in the same second.
	if w, err := offline.Witnessed(p, f.want, trust(time.Unix(int64(future), 999e6))); err != nil || !w.Satisfied() {
		t.Errorf("evaluated at the cosignature's second: %v %v", w, err)
	}
	now := f.proof(f.wa, f.wb.At(uint64(at.Unix()))).Marshal()
	if w, err := offline.Witnessed(now, f.want, trust(at)); err != nil || !w.Satisfied() {
		t.Errorf("a cosignature dated at the evaluation time: %v %v", w, err)
	}
	var te *offline.TrustError
	if _, err := offline.Witnessed(p, f.want, f.trust(2, f.wa, f.wb)); !errors.As(err, &te) || !strings.Contains(err.Error(), "needs an evaluation time") {
		t.Errorf("no evaluation time: %v", err)
	}
	// A cosignature by WB's key that does not verify, dated in the future:
	// the signature is the fault.
	bad := f.proof(f.wa, f.wb.At(future))
	bad.Checkpoint = flipSignature(t, bad.Checkpoint, 2)
	var se *offline.SignatureError
	if _, err := offline.Witnessed(bad.Marshal(), f.want, trust(at)); !errors.As(err, &se) || !strings.Contains(err.Error(), `witness "WB"`) {
		t.Errorf("a bad signature dated in the future: %v", err)
	}
}

// CosignatureLines lists the cosignature-shaped lines, unverified, and not
// the log's own signature.
func TestCosignatureLines(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		cosigners []note.Signer
		want      string
	}{{nil, ""}, {[]note.Signer{f.wa, f.wc}, "witness-a.example.org+,witness-c.example.org+"}} {
		lines, err := offline.CosignatureLines(f.proof(c.cosigners...).Marshal())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range lines {
			names = append(names, l.Name+"+")
		}
		if strings.Join(names, ",") != c.want {
			t.Errorf("lines %v, want %s", names, c.want)
		}
		if s := offline.FormatSigLines(lines); len(lines) > 0 && !strings.HasPrefix(s, "witness-a.example.org+") {
			t.Errorf("FormatSigLines %q", s)
		}
	}
	if _, err := offline.CosignatureLines([]byte("not a proof")); !errors.Is(err, offline.ErrNotTLogProof) {
		t.Errorf("not a proof: %v", err)
	}
}
