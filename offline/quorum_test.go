package offline_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"golang.org/x/mod/sumdb/note"
)

// Groups nested in groups (the witness quorum of a tlog policy with
// "group top 2 east west"): a group counts as one member of its parent
// when its own threshold is met, at every depth. Each case that fails names
// the inner group that fell short; the controls show that a fault elsewhere
// (a witness outside the short group) is not what is reported.
func TestVerifyNestedQuorum(t *testing.T) {
	f := newFixture(t)
	wd := offlinetest.NewWitness("WD", "witness-d.example.org", "witness d", 1767225603)
	ws := []*offlinetest.Witness{f.wa, f.wb, f.wc, wd}
	groups := []offline.Group{
		{Name: "east", Threshold: 2, Members: []string{"WA", "WB"}},
		{Name: "west", Threshold: 1, Members: []string{"WC", "WD"}},
		{Name: "top", Threshold: 2, Members: []string{"east", "west"}},
		// One level deeper: a group whose only member is a group of groups.
		{Name: "root", Threshold: 1, Members: []string{"top"}},
	}
	for _, tc := range []struct {
		name      string
		quorum    string
		cosigners []note.Signer
		// nil: verifies; else the QuorumError's counts and missing members.
		counted, required int
		missing           []string
	}{
		{name: "both inner groups met", quorum: "top", cosigners: []note.Signer{f.wa, f.wb, wd}},
		{name: "every witness", quorum: "top", cosigners: []note.Signer{f.wa, f.wb, f.wc, wd}},
		{name: "east falls short (1 of 2)", quorum: "top", cosigners: []note.Signer{f.wa, f.wc, wd},
			counted: 1, required: 2, missing: []string{"east"}},
		{name: "west falls short (0 of 1)", quorum: "top", cosigners: []note.Signer{f.wa, f.wb},
			counted: 1, required: 2, missing: []string{"west"}},
		{name: "both fall short", quorum: "top", cosigners: []note.Signer{f.wb},
			counted: 0, required: 2, missing: []string{"east", "west"}},
		{name: "two levels down, met", quorum: "root", cosigners: []note.Signer{f.wa, f.wb, f.wc}},
		{name: "two levels down, east short", quorum: "root", cosigners: []note.Signer{f.wb, f.wc, wd},
			counted: 0, required: 1, missing: []string{"top"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trust := offlinetest.Trust([]*offlinetest.Log{f.log}, ws, groups, tc.quorum)
			v, err := offline.Verify(f.proof(tc.cosigners...).Marshal(), f.want, trust)
			if tc.missing == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if v.Checkpoint.Quorum != tc.quorum || len(v.Checkpoint.Witnesses) != len(tc.cosigners) {
					t.Errorf("quorum %q, %d witnesses counted; want %q, %d", v.Checkpoint.Quorum, len(v.Checkpoint.Witnesses), tc.quorum, len(tc.cosigners))
				}
				return
			}
			var qe *offline.QuorumError
			if !errors.As(err, &qe) || v != nil {
				t.Fatalf("Verify = %v, %v; want a *QuorumError", v, err)
			}
			if qe.Quorum != tc.quorum || qe.Counted != tc.counted || qe.Required != tc.required || !slices.Equal(qe.Missing, tc.missing) {
				t.Errorf("QuorumError %+v; want quorum %s, %d of %d, missing %v", qe, tc.quorum, tc.counted, tc.required, tc.missing)
			}
		})
	}
}
