package oci

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/ocitest"
	"github.com/mcpres/mcpres/validator"
)

// SigstoreEnvelope finds the envelope a Sigstore bundle carries: the
// first of a bundle, the second of a co-signed one; a Sigstore bundle of
// another attested bundle, of another kind or with its signature changed
// is refused, each for its own reason.
func TestSigstoreEnvelope(t *testing.T) {
	attested := ocitest.AttestedBundle(t, Digest([]byte("image")))
	cosigned := ocitest.CoSigned(t, attested)
	other := ocitest.AttestedBundle(t, Digest([]byte("another image")))
	doc := func(b []byte) *canonjson.Value { return mustParse(t, string(b)) }

	for _, tc := range []struct {
		name     string
		attested []byte
		sb       []byte
		want     int
	}{
		{"the one envelope", attested, ocitest.SigstoreBundle(t, attested, 0), 0},
		{"the co-signer's envelope", cosigned, ocitest.SigstoreBundle(t, cosigned, 1), 1},
		{"the first signer's envelope, co-signed", cosigned, ocitest.SigstoreBundle(t, attested, 0), 0},
	} {
		if i, err := SigstoreEnvelope(doc(tc.attested), tc.sb); err != nil || i != tc.want {
			t.Errorf("%s: envelope %d, %v; want %d", tc.name, i, err, tc.want)
		}
	}

	good := ocitest.SigstoreBundle(t, attested, 0)
	edit := func(f func(v *canonjson.Value)) []byte {
		v := mustParse(t, string(good))
		f(v)
		return compact(t, v)
	}
	s := canonjson.NewString
	sig := mustParse(t, string(good)).Path("dsseEnvelope", "signatures").Items[0]
	for _, tc := range []struct {
		name string
		sb   []byte
		want string
	}{
		{"another bundle's", ocitest.SigstoreBundle(t, other, 0), "not one of this attested bundle's envelopes"},
		{"the co-signer's, of a bundle without it", ocitest.SigstoreBundle(t, cosigned, 1), "not one of this attested bundle's envelopes"},
		{"v0.1 media type", edit(func(v *canonjson.Value) {
			v.Set("mediaType", s("application/vnd.dev.sigstore.bundle+json;version=0.1"))
		}), "mediaType is"},
		{"an attested bundle", attested, "mediaType is absent"},
		{"a JSON array", []byte(`[]`), "mediaType is absent"},
		{"no dsseEnvelope", edit(func(v *canonjson.Value) { v.Delete("dsseEnvelope") }), "has no dsseEnvelope"},
		{"another payload type", edit(func(v *canonjson.Value) { v.Get("dsseEnvelope").Set("payloadType", s("text/plain")) }), "payloadType is"},
		{"two signatures", edit(func(v *canonjson.Value) {
			l := v.Path("dsseEnvelope", "signatures")
			l.Items = append(l.Items, sig.Clone())
		}), "exactly one signature"},
		{"no payload", edit(func(v *canonjson.Value) { v.Get("dsseEnvelope").Delete("payload") }), "exactly one signature"},
		{"payload not base64", edit(func(v *canonjson.Value) { v.Get("dsseEnvelope").Set("payload", s("%%%")) }), "exactly one signature"},
		{"signature not base64", edit(func(v *canonjson.Value) { v.Path("dsseEnvelope", "signatures").Items[0].Set("sig", s("!")) }), "sig is not base64"},
		{"another signature", edit(func(v *canonjson.Value) {
			v.Path("dsseEnvelope", "signatures").Items[0].Set("sig", s(strings.Repeat("A", 86)+"=="))
		}), "not one of this attested bundle's envelopes"},
		{"another payload", edit(func(v *canonjson.Value) { v.Get("dsseEnvelope").Set("payload", s("e30=")) }), "not one of this attested bundle's envelopes"},
	} {
		var se *SigstoreError
		if _, err := SigstoreEnvelope(doc(attested), tc.sb); !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *SigstoreError containing %q", tc.name, err, tc.want)
		}
	}
	// Unreadable: an input error (exit 2), not a refusal.
	var ie *validator.InputError
	for name, sb := range map[string][]byte{
		"not JSON":      []byte("not json"),
		"duplicate key": []byte(`{"mediaType":"x","mediaType":"y"}`),
		"over 1 MiB":    append(bytes.Repeat([]byte(" "), MaxSigstoreBytes), good...),
	} {
		if _, err := SigstoreEnvelope(doc(attested), sb); !errors.As(err, &ie) {
			t.Errorf("%s: %v, want a *validator.InputError", name, err)
		}
	}
}

// AddSigstore keeps what binds, refuses the rest and the bound.
func TestBundleAddSigstore(t *testing.T) {
	attested := ocitest.CoSigned(t, ocitest.AttestedBundle(t, Digest([]byte("image"))))
	b := checked(t, attested)
	first, second := ocitest.SigstoreBundle(t, attested, 0), ocitest.SigstoreBundle(t, attested, 1)
	if err := b.AddSigstore(first); err != nil {
		t.Fatal(err)
	}
	if err := b.AddSigstore(second); err != nil {
		t.Fatal(err)
	}
	var se *SigstoreError
	if err := b.AddSigstore(first); !errors.As(err, &se) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("the same Sigstore bundle twice: %v", err)
	}
	other := ocitest.AttestedBundle(t, Digest([]byte("another image")))
	if err := b.AddSigstore(ocitest.SigstoreBundle(t, other, 0)); !errors.As(err, &se) {
		t.Errorf("another bundle's: %v", err)
	}
	if len(b.Sigstore) != 2 || !bytes.Equal(b.Sigstore[0], first) || !bytes.Equal(b.Sigstore[1], second) {
		t.Fatalf("kept %d Sigstore bundles", len(b.Sigstore))
	}
	// The bound: MaxSigstoreLayers (pretty and compact encodings of the
	// same Sigstore bundle are different bytes that bind).
	for len(b.Sigstore) < MaxSigstoreLayers {
		v := mustParse(t, string(first))
		v.Set("x"+strings.Repeat("y", len(b.Sigstore)), canonjson.NewString(""))
		if err := b.AddSigstore(compact(t, v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.AddSigstore(second); !errors.As(err, &se) || !strings.Contains(err.Error(), "more than 8") {
		t.Errorf("one too many: %v", err)
	}
}

// FuzzSigstoreEnvelope: no input panics, and a Sigstore bundle accepted
// names an envelope of the attested bundle.
func FuzzSigstoreEnvelope(f *testing.F) {
	attested := ocitest.AttestedBundle(f, Digest([]byte("image")))
	doc := mustParse(f, string(attested))
	n := len(doc.Path("authenticity", "envelopes").Items)
	f.Add(ocitest.SigstoreBundle(f, attested, 0))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"sig":"AA=="}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		i, err := SigstoreEnvelope(doc, data)
		if err == nil && (i < 0 || i >= n) {
			t.Fatalf("envelope %d of %d", i, n)
		}
	})
}
