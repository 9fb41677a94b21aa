package sigstore

import (
	"github.com/mcpres/mcpres/attest"
	"strconv"
	"strings"
)

// MaxMaterial bounds the Sigstore bundles kept beside one attested bundle:
// one per keyless envelope, and a bundle has at most attest.MaxEnvelopes.
const MaxMaterial = attest.MaxEnvelopes

// materialSuffix ends the name of the first Sigstore bundle kept beside an
// attested bundle file.
const materialSuffix = ".sigstore.json"

// MaterialName is the name of the nth (from 1) Sigstore bundle kept beside
// the attested bundle file: FILE.sigstore.json, then FILE.sigstore.2.json,
// FILE.sigstore.3.json, … . attest sign --keyless and oci pull write these
// names; attest verify --trusted-root reads them, in order, up to the
// first that does not exist.
func MaterialName(file string, n int) string {
	if n <= 1 {
		return file + materialSuffix
	}
	return file + ".sigstore." + strconv.Itoa(n) + ".json"
}

// IsMaterialName reports whether name is a Sigstore bundle's kept beside
// an attested bundle (NAME.sigstore.json or NAME.sigstore.N.json, N ≥ 2):
// verification material, never an input of its own when a folder is
// read.
func IsMaterialName(name string) bool {
	if strings.HasSuffix(name, materialSuffix) {
		return true
	}
	rest, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, ".sigstore.")
	if i < 0 {
		return false
	}
	n, err := strconv.Atoi(rest[i+len(".sigstore."):])
	return err == nil && n >= 2 && strconv.Itoa(n) == rest[i+len(".sigstore."):]
}
