package keyless

import (
	"errors"
	"strings"
	"testing"
)

// VerifyBlob refuses a Sigstore bundle over the size bound before reading
// it (CodeMaterialInvalid, the bound named) and bytes that are not a
// Sigstore bundle; a BlobIdentity names itself by exact identity or by
// expression. (The signed file verifying is TestVerifyBlob's control.)
func TestVerifyBlobRefusesBeforeReading(t *testing.T) {
	id := BlobIdentity{Issuer: "https://issuer.example", Identity: "release@example.org"}
	var f *Failure
	err := VerifyBlob([]byte("sums"), make([]byte, maxSigstoreBundle+1), nil, id)
	if !errors.As(err, &f) || f.Code != CodeMaterialInvalid || !strings.HasPrefix(f.Detail, "the Sigstore bundle is larger than ") {
		t.Errorf("oversized: %v", err)
	}
	err = VerifyBlob([]byte("sums"), []byte("{"), nil, id)
	if !errors.As(err, &f) || f.Code != CodeMaterialInvalid || !strings.HasPrefix(f.Detail, "not a Sigstore bundle: ") {
		t.Errorf("not a bundle: %v", err)
	}
	if got, want := id.String(), `issuer "https://issuer.example", identity "release@example.org"`; got != want {
		t.Errorf("String: %q, want %q", got, want)
	}
	re := BlobIdentity{Issuer: "https://issuer.example", IdentityRegexp: `^release@example\.org$`}
	if got, want := re.String(), `issuer "https://issuer.example", identity matching "^release@example\\.org$"`; got != want {
		t.Errorf("String: %q, want %q", got, want)
	}
}
