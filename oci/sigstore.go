package oci

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
)

// A SigstoreError is a Sigstore bundle that is not carried with an
// attested bundle: not a Sigstore bundle v0.3, not bound to one of the
// attested bundle's envelopes, one too many, or given twice.
type SigstoreError struct {
	Reason string
}

func (e *SigstoreError) Error() string { return e.Reason }

// AddSigstore adds a Sigstore bundle to be attached with b, as a layer
// of [SigstoreMediaType] after the attested bundle's. data must be read
// by the strict reader (else a *validator.InputError) as a Sigstore
// bundle of media type [SigstoreMediaType] whose DSSE envelope holds one
// signature and whose payload and signature equal those of one envelope
// of b: the binding only, which is what lets a verifier find its
// envelope. Its certificate, timestamp and signature are verified by
// attest verify --trusted-root (sigstore-go), not here. More than
// [MaxSigstoreLayers], more than [MaxSigstoreBytes], the same bytes twice
// or a Sigstore bundle of another attested bundle are a *SigstoreError.
func (b *Bundle) AddSigstore(data []byte) error {
	if len(b.Sigstore) == MaxSigstoreLayers {
		return &SigstoreError{Reason: fmt.Sprintf("more than %d Sigstore bundles for one attested bundle (one per keyless envelope)", MaxSigstoreLayers)}
	}
	doc, err := canonjson.Parse(b.Data)
	if err != nil {
		return &validator.InputError{Reason: err.Error()}
	}
	if _, err := SigstoreEnvelope(doc, data); err != nil {
		return err
	}
	for _, old := range b.Sigstore {
		if bytes.Equal(old, data) {
			return &SigstoreError{Reason: "the same Sigstore bundle is given twice"}
		}
	}
	b.Sigstore = append(b.Sigstore, data)
	return nil
}

// SigstoreEnvelope returns the index of the envelope of the attested
// bundle doc that the Sigstore bundle data carries: data is read by the
// strict reader (else a *validator.InputError, as is data over
// [MaxSigstoreBytes]), must have mediaType [SigstoreMediaType] and a
// dsseEnvelope of payloadType attest.PayloadType with exactly one
// signature, whose payload and signature (base64) equal those of
// an envelope of doc with one signature. Anything else is a
// *SigstoreError. Nothing is verified cryptographically: this is the
// binding that lets a verifier find the envelope, checked before a
// Sigstore bundle is published or pulled with doc.
func SigstoreEnvelope(doc *canonjson.Value, data []byte) (int, error) {
	fail := func(format string, args ...any) (int, error) {
		return 0, &SigstoreError{Reason: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxSigstoreBytes {
		return 0, &validator.InputError{Reason: fmt.Sprintf("a Sigstore bundle is larger than %d bytes", MaxSigstoreBytes)}
	}
	sb, err := canonjson.Parse(data)
	if err != nil {
		return 0, &validator.InputError{Reason: "not a Sigstore bundle: " + err.Error()}
	}
	if mt := sb.Get("mediaType"); !sb.Is(canonjson.Object) || !mt.Is(canonjson.String) || mt.Str != SigstoreMediaType {
		return fail("not a Sigstore bundle: mediaType is %s, want %q", describe(mt), SigstoreMediaType)
	}
	env := sb.Get("dsseEnvelope")
	if !env.Is(canonjson.Object) {
		return fail("the Sigstore bundle has no dsseEnvelope (a keyless MCP-RES signature is a DSSE envelope)")
	}
	if pt := env.Get("payloadType"); !pt.Is(canonjson.String) || pt.Str != attest.PayloadType {
		return fail("the Sigstore bundle's dsseEnvelope.payloadType is %s, want %q", describe(pt), attest.PayloadType)
	}
	payload, ok := b64(env, "payload")
	sigs := env.Get("signatures")
	if !ok || !sigs.Is(canonjson.Array) || len(sigs.Items) != 1 {
		return fail("the Sigstore bundle's dsseEnvelope must hold a payload and exactly one signature")
	}
	sig, ok := b64(sigs.Items[0], "sig")
	if !ok {
		return fail("the Sigstore bundle's dsseEnvelope.signatures[0].sig is not base64")
	}
	envs := doc.Path("authenticity", "envelopes")
	if envs.Is(canonjson.Array) {
		for i, e := range envs.Items {
			p, ok1 := b64(e, "payload")
			es := e.Get("signatures")
			if !ok1 || !es.Is(canonjson.Array) || len(es.Items) != 1 {
				continue
			}
			s, ok2 := b64(es.Items[0], "sig")
			if ok2 && bytes.Equal(p, payload) && bytes.Equal(s, sig) {
				return i, nil
			}
		}
	}
	return fail("the Sigstore bundle is not one of this attested bundle's envelopes (its payload and signature are no envelope's): a Sigstore bundle of another attested bundle?")
}

// b64 decodes the base64 string member key of obj (the standard
// alphabet, padded; what attest sign and Sigstore write). Only the bytes
// are compared, so the attested bundle's strict-base64 rules are
// attest.Verify's, not repeated here.
func b64(obj *canonjson.Value, key string) ([]byte, bool) {
	if !obj.Is(canonjson.Object) {
		return nil, false
	}
	v := obj.Get(key)
	if !v.Is(canonjson.String) {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(v.Str)
	return b, err == nil
}
