package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/tlog/server"
	"github.com/mcpres/mcpres/validator"
)

func compact(t *testing.T, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAdmitEvidence: the log service's admission answers what cannot be
// read or evaluated 400 and invalid evidence 422, each with the diagnostic
// object `mcpres validate --format json` prints; an admitted bundle's
// entry is its transparency entry; an attested bundle is evaluated at the
// service's clock.
func TestAdmitEvidence(t *testing.T) {
	at := time.Date(2026, 8, 27, 12, 0, 0, 0, time.UTC)
	admit := server.AdmitEvidence(func() time.Time { return at })
	b := bundletest.Example(t)
	want, err := offline.EntryFor(b).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if entry, rej := admit(compact(t, b)); rej != nil || !bytes.Equal(entry, want) {
		t.Fatalf("a valid bundle: %q, %+v", entry, rej)
	}

	diag := func(rej *server.Rejection) *canonjson.Value {
		t.Helper()
		v, err := canonjson.Parse(rej.JSON)
		if err != nil || !bytes.HasSuffix(rej.JSON, []byte("}\n")) {
			t.Fatalf("the refusal %q is not one JSON line: %v", rej.JSON, err)
		}
		return v
	}
	_, rej := admit([]byte(`{"schemaVersion": `))
	if rej == nil || rej.Status != http.StatusBadRequest {
		t.Fatalf("not JSON: %+v, want 400", rej)
	}
	if v := diag(rej); v.Get("diagnostics").Items[0].Str != validator.CodeInputInvalid || !strings.HasPrefix(v.Get("message").Str, validator.CodeInputInvalid+": ") {
		t.Errorf("not JSON: %s", rej.JSON)
	}

	tampered := b.Clone()
	tampered.Path("evidence", "run", "environment").Set("os", canonjson.NewString("tampered"))
	_, rej = admit(compact(t, tampered))
	if rej == nil || rej.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a tampered bundle: %+v, want 422", rej)
	}
	if v := diag(rej); v.Get("valid").Bool || len(v.Get("diagnostics").Items) == 0 || v.Get("diagnostics").Items[0].Str == validator.CodeInputInvalid || v.Get("schemaErrors") == nil {
		t.Errorf("a tampered bundle: %s", rej.JSON)
	}

	// An attested bundle whose envelope does not verify: 422, its result
	// evaluated at the clock's time.
	claim := attest.Signed
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne), Claim: &claim})
	if err != nil {
		t.Fatal(err)
	}
	w := s.Attested.Clone()
	sig := w.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0]
	sig.Set("keyid", canonjson.NewString(strings.Repeat("0", 64)))
	_, rej = admit(compact(t, w))
	if rej == nil || rej.Status != http.StatusUnprocessableEntity {
		t.Fatalf("an attested bundle that does not verify: %+v, want 422", rej)
	}
	if v := diag(rej); v.Get("valid").Bool || v.Get("evaluatedAt").Str != "2026-08-27T12:00:00.000Z" {
		t.Errorf("an attested bundle that does not verify: %s", rej.JSON)
	}
	// Control: the same attested bundle untouched is admitted, as the
	// bundle's entry naming its signer (mcpres.transparency-entry/v2).
	o := attesttest.Options(attesttest.IdentityOne)
	wantSigned, err := offline.SignedEntryFor(b, []offline.EntrySigner{{KeyFingerprint: s.KeyID, SignerIdentity: o.SignerIdentity, SigningTime: o.SigningTime}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if entry, rej := admit(compact(t, s.Attested)); rej != nil || !bytes.Equal(entry, wantSigned) {
		t.Fatalf("a valid attested bundle: %q, %+v", entry, rej)
	}
}

// FuzzAdmitEvidence: no body makes admission panic; an admitted body's
// entry is a canonical transparency entry; a refusal is 400 or 422 with a
// JSON object.
func FuzzAdmitEvidence(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzAdmitEvidence (a valid bundle, an attested
	// wrapper without a bundle, a tampered bundle, bad JSON).
	admit := server.AdmitEvidence(nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		entry, rej := admit(body)
		if rej == nil {
			if _, err := offline.ParseEntry(entry); err != nil {
				t.Fatalf("admitted an entry that does not parse: %v", err)
			}
			return
		}
		if rej.Status != http.StatusBadRequest && rej.Status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d", rej.Status)
		}
		if _, err := canonjson.Parse(rej.JSON); err != nil {
			t.Fatalf("refusal is not JSON: %v", err)
		}
	})
}
