package rekor_test

import (
	"encoding/hex"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/offline/rekor"
	"github.com/mcpres/mcpres/offline/rekor/rekortest"
	"github.com/transparency-dev/merkle/rfc6962"
)

type fixture struct {
	log       *rekortest.Log
	want      offline.Entry
	index     int64
	otherIdx  int64
	wa, wb    *offlinetest.Witness
	trustNone offline.Trust
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, b, err := canonjson.ReadFile(filepath.Join("..", "..", "testdata", "bundles", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{log: rekortest.NewLog(t), want: offline.EntryFor(b)}
	entry, _ := f.want.Marshal()
	other := f.want
	other.ExecutionInstanceDigest = strings.Repeat("ef", 32)
	otherBytes, _ := other.Marshal()
	f.log.Append(rekortest.HashedRekordBody(t, []byte("another artifact")))
	f.index = f.log.Append(rekortest.HashedRekordBody(t, entry))
	f.otherIdx = f.log.Append(rekortest.HashedRekordBody(t, otherBytes))
	f.log.Append(rekortest.HashedRekordBody(t, []byte("yet another artifact")))
	f.log.Append(rekortest.HashedRekordBody(t, []byte("and one more")))
	f.wa = offlinetest.NewWitness("WA", "witness-a.example.org", "rekor witness a", 1767225600)
	f.wb = offlinetest.NewWitness("WB", "witness-b.example.org", "rekor witness b", 1767225601)
	f.trustNone = offline.Trust{Logs: []offline.Log{{Origin: rekortest.Name, Key: f.log.Key}}, Quorum: "none"}
	return f
}

// A Rekor-format entry built with rekor's own types verifies offline.
func TestVerifyRekorEntry(t *testing.T) {
	f := newFixture(t)
	e := f.log.Entry(t, f.index)
	v, err := rekor.Verifier{}.Verify(rekortest.Marshal(t, e), f.want, f.trustNone)
	if err != nil {
		t.Fatal(err)
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(f.log.Bodies[f.index])
	if v.Kind != offline.KindRekorV1 || v.LogID != f.log.LogID || v.EntryUUID != hex.EncodeToString(leaf) || v.Index != 1 ||
		v.Checkpoint.Size != 5 || v.Checkpoint.Origin != rekortest.Name+" - "+rekortest.TreeID || !reflect.DeepEqual(v.Entry, f.want) {
		t.Errorf("verified %+v", v)
	}
	if err := v.MatchesReference(f.log.LogID, "0123456789abcdef"+v.EntryUUID); err != nil {
		t.Errorf("Rekor UUID with tree ID: %v", err)
	}
	// Witness cosignatures on a Rekor checkpoint count like any other.
	withWitnesses := f.trustNone
	withWitnesses.Witnesses = []offline.Witness{{Name: "WA", Key: f.wa.Key}, {Name: "WB", Key: f.wb.Key}}
	withWitnesses.Groups = []offline.Group{{Name: "both", Threshold: 2, Members: []string{"WA", "WB"}}}
	withWitnesses.Quorum = "both"
	if v, err := (rekor.Verifier{}).Verify(rekortest.Marshal(t, f.log.Entry(t, f.index, f.wa, f.wb)), f.want, withWitnesses); err != nil || len(v.Checkpoint.Witnesses) != 2 {
		t.Errorf("cosigned Rekor checkpoint: %v", err)
	}
	if _, err := (rekor.Verifier{}).Verify(rekortest.Marshal(t, f.log.Entry(t, f.index, f.wa)), f.want, withWitnesses); !is[*offline.QuorumError](err) {
		t.Errorf("one cosignature of two: %v", err)
	}
}

// A tampered one fails, each at its own step.
func TestVerifyRekorEntryTampers(t *testing.T) {
	f := newFixture(t)
	other := rekortest.NewLog(t)
	tests := []struct {
		name   string
		entry  func() []byte
		trust  *offline.Trust
		check  func(error) bool
		detail string
	}{
		{"entry for another bundle", func() []byte { return rekortest.Marshal(t, f.log.Entry(t, f.otherIdx)) },
			nil, is[*offline.BindingError], "log entry is for another bundle: hashedrekord data.hash (sha256 of the mcpres.transparency-entry/v1)"},
		{"flipped proof hash", func() []byte {
			e := f.log.Entry(t, f.index)
			e.Verification.InclusionProof.Hashes[0] = flipHex(e.Verification.InclusionProof.Hashes[0])
			return rekortest.Marshal(t, e)
		}, nil, is[*offline.InclusionError], "inclusion proof of leaf 1 in the tree of size 5 does not verify"},
		{"wrong leaf index", func() []byte {
			e := f.log.Entry(t, f.index)
			i := int64(2)
			e.Verification.InclusionProof.LogIndex = &i
			return rekortest.Marshal(t, e)
		}, nil, is[*offline.InclusionError], "inclusion proof of leaf 2 in the tree of size 5 does not verify"},
		{"tampered integrated time (SET)", func() []byte {
			e := f.log.Entry(t, f.index)
			it := *e.IntegratedTime + 1
			e.IntegratedTime = &it
			return rekortest.Marshal(t, e)
		}, nil, is[*rekor.SETError], "Rekor entry: signed entry timestamp: unable to verify bundle"},
		{"log not in policy", func() []byte {
			e := f.log.Entry(t, f.index)
			e.LogID = &other.LogID
			return rekortest.Marshal(t, e)
		}, nil, is[*offline.UnknownLogError], "signatures by Rekor logID " + other.LogID},
		{"checkpoint signed by another key", func() []byte {
			e := f.log.Entry(t, f.index)
			other.Tree = f.log.Tree
			cp := other.Checkpoint(t, rekortest.Name+" - "+rekortest.TreeID, 5)
			e.Verification.InclusionProof.Checkpoint = &cp
			return rekortest.Marshal(t, e)
		}, nil, is[*offline.UnknownLogError], "checkpoint is not signed by a log key of the policy"},
		{"checkpoint of another size", func() []byte {
			e := f.log.Entry(t, f.index)
			cp := f.log.Checkpoint(t, rekortest.Name+" - "+rekortest.TreeID, 4)
			e.Verification.InclusionProof.Checkpoint = &cp
			return rekortest.Marshal(t, e)
		}, nil, is[*offline.CheckpointError], "the checkpoint is for tree size 4"},
		{"checkpoint from another origin", func() []byte {
			e := f.log.Entry(t, f.index)
			cp := f.log.Checkpoint(t, "rekor.elsewhere.example - 1", 5)
			e.Verification.InclusionProof.Checkpoint = &cp
			return rekortest.Marshal(t, e)
		}, nil, is[*offline.OriginError], `checkpoint origin is "rekor.elsewhere.example - 1", the log's is "rekor.example.org - TREE_ID"`},
		{"duplicate JSON member", func() []byte {
			b := rekortest.Marshal(t, f.log.Entry(t, f.index))
			return append([]byte(`{"logIndex":0,`), b[1:]...)
		}, nil, is[*rekor.EntryError], "Rekor entry: not strict JSON: duplicate key"},
		{"unknown member", func() []byte {
			b := rekortest.Marshal(t, f.log.Entry(t, f.index))
			return append([]byte(`{"uuid":"x",`), b[1:]...)
		}, nil, is[*rekor.EntryError], `Rekor entry: unknown member "uuid" in /`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trust := f.trustNone
			if tt.trust != nil {
				trust = *tt.trust
			}
			v, err := rekor.Verifier{}.Verify(tt.entry(), f.want, trust)
			if err == nil || v != nil {
				t.Fatalf("verified %+v", v)
			}
			if !tt.check(err) || !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %T %q\nwant one containing %q", err, err, tt.detail)
			}
		})
	}
}

func flipHex(h string) string {
	b, _ := hex.DecodeString(h)
	b[0] ^= 1
	return hex.EncodeToString(b)
}

func is[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}
