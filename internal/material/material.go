// Package material names the Sigstore bundles kept beside an attested
// bundle file (a keyless signature's verification material): the one rule
// that attest sign --keyless, oci pull and attest verify share. It links
// only the standard library, so that every layer can use it
// (attest/sigstore re-exports it; oci/pulled, which may not import
// attest/sigstore, uses it directly).
package material

import (
	"strconv"
	"strings"
)

// suffix ends the name of the first Sigstore bundle kept beside a file.
const suffix = ".sigstore.json"

// Name is the name of the nth (from 1) Sigstore bundle kept beside the
// attested bundle file: FILE.sigstore.json, then FILE.sigstore.2.json,
// FILE.sigstore.3.json, … .
func Name(file string, n int) string {
	if n <= 1 {
		return file + suffix
	}
	return file + ".sigstore." + strconv.Itoa(n) + ".json"
}

// IsName reports whether name is a Sigstore bundle's kept beside an
// attested bundle (NAME.sigstore.json or NAME.sigstore.N.json, N ≥ 2).
func IsName(name string) bool {
	if strings.HasSuffix(name, suffix) {
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
	digits := rest[i+len(".sigstore."):]
	n, err := strconv.Atoi(digits)
	return err == nil && n >= 2 && strconv.Itoa(n) == digits
}
