package keyless

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/keyless/keylesstest"
)

// signBlobForTest signs data keylessly as cosign attest-blob does — a
// Fulcio certificate for the token, a DSSE envelope of an in-toto
// statement whose subject is data's SHA-256, an RFC 3161 timestamp over
// the signature — with a test-only Ed25519 key made now, and returns the
// Sigstore bundle's JSON.
func signBlobForTest(t *testing.T, s *keylesstest.Stack, token string, data []byte) []byte {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ParseToken(token, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	chain, err := requestCertificate(context.Background(), http.DefaultClient, s.FulcioURL, tok, priv)
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(data)
	payload := []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"SHA256SUMS","digest":{"sha256":"` + hex.EncodeToString(digest[:]) +
		`"}}],"predicateType":"https://mcpres.dev/release-checksums/v1","predicate":{}}`)
	sig := ed25519.Sign(priv, attest.PAE(attest.PayloadType, payload))
	ts, err := requestTimestamp(context.Background(), http.DefaultClient, s.TSAURL, sig)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sigstoreBundle(chain[0], ts, payload, sig)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// VerifyBlob: a file signed keylessly verifies with its identity and
// issuer against the trusted root; other bytes, another identity, another
// issuer, an untrusted root, a wide expression and a document that is not
// a Sigstore bundle are each refused with their code.
func TestVerifyBlob(t *testing.T) {
	s := keylesstest.NewStack(t)
	tr, err := FetchTrustedRoot(context.Background(), http.DefaultClient, s.FulcioURL, s.TSAURL)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, _ := tr.MarshalJSON()
	other, _ := keylesstest.OtherTrustedRoot(t).MarshalJSON()
	sums := []byte("0123  mcpres-linux-amd64\n")
	sb := signBlobForTest(t, s, s.EmailToken(t, "release@example.org", nil), sums)
	id := BlobIdentity{Issuer: s.EmailIssuer, Identity: "release@example.org"}
	if err := VerifyBlob(sums, sb, trJSON, id); err != nil {
		t.Fatalf("honest: %v", err)
	}
	if err := VerifyBlob(sums, sb, trJSON, BlobIdentity{Issuer: s.EmailIssuer, IdentityRegexp: `^release@example\.org$`}); err != nil {
		t.Fatalf("honest, by expression: %v", err)
	}
	for name, tc := range map[string]struct {
		data, sb, root []byte
		id             BlobIdentity
		code           string
	}{
		"other bytes":     {[]byte("4567  mcpres-linux-amd64\n"), sb, trJSON, id, CodeBlobSignature},
		"other identity":  {sums, sb, trJSON, BlobIdentity{Issuer: s.EmailIssuer, Identity: "someone@example.org"}, CodeBlobSignature},
		"other issuer":    {sums, sb, trJSON, BlobIdentity{Issuer: s.GitHubIssuer, Identity: "release@example.org"}, CodeBlobSignature},
		"untrusted root":  {sums, sb, other, id, CodeBlobSignature},
		"wide expression": {sums, sb, trJSON, BlobIdentity{Issuer: s.EmailIssuer, IdentityRegexp: `^.*$`}, CodeBlobSignature},
		"not a bundle":    {sums, []byte(`{"mediaType":"x"}`), trJSON, id, CodeMaterialInvalid},
	} {
		err := VerifyBlob(tc.data, tc.sb, tc.root, tc.id)
		var f *Failure
		if !errors.As(err, &f) || f.Code != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
}
