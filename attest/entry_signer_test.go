package attest_test

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

// TestEntrySigner: a reference to an mcpres.transparency-entry/v2 (the
// entry of an attested bundle, naming its signers) binds only the
// envelopes of a signer it names, key and identity (step E14,
// offline.CheckEntrySigner), at signing time (SignBundle refuses before
// signing: RefusedTransparency) and at verifying time (attest.Verify, a
// check that needs no policy). Controls: the signer it names signs and verifies with it, and a
// v1 entry (no signer named) still binds any signer's envelope.
func TestEntrySigner(t *testing.T) {
	b := bundletest.Example(t)
	one, two := attesttest.TestOnlyKeyOne(), attesttest.TestOnlyKeyTwo()
	o := attesttest.Options(attesttest.IdentityOne)
	signed := func(key ed25519.PrivateKey, identity string) []byte {
		e, err := offline.SignedEntryFor(b, []offline.EntrySigner{{KeyFingerprint: attesttest.KeyID(key), SignerIdentity: identity, SigningTime: o.SigningTime}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	v1, err := offline.EntryFor(b).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	lg := offlinetest.NewLog("example.org/entry-signer-log", "entry-signer")
	lg.Append(signed(one, attesttest.IdentityOne), signed(two, attesttest.IdentityTwo), signed(one, attesttest.IdentityTwo), v1)
	ref := func(i uint64) *attest.TransparencyReference {
		id, uuid, err := offline.ReferenceIDs(lg.Proof(i).Marshal())
		if err != nil {
			t.Fatal(err)
		}
		return attest.NewTransparencyReference(id, uuid, lg.Proof(i).Marshal())
	}
	sign := func(tr *attest.TransparencyReference) error {
		so := attest.BundleSignOptions{SignOptions: o}
		so.Transparency = tr
		_, err := attest.SignBundle(b, one, so)
		return err
	}
	verify := func(tr *attest.TransparencyReference) attest.Result {
		so := o
		so.Transparency = tr
		env, err := attest.Sign(b, one, so)
		if err != nil {
			t.Fatal(err)
		}
		r, err := attest.Verify(attest.Wrap(b, attest.Signed, env), attest.Options{EvaluatedAt: attesttest.EvaluatedAt})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name string
		i    uint64
		ok   bool
	}{
		{"the v2 entry naming this key and identity", 0, true},
		{"a v2 entry naming another key", 1, false},
		{"a v2 entry naming this key with another identity", 2, false},
		{"a v1 entry", 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := sign(ref(c.i))
			r := verify(ref(c.i))
			if c.ok {
				if err != nil || !r.Valid || r.Evaluation.Envelopes[0].Transparency != attest.TransparencyDigestOnly {
					t.Fatalf("sign: %v; verify: %v %s", err, r.Diagnostics, r.Detail)
				}
				return
			}
			var se *attest.SignError
			if !errors.As(err, &se) || se.Refusal != attest.RefusedTransparency || !strings.Contains(err.Error(), "log entry is for other signers") {
				t.Errorf("sign: %v, want RefusedTransparency", err)
			}
			if r.Valid || len(r.Diagnostics) != 1 || r.Diagnostics[0] != attest.CodeTransparencyInvalid || !strings.Contains(r.Detail, "log entry is for other signers") ||
				r.Evaluation.Envelopes[0].Transparency != attest.TransparencyFailed {
				t.Errorf("verify: %v %s", r.Diagnostics, r.Detail)
			}
		})
	}
}
