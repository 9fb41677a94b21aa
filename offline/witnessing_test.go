package offline_test

import (
	"errors"
	"strings"
	"testing"

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
	w, err := offline.Witnessed(p, f.want, f.trust(3, f.wa, f.wb, f.wc))
	if err != nil {
		t.Fatal(err)
	}
	if w.Satisfied() || w.Unmet.Counted != 2 || w.Unmet.Required != 3 || strings.Join(w.Missing, ",") != "WC" || len(w.Cosigned) != 2 {
		t.Fatalf("3 of 3: %+v", w)
	}
	if got, want := w.String(), "cosigned by 2 of 3: WA, WB; missing: WC; quorum witnesses not satisfied: cosignatures: 2 of 3 required (WC missing)"; got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	w, err = offline.Witnessed(p, f.want, f.trust(2, f.wa, f.wb, f.wc))
	if err != nil || !w.Satisfied() || w.String() != "cosigned by 2 of 3: WA, WB; missing: WC; quorum witnesses satisfied" {
		t.Errorf("2 of 3: %v %v", w, err)
	}
	// No cosignature at all, and no quorum.
	none := offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa}, nil, "none")
	w, err = offline.Witnessed(f.proof().Marshal(), f.want, none)
	if err != nil || !w.Satisfied() || w.String() != "cosigned by 0 of 1; missing: WA; quorum none satisfied" {
		t.Errorf("none: %v %v", w, err)
	}
	// Other faults fail as Verify does.
	var be *offline.BindingError
	if _, err := offline.Witnessed(p, f.other, f.trust(3, f.wa, f.wb, f.wc)); !errors.As(err, &be) {
		t.Errorf("another entry: %v", err)
	}
	var ue *offline.UnknownLogError
	other := offlinetest.NewLog(testOrigin, "another log")
	if _, err := offline.Witnessed(p, f.want, offlinetest.Trust([]*offlinetest.Log{other}, nil, nil, "none")); !errors.As(err, &ue) {
		t.Errorf("another log: %v", err)
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
