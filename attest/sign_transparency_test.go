package attest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

// TestSignTransparency: the transparency reference a statement will carry
// is checked before anything is signed. A c2sp.org/tlog-proof must bind
// the bundle signed and name its checkpoint's origin and leaf index, or
// SignBundle and Cosign refuse (RefusedTransparency); a proof of another
// kind can only be digest-checked, which the Signing says. Control: the
// reference of this bundle is signed with nothing unchecked.
func TestSignTransparency(t *testing.T) {
	b := bundletest.Example(t)
	other := b.Clone()
	other.Path("evidence", "run", "environment").Set("os", canonjson.NewString("another-os"))
	if err := bundle.SealFrom(other, bundle.StageEvidence); err != nil {
		t.Fatal(err)
	}
	entry := func(v *canonjson.Value) []byte {
		e, err := offline.EntryFor(v).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	lg := offlinetest.NewLog("example.org/sign-transparency-log", "sign-transparency")
	lg.Append(entry(other), entry(b))
	ref := func(logID, uuid string, i uint64) *attest.TransparencyReference {
		return attest.NewTransparencyReference(logID, uuid, lg.Proof(i).Marshal())
	}
	sign := func(tr *attest.TransparencyReference) (*attest.Signing, error) {
		o := attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)}
		o.Transparency = tr
		return attest.SignBundle(b, attesttest.TestOnlyKeyOne(), o)
	}
	refused := func(t *testing.T, err error) *attest.SignError {
		t.Helper()
		var se *attest.SignError
		if !errors.As(err, &se) || se.Refusal != attest.RefusedTransparency || !strings.Contains(err.Error(), "does not bind this bundle") {
			t.Fatalf("%v, want a RefusedTransparency *SignError", err)
		}
		return se
	}

	s, err := sign(ref(lg.Origin, "1", 1))
	if err != nil || s.Transparency == nil || *s.Transparency != offline.KindTLogProof || s.TransparencyUnchecked() != "" {
		t.Fatalf("this bundle's reference: %+v, %v", s, err)
	}
	for name, tr := range map[string]*attest.TransparencyReference{
		"another bundle's entry": ref(lg.Origin, "0", 0),
		"another leaf index":     ref(lg.Origin, "0", 1),
		"another log":            ref("example.org/another-log", "1", 1),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sign(tr)
			refused(t, err)
		})
	}
	bad := ref(lg.Origin, "1", 1)
	bad.InclusionProofBase64 += "="
	if _, err := sign(bad); !strings.Contains(refused(t, err).Err.Error(), "inclusionProofBase64") {
		t.Errorf("non-strict base64: %v", err)
	}

	// Opaque bytes: signed, and said to be checked by digest only.
	s, err = sign(attesttest.TestTransparency())
	if err != nil || s.Transparency == nil || *s.Transparency == offline.KindTLogProof || !strings.Contains(s.TransparencyUnchecked(), "only its SHA-256 was checked") {
		t.Fatalf("an opaque reference: %+v, %v", s, err)
	}
	// No reference: nothing to say.
	if s, err := sign(nil); err != nil || s.Transparency != nil || s.TransparencyUnchecked() != "" {
		t.Fatalf("no reference: %+v, %v", s, err)
	}

	// Co-signing checks the reference against the bundle the wrapper
	// embeds.
	w, err := sign(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityTwo)}
	o.Transparency = ref(lg.Origin, "0", 0)
	_, err = attest.Cosign(w.Attested, attesttest.TestOnlyKeyTwo(), o)
	refused(t, err)
	o.Transparency = ref(lg.Origin, "1", 1)
	if c, err := attest.Cosign(w.Attested, attesttest.TestOnlyKeyTwo(), o); err != nil || c.TransparencyUnchecked() != "" {
		t.Fatalf("co-signing with this bundle's reference: %v", err)
	}
}

// TestSignRequireQuorum: with RequireQuorum, a reference whose
// cosignatures do not satisfy the quorum (3 of 3 with one witness
// missing) is refused with who cosigned and who is missing, and one that
// does (the same witnesses, 2 of 3; every witness, 3 of 3) is signed with
// its Witnessing. Without it, a TRANSPARENCY_RECORDED claim warns:
// unverified cosignatures, or none at all; another claim does not.
func TestSignRequireQuorum(t *testing.T) {
	b := bundletest.Example(t)
	e, err := offline.EntryFor(b).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	lg := offlinetest.NewLog("example.org/quorum-log", "quorum")
	lg.Append(e)
	w1 := offlinetest.NewWitness("w1", "witness-1.example.org", "quorum w1", 1767225600)
	w2 := offlinetest.NewWitness("w2", "witness-2.example.org", "quorum w2", 1767225600)
	w3 := offlinetest.NewWitness("w3", "witness-3.example.org", "quorum w3", 1767225600)
	at := time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC) // the signer's clock
	trust := func(k int) *offline.Trust {
		tr := offlinetest.Trust([]*offlinetest.Log{lg}, []*offlinetest.Witness{w1, w2, w3},
			[]offline.Group{{Name: "all", Threshold: k, Members: []string{"w1", "w2", "w3"}}}, "all")
		tr.EvaluatedAt = at
		return &tr
	}
	two := attest.NewTransparencyReference(lg.Origin, "0", lg.Proof(0, w1, w2).Marshal())
	three := attest.NewTransparencyReference(lg.Origin, "0", lg.Proof(0, w1, w2, w3).Marshal())
	none := attest.NewTransparencyReference(lg.Origin, "0", lg.Proof(0).Marshal())
	sign := func(ref *attest.TransparencyReference, q *offline.Trust, claim attest.Level) (*attest.Signing, error) {
		o := attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne), Claim: &claim, RequireQuorum: q}
		o.Transparency = ref
		return attest.SignBundle(b, attesttest.TestOnlyKeyOne(), o)
	}
	_, err = sign(two, trust(3), attest.TransparencyRecorded)
	var se *attest.SignError
	if !errors.As(err, &se) || se.Refusal != attest.RefusedQuorum || se.Witnessing == nil ||
		!strings.Contains(err.Error(), "cosigned by 2 of 3: w1, w2; missing: w3; quorum all not satisfied") {
		t.Fatalf("3 of 3, w3 missing: %v", err)
	}
	for name, c := range map[string]struct {
		ref *attest.TransparencyReference
		k   int
	}{"2 of 3": {two, 2}, "3 of 3": {three, 3}} {
		s, err := sign(c.ref, trust(c.k), attest.TransparencyRecorded)
		if err != nil || s.Witnessing == nil || !s.Witnessing.Satisfied() || s.QuorumUnchecked() != "" {
			t.Errorf("%s: %v %+v", name, err, s)
		}
	}
	// A reference the trust does not trust (another log) is refused too.
	other := offlinetest.NewLog("example.org/quorum-log", "another quorum log")
	alien := offlinetest.Trust([]*offlinetest.Log{other}, []*offlinetest.Witness{w1}, nil, "w1")
	alien.EvaluatedAt = at
	var ue *offline.UnknownLogError
	if _, err := sign(two, &alien, attest.TransparencyRecorded); !errors.As(err, &se) || se.Refusal != attest.RefusedQuorum || !errors.As(err, &ue) {
		t.Errorf("another log's trust: %v", err)
	}
	// A quorum without an evaluation time counts nothing: refused.
	untimed := *trust(2)
	untimed.EvaluatedAt = time.Time{}
	if _, err := sign(three, &untimed, attest.TransparencyRecorded); !errors.As(err, &se) || se.Refusal != attest.RefusedQuorum || !strings.Contains(err.Error(), "needs an evaluation time") {
		t.Errorf("no evaluation time: %v", err)
	}
	// w3's correctly signed cosignature dated a year after the signer's
	// clock does not count (every consumer would reject it until then):
	// refused, naming it; the same reference with w3 dated now is signed
	// (control above: three).
	ahead := attest.NewTransparencyReference(lg.Origin, "0", lg.Proof(0, w1, w2, w3.At(uint64(at.AddDate(1, 0, 0).Unix()))).Marshal())
	if _, err := sign(ahead, trust(3), attest.TransparencyRecorded); !errors.As(err, &se) || se.Refusal != attest.RefusedQuorum ||
		!strings.Contains(err.Error(), "not counted: w3 (cosigned 2027-08-27T18:05:00Z: dated after the evaluation time 2026-08-27T18:05:00Z)") ||
		!strings.Contains(err.Error(), "(w3 missing)") {
		t.Errorf("w3 a year ahead: %v", err)
	}
	// Opaque proof bytes cannot be counted.
	o := attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne), RequireQuorum: trust(1)}
	o.Transparency = attesttest.TestTransparency()
	if _, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), o); !errors.As(err, &se) || se.Refusal != attest.RefusedQuorum || !strings.Contains(err.Error(), "only a c2sp.org/tlog-proof") {
		t.Errorf("opaque reference: %v", err)
	}

	// Without RequireQuorum: warnings for a TRANSPARENCY_RECORDED claim.
	s, err := sign(two, nil, attest.TransparencyRecorded)
	if err != nil || !strings.Contains(s.QuorumUnchecked(), "carries 2 cosignature(s) (witness-1.example.org+") || !strings.Contains(s.QuorumUnchecked(), "not verified at signing") {
		t.Errorf("unverified cosignatures: %v %q", err, s.QuorumUnchecked())
	}
	s, err = sign(none, nil, attest.TransparencyRecorded)
	if err != nil || !strings.Contains(s.QuorumUnchecked(), "carries no witness cosignature: it satisfies no witness quorum") {
		t.Errorf("no cosignature: %v %q", err, s.QuorumUnchecked())
	}
	if s, err = sign(none, nil, attest.Signed); err != nil || s.QuorumUnchecked() != "" {
		t.Errorf("claim SIGNED: %v %q", err, s.QuorumUnchecked())
	}
}
