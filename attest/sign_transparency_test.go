package attest_test

import (
	"errors"
	"strings"
	"testing"

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
