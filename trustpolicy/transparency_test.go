package trustpolicy

import (
	"crypto/ed25519"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/signednote"
	"golang.org/x/mod/sumdb/note"
)

const tlogOrigin = "log.example.org/mcpres-trustpolicy-test"

// tlogFixture is a log holding the committed fixtures' bundle entry at
// leaf 2 and another bundle's at leaf 3, and two witnesses.
type tlogFixture struct {
	log    *offlinetest.Log
	wa, wb *offlinetest.Witness
	bundle *canonjson.Value
}

func newTLogFixture(t testing.TB) *tlogFixture {
	t.Helper()
	f := &tlogFixture{
		log:    offlinetest.NewLog(tlogOrigin, "trustpolicy log"),
		wa:     offlinetest.NewWitness("WA", "witness-a.example.org", "trustpolicy witness a", 1767225600),
		wb:     offlinetest.NewWitness("WB", "witness-b.example.org", "trustpolicy witness b", 1767225601),
		bundle: fixture(t, "witnessed.json").Get("bundle"),
	}
	entry := offline.EntryFor(f.bundle)
	other := entry
	other.ScenarioFingerprint = strings.Repeat("cd", 32)
	f.log.Append([]byte("leaf 0"), []byte("leaf 1"), mustEntry(t, entry), mustEntry(t, other), []byte("leaf 4"))
	return f
}

func mustEntry(t testing.TB, e offline.Entry) []byte {
	t.Helper()
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// text is a tlog policy with the log and both witnesses, needing k of them.
func (f *tlogFixture) text(k string) string {
	return "log " + f.log.VKey + "\nwitness WA " + f.wa.VKey + "\nwitness WB " + f.wb.VKey + "\ngroup witnesses " + k + " WA WB\nquorum witnesses\n"
}

// ref is the reference of leaf i with the given cosigners.
func (f *tlogFixture) ref(i uint64, cosigners ...note.Signer) *attest.TransparencyReference {
	return attest.NewTransparencyReference(tlogOrigin, strconv.FormatUint(i, 10), f.log.Proof(i, cosigners...).Marshal())
}

func (f *tlogFixture) sign(t testing.TB, priv ed25519.PrivateKey, identity string, ref *attest.TransparencyReference) *canonjson.Value {
	t.Helper()
	o := attesttest.Options(identity)
	o.Transparency = ref
	env, err := attest.Sign(f.bundle, priv, o)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func withTLog(d *Document, text string) *Document {
	d.Transparency = &Transparency{TLogPolicy: text}
	return d
}

func TestTransparencyVerifiedOffline(t *testing.T) {
	f := newTLogFixture(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	good := f.ref(2, f.wa, f.wb)

	// No witnesses rule: SIGNED_WITH_IDENTITY and a verified reference.
	d := withTLog(testPolicy(), f.text("2"))
	r := verify(t, attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, good)), d, attesttest.EvaluatedAt)
	if !r.Valid || r.Level != attest.TransparencyRecorded || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyVerifiedOffline {
		t.Fatalf("valid %t level %s %v: %s %v", r.Valid, r.Level, r.Diagnostics, r.Detail, r.Evaluation.Notes)
	}
	got := r.Evaluation.Envelopes[0].Verified
	if got == nil || got.Kind != offline.KindTLogProof.String() || got.Origin != tlogOrigin || got.TreeSize != 5 || got.LeafIndex != 2 ||
		!strings.HasPrefix(got.LogKey, tlogOrigin+"+") || got.Quorum != "witnesses" || len(got.Witnesses) != 2 ||
		got.Witnesses[0] != (signednote.CountedCosignature{Name: "WA", Fingerprint: mustVKey(t, f.wa.VKey).Fingerprint(), Time: 1767225600}) ||
		got.Witnesses[1] != (signednote.CountedCosignature{Name: "WB", Fingerprint: mustVKey(t, f.wb.VKey).Fingerprint(), Time: 1767225601}) ||
		len(got.NotCounted) != 0 {
		t.Errorf("verified transparency = %+v", got)
	}
	if ref := r.Evaluation.Envelopes[0].Reference; ref == nil || *ref != *good {
		t.Errorf("recorded reference %+v, want the signed %+v", ref, good)
	}
	note := r.Evaluation.Notes[len(r.Evaluation.Notes)-1]
	for _, want := range []string{
		"transparency: 1 of 1 envelopes' references verified offline against the policy's tlog policy",
		`envelope 0: c2sp.org/tlog-proof@v1 leaf 2 of "` + tlogOrigin + `" (tree size 5, log key ` + tlogOrigin + "+",
		"cosigned by WA " + mustVKey(t, f.wa.VKey).Fingerprint() + ", WB " + mustVKey(t, f.wb.VKey).Fingerprint() + ", quorum witnesses",
		"SIGNED_WITH_IDENTITY reached, so TRANSPARENCY_RECORDED",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q\nwant %q", note, want)
		}
	}

	// With a witnesses rule the level below is WITNESSED: one signer with
	// a verified reference is not enough, two are.
	dw := withTLog(testPolicy(), f.text("2"))
	dw.Witnesses = witnessRule(1, true, "signer-two")
	r = verify(t, attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, good)), dw, attesttest.EvaluatedAt)
	if r.Valid || r.Diagnostics[0] != attest.CodeClassificationOverclaim || !strings.Contains(r.Detail, "TRANSPARENCY_RECORDED also needs WITNESSED under this policy, which is not reached") {
		t.Errorf("one signer under a witnesses rule: %v %s", r.Diagnostics, r.Detail)
	}
	r = verify(t, attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, good), f.sign(t, two, attesttest.IdentityTwo, nil)), dw, attesttest.EvaluatedAt)
	if !r.Valid || r.Level != attest.TransparencyRecorded {
		t.Errorf("witnessed with a reference: valid %t level %s %s", r.Valid, r.Level, r.Detail)
	}

	// A transparency section and no reference: not derivable.
	r = verify(t, attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, nil)), d, attesttest.EvaluatedAt)
	if r.Valid || !strings.Contains(r.Detail, "transparency: 0 of 1 envelopes' references verified offline against the policy's tlog policy; TRANSPARENCY_RECORDED needs one") {
		t.Errorf("no reference: %v %s", r.Diagnostics, r.Detail)
	}

	// The upstream 0.2.0 policy keeps the digest-only meaning for the very
	// same attestation.
	w := attest.Wrap(f.bundle, attest.TransparencyRecorded, f.sign(t, one, attesttest.IdentityOne, good))
	ru, err := attest.Verify(w, attest.Options{Policy: Open(attesttest.Policy(attesttest.PolicyOptions{}), OpenOptions{Validator: testVal}), EvaluatedAt: attesttest.EvaluatedAt, Validator: testVal})
	if err != nil || !ru.Valid || ru.Level != attest.TransparencyRecorded || ru.Evaluation.Envelopes[0].Transparency != attest.TransparencyDigestOnly {
		t.Errorf("0.2.0 policy: %v valid %t level %s transparency %s", err, ru.Valid, ru.Level, ru.Evaluation.Envelopes[0].Transparency)
	}
	if ru.Evaluation.Envelopes[0].Verified != nil {
		t.Errorf("0.2.0 policy: DIGEST_ONLY with verified transparency %+v", ru.Evaluation.Envelopes[0].Verified)
	}
}

// countingVerifier verifies tlog-proofs with offline.Verify and counts the
// calls.
type countingVerifier struct{ n *int }

func (countingVerifier) Kind() offline.Kind { return offline.KindTLogProof }
func (c countingVerifier) Verify(proof []byte, want offline.Entry, trust offline.Trust) (*offline.Verified, error) {
	*c.n++
	return offline.Verify(proof, want, trust)
}

// Each reference is verified once per verification: the derivation's note
// describes the proof from the evaluation instead of verifying it again.
func TestTransparencyVerifiedOnce(t *testing.T) {
	f := newTLogFixture(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	good := f.ref(2, f.wa, f.wb)
	n := 0
	d := withTLog(testPolicy(), f.text("2"))
	d.Witnesses = witnessRule(1, true, "signer-two")
	for _, c := range []struct {
		envs []*canonjson.Value
		want int
	}{
		{[]*canonjson.Value{f.sign(t, one, attesttest.IdentityOne, good), f.sign(t, two, attesttest.IdentityTwo, nil)}, 1},
		{[]*canonjson.Value{f.sign(t, one, attesttest.IdentityOne, good), f.sign(t, two, attesttest.IdentityTwo, good)}, 2}, // control: two references, two proofs
	} {
		n = 0
		r, err := attest.Verify(attest.Wrap(f.bundle, attest.TransparencyRecorded, c.envs...), attest.Options{Policy: Open(d.Value(), OpenOptions{Validator: testVal, KindVerifiers: []offline.KindVerifier{countingVerifier{&n}}}), EvaluatedAt: attesttest.EvaluatedAt, Validator: testVal})
		if err != nil || !r.Valid || r.Level != attest.TransparencyRecorded {
			t.Fatalf("%v valid %t level %s %v %s", err, r.Valid, r.Level, r.Diagnostics, r.Detail)
		}
		if n != c.want || !strings.Contains(r.Evaluation.Notes[len(r.Evaluation.Notes)-1], "cosigned by WA") {
			t.Errorf("%d references: %d proof verifications, want %d; notes %v", c.want, n, c.want, r.Evaluation.Notes)
		}
	}
}

func mustVKey(t *testing.T, s string) *signednote.Verifier {
	t.Helper()
	k, err := signednote.ParseVerifier(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Each tamper is MCP_RES_TRANSPARENCY_REFERENCE_INVALID with its own
// detail.
func TestTransparencyTampers(t *testing.T) {
	f := newTLogFixture(t)
	one := attesttest.TestOnlyKeyOne()
	d := withTLog(testPolicy(), f.text("2"))
	withIDs := func(r *attest.TransparencyReference, logID, uuid string) *attest.TransparencyReference {
		c := *r
		c.LogID, c.EntryUUID = logID, uuid
		return &c
	}
	otherLog := offlinetest.NewLog(tlogOrigin, "a log the policy does not know")
	otherLog.Append([]byte("leaf 0"), []byte("leaf 1"), mustEntry(t, offline.EntryFor(f.bundle)))
	tests := []struct {
		name   string
		ref    *attest.TransparencyReference
		detail string
	}{
		{"entry for another bundle", f.ref(3, f.wa, f.wb), "log entry is for another bundle: scenarioFingerprint is"},
		{"quorum not met", f.ref(2, f.wa), "cosignatures: 1 of 2 required (WB missing)"},
		{"the same witness key twice", f.ref(2, f.wa, f.wa.At(1767229200)), "cosignatures: 1 of 2 required (WB missing); repeated cosignatures counted once: WA"},
		{"log key not in policy", attest.NewTransparencyReference(tlogOrigin, "2", otherLog.Proof(2, f.wa, f.wb).Marshal()), "checkpoint is not signed by a log key of the policy"},
		{"logId is not the origin", withIDs(f.ref(2, f.wa, f.wb), "test-log", "2"), `logId is "test-log", the checkpoint's origin is "` + tlogOrigin + `"`},
		{"entryUuid is not the index", withIDs(f.ref(2, f.wa, f.wb), tlogOrigin, "test-entry-0001"), `entryUuid is "test-entry-0001", the proof is for leaf index 2`},
		{"opaque proof bytes", attesttest.TestTransparency(), "tlog-proof: opaque bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := verify(t, attest.Wrap(f.bundle, attest.SignedWithIdentity, f.sign(t, one, attesttest.IdentityOne, tt.ref)), d, attesttest.EvaluatedAt)
			if r.Valid || len(r.Diagnostics) != 1 || r.Diagnostics[0] != attest.CodeTransparencyInvalid {
				t.Fatalf("valid %t %v %s", r.Valid, r.Diagnostics, r.Detail)
			}
			if want := "envelope 0: transparency reference not verified offline: "; !strings.HasPrefix(r.Detail, want) || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("detail %q\nwant %q", r.Detail, tt.detail)
			}
			// What was evaluated says the reference failed, not that its
			// digest alone was checked.
			if got := r.Evaluation.Envelopes[0].Transparency; got != attest.TransparencyFailed {
				t.Errorf("evaluation transparency %s, want %s", got, attest.TransparencyFailed)
			}
		})
	}
	// A reference whose proof digest does not match fails with any policy.
	bad := *f.ref(2, f.wa, f.wb)
	bad.InclusionProofSha256 = strings.Repeat("0", 64)
	r := verify(t, attest.Wrap(f.bundle, attest.SignedWithIdentity, f.sign(t, one, attesttest.IdentityOne, &bad)), testPolicy(), attesttest.EvaluatedAt)
	if r.Valid || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyFailed {
		t.Errorf("digest mismatch: valid %t, transparency %s", r.Valid, r.Evaluation.Envelopes[0].Transparency)
	}
}

// fakeRekor stands in for offline/rekor's verifier.
type fakeRekor struct{ err error }

func (fakeRekor) Kind() offline.Kind { return offline.KindRekorV1 }
func (k fakeRekor) Verify(proof []byte, want offline.Entry, trust offline.Trust) (*offline.Verified, error) {
	if k.err != nil {
		return nil, k.err
	}
	return &offline.Verified{Kind: offline.KindRekorV1, LogID: "rekor-log-id", EntryUUID: "rekor-uuid", Entry: want,
		Checkpoint: offline.Checkpoint{Origin: "rekor.example - 1", Size: 9, LogKey: "rekor.example+00000000", Quorum: "none"}}, nil
}

// A Rekor v1 entry is DIGEST_ONLY where no verifier for it is linked (mcpres)
// and verified where one is (mcpres-sigstore, through OpenOptions.KindVerifiers).
func TestTransparencyRekorKind(t *testing.T) {
	f := newTLogFixture(t)
	one := attesttest.TestOnlyKeyOne()
	d := withTLog(testPolicy(), "log "+f.log.VKey+"\nquorum none\n")
	ref := attest.NewTransparencyReference("rekor-log-id", "rekor-uuid", []byte(`{"body":"e30="}`))
	w := attest.Wrap(f.bundle, attest.SignedWithIdentity, f.sign(t, one, attesttest.IdentityOne, ref))
	r := verify(t, w, d, attesttest.EvaluatedAt)
	if !r.Valid || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyDigestOnly ||
		!strings.Contains(strings.Join(r.Evaluation.Notes, "\n"), "envelope 0: a Rekor v1 log entry, which this program does not verify (mcpres-sigstore does): DIGEST_ONLY") {
		t.Errorf("without a Rekor verifier: valid %t %s %v", r.Valid, r.Evaluation.Envelopes[0].Transparency, r.Evaluation.Notes)
	}
	with := func(k offline.KindVerifier) attest.Result {
		r, err := attest.Verify(w, attest.Options{Policy: Open(d.Value(), OpenOptions{Validator: testVal, KindVerifiers: []offline.KindVerifier{k}}), EvaluatedAt: attesttest.EvaluatedAt, Validator: testVal})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := with(fakeRekor{}); !r.Valid || r.Level != attest.TransparencyRecorded || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyVerifiedOffline {
		t.Errorf("with a Rekor verifier: valid %t level %s %v", r.Valid, r.Level, r.Evaluation.Notes)
	}
	if r := with(fakeRekor{err: &offline.InclusionError{Index: 1, Size: 2, Err: errFake}}); r.Valid || r.Diagnostics[0] != attest.CodeTransparencyInvalid {
		t.Errorf("a failing Rekor verifier: %v %s", r.Diagnostics, r.Detail)
	}
}

var errFake = &offline.TrustError{Msg: "fake"}
