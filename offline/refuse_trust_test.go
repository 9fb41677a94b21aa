package offline_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/signednote"
)

// Trust.Check refuses every trust that is not usable, with a *TrustError
// naming the fault: a log without a key or origin, or with a key that is
// not a log key; a witness without a key, with a key of another type,
// unnamed or named twice; a key listed twice; a group unnamed or named
// twice, with a threshold outside 1..members, a member that is not a
// witness or an earlier group, or a witness reachable twice; a quorum
// that names nothing defined; and the time rule's faults. The fixture's
// trust passes (control), and so does an ECDSA (Rekor) log key.
func TestTrustCheckRefuses(t *testing.T) {
	f := newFixture(t)
	base := func() offline.Trust {
		return offlinetest.Trust([]*offlinetest.Log{f.log}, []*offlinetest.Witness{f.wa, f.wb, f.wc},
			[]offline.Group{{Name: "two", Threshold: 2, Members: []string{"WA", "WB"}}}, "two")
	}
	if err := base().Check(); err != nil {
		t.Fatalf("control: %v", err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ecdsaKey, err := signednote.ParseVerifier(signednote.FormatECDSAVerifierKey("rekor.example.org", der))
	if err != nil {
		t.Fatal(err)
	}
	withECDSA := base()
	withECDSA.Logs = append(withECDSA.Logs, offline.Log{Origin: "rekor.example.org - 1", Key: ecdsaKey})
	if err := withECDSA.Check(); err != nil {
		t.Errorf("control: an ECDSA log key: %v", err)
	}

	for _, tt := range []struct {
		name   string
		change func(*offline.Trust)
		want   string
	}{
		{"log without key", func(tr *offline.Trust) { tr.Logs[0].Key = nil }, "log 0: no key"},
		{"log without origin", func(tr *offline.Trust) { tr.Logs[0].Origin = "" }, "log 0 (" + f.log.Key.Name() + "): empty origin"},
		{"witness key as log key", func(tr *offline.Trust) { tr.Logs[0].Key = f.wc.Key; tr.Witnesses = tr.Witnesses[:2] },
			"log witness-c.example.org: key type 0x04 is not a log key type (0x01 or 0x02)"},
		{"log key twice", func(tr *offline.Trust) { tr.Logs = append(tr.Logs, tr.Logs[0]) },
			"log " + f.log.Key.Name() + " has the same key as log " + f.log.Key.Name() + ": one key counts once"},
		{"witness without key", func(tr *offline.Trust) { tr.Witnesses[2].Key = nil }, `witness "WC": no key`},
		{"log key as witness key", func(tr *offline.Trust) { tr.Witnesses[2].Key = f.log.Key }, `witness "WC": key type 0x01, want 0x04 (cosignature/v1)`},
		{"witness unnamed", func(tr *offline.Trust) { tr.Witnesses[2].Name = "" }, `witness name "" is empty or defined twice`},
		{"witness named twice", func(tr *offline.Trust) { tr.Witnesses[2].Name = "WA" }, `witness name "WA" is empty or defined twice`},
		{"witness key twice", func(tr *offline.Trust) { tr.Witnesses[2].Key = f.wa.Key },
			`witness "WC" has the same key as witness "WA": one key counts once`},
		{"group named as a witness", func(tr *offline.Trust) { tr.Groups[0].Name = "WA" }, `group name "WA" is empty or defined twice`},
		{"group unnamed", func(tr *offline.Trust) { tr.Groups[0].Name = "" }, `group name "" is empty or defined twice`},
		{"threshold 0", func(tr *offline.Trust) { tr.Groups[0].Threshold = 0 }, `group "two": threshold 0 is outside 1..2`},
		{"threshold above members", func(tr *offline.Trust) { tr.Groups[0].Threshold = 3 }, `group "two": threshold 3 is outside 1..2`},
		{"unknown member", func(tr *offline.Trust) { tr.Groups[0].Members = []string{"WA", "WZ"} },
			`group "two": member "WZ" is not a witness or an earlier group`},
		{"later group as member", func(tr *offline.Trust) {
			tr.Groups = []offline.Group{{Name: "outer", Threshold: 1, Members: []string{"inner"}}, {Name: "inner", Threshold: 1, Members: []string{"WA"}}}
			tr.Quorum = "outer"
		}, `group "outer": member "inner" is not a witness or an earlier group`},
		{"witness reachable twice", func(tr *offline.Trust) {
			tr.Groups = append(tr.Groups, offline.Group{Name: "top", Threshold: 2, Members: []string{"two", "WA"}})
			tr.Quorum = "top"
		}, `group "top": witness "WA" is reachable through "two" and "WA" and would count twice`},
		{"unknown quorum", func(tr *offline.Trust) { tr.Quorum = "three" }, `quorum names unknown witness or group "three"`},
		{"negative age", func(tr *offline.Trust) { tr.MaxCosignatureAge = -time.Second }, "maximum cosignature age -1s is negative"},
		{"age without time", func(tr *offline.Trust) { tr.MaxCosignatureAge = time.Hour }, "a maximum cosignature age needs an evaluation time"},
		{"time before 1970", func(tr *offline.Trust) { tr.EvaluatedAt = time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC) }, "evaluation time before 1970"},
		{"age under a second", func(tr *offline.Trust) {
			tr.EvaluatedAt, tr.MaxCosignatureAge = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 500*time.Millisecond
		}, "maximum cosignature age 500ms is less than a second"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := base()
			tr.Logs = append([]offline.Log(nil), tr.Logs...)
			tr.Witnesses = append([]offline.Witness(nil), tr.Witnesses...)
			tr.Groups = append([]offline.Group(nil), tr.Groups...)
			tt.change(&tr)
			err := tr.Check()
			var te *offline.TrustError
			if !errors.As(err, &te) || te.Msg != tt.want || err.Error() != "trust: "+tt.want {
				t.Fatalf("got %v, want a TrustError %q", err, tt.want)
			}
			// Verify refuses it the same way, before reading the proof.
			if _, err := offline.Verify(f.proof(f.wa, f.wb).Marshal(), f.want, tr); !errors.As(err, &te) || te.Msg != tt.want {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

// VerifyCheckpoint (a checkpoint on its own, as offline/rekor verifies
// Rekor's) refuses an unusable trust, a note that does not parse, a
// checkpoint not signed by the log key given, one of another origin, and
// one short of the quorum; the log's checkpoint with the quorum's
// cosignatures verifies (control).
func TestVerifyCheckpointRefuses(t *testing.T) {
	f := newFixture(t)
	trust := f.trust(2, f.wa, f.wb)
	signed := f.log.Sign(f.log.Body(f.log.Size()), f.wa, f.wb)

	cp, err := offline.VerifyCheckpoint(signed, f.log.Origin, f.log.Key, trust)
	if err != nil || cp.Size != f.log.Size() || cp.Quorum != "witnesses" || len(cp.Witnesses) != 2 {
		t.Fatalf("control: %+v %v", cp, err)
	}
	none := offline.Trust{}
	if cp, err := offline.VerifyCheckpoint(f.log.Sign(f.log.Body(f.log.Size())), f.log.Origin, f.log.Key, none); err != nil || cp.Quorum != "none" {
		t.Fatalf("control without quorum: %+v %v", cp, err)
	}

	bad := trust
	bad.Quorum = "nobody"
	var te *offline.TrustError
	if _, err := offline.VerifyCheckpoint(signed, f.log.Origin, f.log.Key, bad); !errors.As(err, &te) {
		t.Errorf("unusable trust: %v", err)
	}
	var ce *offline.CheckpointError
	if _, err := offline.VerifyCheckpoint([]byte("not a note"), f.log.Origin, f.log.Key, trust); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "checkpoint: malformed note") {
		t.Errorf("not a note: %v", err)
	}
	other := offlinetest.NewLog(f.log.Origin, "another log key")
	other.Append([]byte("leaf"))
	var ue *offline.UnknownLogError
	if _, err := offline.VerifyCheckpoint(other.Sign(other.Body(1), f.wa, f.wb), f.log.Origin, f.log.Key, trust); !errors.As(err, &ue) {
		t.Errorf("another log's key: %v", err)
	}
	var oe *offline.OriginError
	if _, err := offline.VerifyCheckpoint(signed, "another.example.org/log", f.log.Key, trust); !errors.As(err, &oe) || oe.Got != f.log.Origin || oe.Want != "another.example.org/log" {
		t.Errorf("another origin: %v", err)
	}
	var qe *offline.QuorumError
	if _, err := offline.VerifyCheckpoint(f.log.Sign(f.log.Body(f.log.Size()), f.wa), f.log.Origin, f.log.Key, trust); !errors.As(err, &qe) || qe.Counted != 1 || qe.Required != 2 {
		t.Errorf("one cosignature of two: %v", err)
	}
}

// VerifyClaimed refuses a reference whose entryUuid is not the proof's
// leaf index, or whose logId is not the checkpoint's origin, naming both;
// the claim that matches verifies (control).
func TestVerifyClaimedRefuses(t *testing.T) {
	f := newFixture(t)
	trust := f.trust(2, f.wa, f.wb)
	proof := f.proof(f.wa, f.wb).Marshal()
	index := func(n uint64) string { return strconv.FormatUint(n, 10) }

	if _, err := offline.VerifyClaimed(proof, f.want, offline.Claim{LogID: f.log.Origin, EntryUUID: index(f.index)}, trust); err != nil {
		t.Fatalf("control: %v", err)
	}
	_, err := offline.VerifyClaimed(proof, f.want, offline.Claim{LogID: f.log.Origin, EntryUUID: index(f.index + 1)}, trust)
	if want := `entryUuid is "` + index(f.index+1) + `", the proof is for leaf index ` + index(f.index); err == nil || err.Error() != want {
		t.Errorf("another index: %v, want %q", err, want)
	}
	_, err = offline.VerifyClaimed(proof, f.want, offline.Claim{LogID: "another.example.org/log", EntryUUID: index(f.index)}, trust)
	if want := `logId is "another.example.org/log", the checkpoint's origin is "` + f.log.Origin + `"`; err == nil || err.Error() != want {
		t.Errorf("another log id: %v, want %q", err, want)
	}
}
