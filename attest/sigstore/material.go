package sigstore

import (
	"bytes"
	"encoding/base64"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/material"
	"github.com/mcpres/mcpres/keyfile"
)

// MaxMaterial bounds the Sigstore bundles kept beside one attested bundle:
// one per keyless envelope, and a bundle has at most attest.MaxEnvelopes.
const MaxMaterial = attest.MaxEnvelopes

// MaxMaterialBytes bounds one Sigstore bundle kept beside an attested
// bundle (a certificate chain, timestamps and one envelope).
const MaxMaterialBytes = 1 << 20

// MaterialName is the name of the nth (from 1) Sigstore bundle kept beside
// the attested bundle file: FILE.sigstore.json, then FILE.sigstore.2.json,
// FILE.sigstore.3.json, … (internal/material, the one rule). attest sign
// --keyless and oci pull write these names; attest verify --trusted-root
// reads them, in order, up to the first that does not exist.
func MaterialName(file string, n int) string { return material.Name(file, n) }

// IsMaterialName reports whether name is a Sigstore bundle's kept beside
// an attested bundle (NAME.sigstore.json or NAME.sigstore.N.json, N ≥ 2):
// verification material, never an input of its own when a folder is
// read.
func IsMaterialName(name string) bool { return material.IsName(name) }

// Carries reports whether sigstoreBundle (a Sigstore bundle's JSON) holds
// a DSSE envelope with exactly the payload and signature of envelope, an
// MCP-RES DSSE envelope of an attested bundle: the Sigstore bundle is
// that envelope's material. Nothing is verified: this only pairs files
// (attest export, oci attach); verification is package keyless's.
func Carries(sigstoreBundle []byte, envelope *canonjson.Value) bool {
	sb, err := canonjson.Parse(sigstoreBundle)
	if err != nil || !IsSigstoreBundle(sb) {
		return false
	}
	d := sb.Get("dsseEnvelope")
	sigs := d.Get("signatures")
	esigs := envelope.Get("signatures")
	if !sigs.Is(canonjson.Array) || len(sigs.Items) != 1 || !esigs.Is(canonjson.Array) || len(esigs.Items) != 1 {
		return false
	}
	same := func(a, b *canonjson.Value) bool {
		if !a.Is(canonjson.String) || !b.Is(canonjson.String) {
			return false
		}
		x, err1 := base64.StdEncoding.DecodeString(a.Str)
		y, err2 := keyfile.DecodeStrictBase64(b.Str)
		return err1 == nil && err2 == nil && len(x) > 0 && bytes.Equal(x, y)
	}
	return same(d.Get("payload"), envelope.Get("payload")) && same(sigs.Items[0].Get("sig"), esigs.Items[0].Get("sig"))
}
