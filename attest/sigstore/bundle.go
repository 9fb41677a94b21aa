package sigstore

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
)

// MediaType is the media type of the Sigstore bundles ExportBundle writes.
const MediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Errors of ExportBundle; test with errors.Is. ErrSignatureCount also
// matches ErrNotExportable.
var (
	// ErrNotExportable: the envelope cannot become a verifiable Sigstore
	// bundle (malformed, unsupported, or its signature does not verify).
	ErrNotExportable = errors.New("envelope cannot be exported as a Sigstore bundle")
	// ErrSignatureCount: the envelope does not hold exactly one signature.
	ErrSignatureCount = fmt.Errorf("%w: a Sigstore bundle carries exactly one DSSE signature", ErrNotExportable)
)

// The members of the closed MCP-RES envelope and signature objects
// (REFERENCE §3.2.3), in schema order.
var (
	envelopeMembers  = []string{"schemaVersion", "payloadType", "payload", "signatures"}
	signatureMembers = []string{"keyid", "sig", "algorithm", "publicKeySpkiBase64", "signerIdentity"}
)

// ExportBundle returns the Sigstore bundle v0.3 that holds envelope, an
// mcp-res.dsse-envelope/0.2.0 value (see the package documentation for the
// mapping). The result is a fresh value with members in the order
// mediaType, verificationMaterial, dsseEnvelope; encode it with
// canonjson.Pretty or canonjson.Compact.
//
// The envelope must be the closed MCP-RES shape with exactly one Ed25519
// signature, strict base64 members, a 44-byte Ed25519 SPKI whose
// fingerprint is the keyid, and a signature that verifies over
// PAE(payloadType, payload). Otherwise the error wraps ErrNotExportable
// (and ErrSignatureCount for a wrong number of signatures) and says which
// member is at fault; it never quotes key or signature material.
func ExportBundle(envelope *canonjson.Value) (*canonjson.Value, error) {
	e, err := checkEnvelope(envelope)
	if err != nil {
		return nil, err
	}
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	s := canonjson.NewString
	enc := base64.StdEncoding.EncodeToString
	return canonjson.NewObject(
		m("mediaType", s(MediaType)),
		m("verificationMaterial", canonjson.NewObject(
			m("publicKey", canonjson.NewObject(m("hint", s(e.fingerprint)))),
			m("tlogEntries", canonjson.NewArray()),
		)),
		m("dsseEnvelope", canonjson.NewObject(
			m("payload", s(enc(e.payload))),
			m("payloadType", s(attest.PayloadType)),
			m("signatures", canonjson.NewArray(canonjson.NewObject(
				m("sig", s(enc(e.sig))),
				// Empty on purpose: see the package documentation.
				m("keyid", s("")),
			))),
		)),
	), nil
}

// checked is what ExportBundle keeps of a checked envelope.
type checked struct {
	payload, sig []byte
	fingerprint  string
}

func notExportable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotExportable, fmt.Sprintf(format, args...))
}

func checkEnvelope(env *canonjson.Value) (checked, error) {
	var c checked
	if !env.Is(canonjson.Object) {
		return c, notExportable("the envelope is not a JSON object")
	}
	if err := closedMembers(env, "envelope", envelopeMembers); err != nil {
		return c, err
	}
	if err := constString(env, "envelope", "schemaVersion", bundle.SchemaVersionEnvelope); err != nil {
		return c, err
	}
	if err := constString(env, "envelope", "payloadType", attest.PayloadType); err != nil {
		return c, err
	}
	payload, err := strictBase64(env, "envelope", "payload")
	if err != nil {
		return c, err
	}
	if len(payload) == 0 {
		return c, notExportable("envelope member payload is empty")
	}
	sigs := env.Get("signatures")
	if !sigs.Is(canonjson.Array) {
		return c, notExportable("envelope member signatures is not an array")
	}
	switch n := len(sigs.Items); {
	case n == 0:
		return c, fmt.Errorf("%w; the envelope has none", ErrSignatureCount)
	case n > 1:
		return c, fmt.Errorf("%w; the envelope has %d (sigstore-go refuses more than one; an MCP-RES envelope holds one signature and co-signers add envelopes, so export each envelope separately)", ErrSignatureCount, n)
	}
	sig := sigs.Items[0]
	const where = "signatures[0]"
	if !sig.Is(canonjson.Object) {
		return c, notExportable("%s is not a JSON object", where)
	}
	if err := closedMembers(sig, where, signatureMembers); err != nil {
		return c, err
	}
	if alg := sig.Get("algorithm"); !alg.Is(canonjson.String) || alg.Str != attest.Algorithm {
		if alg.Is(canonjson.String) {
			return c, notExportable("%s.algorithm %q is not supported; only Ed25519 is", where, alg.Str)
		}
		return c, notExportable("%s.algorithm is not the string \"Ed25519\"", where)
	}
	if id := sig.Get("signerIdentity"); !id.Is(canonjson.String) {
		return c, notExportable("%s.signerIdentity is not a string", where)
	}
	keyID := sig.Get("keyid")
	if !keyID.Is(canonjson.String) {
		return c, notExportable("%s.keyid is not a string", where)
	}
	der, err := strictBase64(sig, where, "publicKeySpkiBase64")
	if err != nil {
		return c, err
	}
	rawSig, err := strictBase64(sig, where, "sig")
	if err != nil {
		return c, err
	}
	// Key id before key shape, as in verification (REFERENCE §6.4 E4, E5).
	fp := ed25519strict.SPKIFingerprint(der)
	if keyID.Str != fp {
		return c, notExportable("%s.keyid is not the SHA-256 of the decoded publicKeySpkiBase64 (%s)", where, fp)
	}
	pub, err := keyfile.ParseSPKI(der)
	if err != nil {
		return c, notExportable("%s.publicKeySpkiBase64: %v", where, err)
	}
	if err := ed25519strict.Verify(pub, attest.PAE(attest.PayloadType, payload), rawSig); err != nil {
		return c, notExportable("%s: the signature does not verify over the payload: %v", where, err)
	}
	return checked{payload: payload, sig: rawSig, fingerprint: fp}, nil
}

// closedMembers reports the first member of obj not in allowed, then the
// first allowed member that is missing.
func closedMembers(obj *canonjson.Value, where string, allowed []string) error {
	for _, mb := range obj.Members {
		if !slices.Contains(allowed, mb.Key) {
			return notExportable("%s has the unknown member %q, which a Sigstore bundle cannot carry", where, mb.Key)
		}
	}
	for _, k := range allowed {
		if !obj.Has(k) {
			return notExportable("%s lacks the member %s", where, k)
		}
	}
	return nil
}

func constString(obj *canonjson.Value, where, key, want string) error {
	v := obj.Get(key)
	if !v.Is(canonjson.String) {
		return notExportable("%s member %s is not a string", where, key)
	}
	if v.Str != want {
		return notExportable("%s member %s is %q, want %q", where, key, v.Str, want)
	}
	return nil
}

func strictBase64(obj *canonjson.Value, where, key string) ([]byte, error) {
	v := obj.Get(key)
	if !v.Is(canonjson.String) {
		return nil, notExportable("%s member %s is not a string", where, key)
	}
	b, err := keyfile.DecodeStrictBase64(v.Str)
	if err != nil {
		return nil, notExportable("%s member %s: %v", where, key, err)
	}
	return b, nil
}

// MediaTypePrefix starts the media type of every Sigstore bundle version
// (v0.1 … v0.3).
const MediaTypePrefix = "application/vnd.dev.sigstore.bundle"

// IsSigstoreBundle reports whether v looks like a Sigstore bundle of any
// version: an object whose mediaType starts with [MediaTypePrefix]. It is
// a hint for people who give one where an MCP-RES document is expected,
// never a verification.
func IsSigstoreBundle(v *canonjson.Value) bool {
	m := v.Get("mediaType")
	return m.Is(canonjson.String) && len(m.Str) >= len(MediaTypePrefix) && m.Str[:len(MediaTypePrefix)] == MediaTypePrefix
}
