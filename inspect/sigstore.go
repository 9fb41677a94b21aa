package inspect

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"strings"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
)

// KindSigstoreBundle is a Sigstore bundle (what mcpres attest sign
// --keyless writes beside the attested bundle, or attest export).
const KindSigstoreBundle = "sigstore-bundle"

// A SigstoreBundle is what a Sigstore bundle carries, read without
// verifying anything (attest verify --trusted-root verifies).
type SigstoreBundle struct {
	MediaType string `json:"mediaType"`
	// Certificate is the leaf certificate of a keyless signature; nil for
	// a bundle that names a public key.
	Certificate *SigstoreCertificate `json:"certificate,omitempty"`
	// PublicKeyHint is the hint of a key-based bundle.
	PublicKeyHint string `json:"publicKeyHint,omitempty"`
	// Timestamps counts the RFC 3161 timestamps, TLogEntries the
	// transparency-log entries.
	Timestamps  int    `json:"rfc3161Timestamps"`
	TLogEntries int    `json:"tlogEntries"`
	PayloadType string `json:"payloadType,omitempty"`
	Signatures  int    `json:"signatures"`
}

// A SigstoreCertificate is what a Fulcio certificate says: the identity
// (email or URI SAN), the OIDC issuer (extension 1.3.6.1.4.1.57264.1.8, or
// the older .1.1), the validity, and the fingerprint of an Ed25519 key.
type SigstoreCertificate struct {
	Identity       string `json:"identity"`
	Issuer         string `json:"issuer"`
	NotBefore      string `json:"notBefore"`
	NotAfter       string `json:"notAfter"`
	KeyFingerprint string `json:"keyFingerprint,omitempty"`
}

var (
	oidIssuerV2 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 8}
	oidIssuerV1 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}
)

// isSigstoreBundle reports whether doc's mediaType is a Sigstore bundle's.
func isSigstoreBundle(doc *canonjson.Value) bool {
	mt := doc.Get("mediaType")
	return doc.Is(canonjson.Object) && mt.Is(canonjson.String) && strings.HasPrefix(mt.Str, "application/vnd.dev.sigstore.bundle")
}

func (d *Description) sigstoreBundle(doc *canonjson.Value) *SigstoreBundle {
	b := &SigstoreBundle{MediaType: doc.Get("mediaType").Str}
	vm := d.need(doc, "", "verificationMaterial", canonjson.Object)
	if c := vm.Get("certificate"); c.Is(canonjson.Object) {
		b.Certificate = d.sigstoreCertificate(d.str(c, "/verificationMaterial/certificate", "rawBytes"))
	} else if pk := vm.Get("publicKey"); pk.Is(canonjson.Object) {
		b.PublicKeyHint = d.str(pk, "/verificationMaterial/publicKey", "hint")
	}
	if t := vm.Get("timestampVerificationData"); t.Is(canonjson.Object) {
		if l := t.Get("rfc3161Timestamps"); l.Is(canonjson.Array) {
			b.Timestamps = len(l.Items)
		}
	}
	if l := vm.Get("tlogEntries"); l.Is(canonjson.Array) {
		b.TLogEntries = len(l.Items)
	}
	if env := doc.Get("dsseEnvelope"); env.Is(canonjson.Object) {
		b.PayloadType = d.str(env, "/dsseEnvelope", "payloadType")
		if s := env.Get("signatures"); s.Is(canonjson.Array) {
			b.Signatures = len(s.Items)
		}
	}
	return b
}

// sigstoreCertificate reads the base64 DER of a leaf certificate; what
// does not read is a problem.
func (d *Description) sigstoreCertificate(raw string) *SigstoreCertificate {
	der, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		d.problem("verificationMaterial.certificate.rawBytes is not base64")
		return nil
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		d.problem("verificationMaterial.certificate: %v", err)
		return nil
	}
	c := &SigstoreCertificate{NotBefore: cert.NotBefore.UTC().Format(time.RFC3339), NotAfter: cert.NotAfter.UTC().Format(time.RFC3339)}
	switch {
	case len(cert.EmailAddresses) > 0:
		c.Identity = cert.EmailAddresses[0]
	case len(cert.URIs) > 0:
		c.Identity = cert.URIs[0].String()
	}
	for _, e := range cert.Extensions {
		switch {
		case e.Id.Equal(oidIssuerV2):
			var s string
			if rest, err := asn1.UnmarshalWithParams(e.Value, &s, "utf8"); err == nil && len(rest) == 0 {
				c.Issuer = s
			}
		case e.Id.Equal(oidIssuerV1) && c.Issuer == "":
			c.Issuer = string(e.Value)
		}
	}
	if k, ok := cert.PublicKey.(ed25519.PublicKey); ok {
		c.KeyFingerprint = ed25519strict.Fingerprint(k)
	}
	return c
}

func (b *SigstoreBundle) text(w *lines, depth int) {
	w.add(depth, "media type %s", b.MediaType)
	if c := b.Certificate; c != nil {
		w.add(depth, "certificate: identity %q, issuer %q, valid %s … %s, key %s", c.Identity, c.Issuer, c.NotBefore, c.NotAfter, orDash(c.KeyFingerprint))
	} else if b.PublicKeyHint != "" {
		w.add(depth, "public key hint %s", b.PublicKeyHint)
	}
	w.add(depth, "RFC 3161 timestamps: %d, transparency-log entries: %d", b.Timestamps, b.TLogEntries)
	if b.PayloadType != "" {
		w.add(depth, "DSSE %s, %d signature(s)", b.PayloadType, b.Signatures)
	}
}
