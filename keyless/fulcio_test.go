package keyless

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// selfSigned returns a PEM certificate for pub, signed by a throwaway key.
func selfSigned(t testing.TB, pub ed25519.PublicKey) string {
	t.Helper()
	_, caKey, _ := ed25519.GenerateKey(rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "t"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// fakeFulcio answers POST /api/v2/signingCert with a certificate for the
// key cert chooses (given the requested key), after checking the proof of
// possession and the bearer token.
func fakeFulcio(t *testing.T, token string, cert func(requested ed25519.PublicKey) string) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v2/signingCert" || r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var req struct {
			PublicKeyRequest struct {
				PublicKey         struct{ Algorithm, Content string }
				ProofOfPossession []byte
			}
		}
		json.NewDecoder(r.Body).Decode(&req)
		block, _ := pem.Decode([]byte(req.PublicKeyRequest.PublicKey.Content))
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		pub, ok := k.(ed25519.PublicKey)
		if err != nil || !ok || req.PublicKeyRequest.PublicKey.Algorithm != "ED25519" || !ed25519.Verify(pub, []byte("a@example.org"), req.PublicKeyRequest.ProofOfPossession) {
			http.Error(w, "bad proof of possession", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": []string{cert(pub)}}}})
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func TestRequestCertificateOtherKey(t *testing.T) {
	raw := jwt(good())
	tok, _ := ParseToken(raw, now)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	honest := fakeFulcio(t, raw, func(p ed25519.PublicKey) string { return selfSigned(t, p) })
	if chain, err := requestCertificate(context.Background(), http.DefaultClient, honest, tok, priv); err != nil || len(chain) != 1 {
		t.Fatalf("control (the certificate certifies the ephemeral key): %v", err)
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	lying := fakeFulcio(t, raw, func(ed25519.PublicKey) string { return selfSigned(t, other) })
	if _, err := requestCertificate(context.Background(), http.DefaultClient, lying, tok, priv); !errors.Is(err, ErrOtherKey) {
		t.Fatalf("a certificate for another key: %v, want ErrOtherKey", err)
	}
}

func TestRequestCertificateRefusedNoEcho(t *testing.T) {
	raw := jwt(good())
	tok, _ := ParseToken(raw, now)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer echo.Close()
	_, err := requestCertificate(context.Background(), http.DefaultClient, echo.URL, tok, priv)
	if !errors.Is(err, ErrCertificate) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("refusal: %v", err)
	}
	if strings.Contains(err.Error(), raw) {
		t.Fatal("the error echoes the token")
	}
}

func TestParseSigningCertAnswer(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	c := selfSigned(t, pub)
	ok := func(key string, certs []string) []byte {
		b, _ := json.Marshal(map[string]any{key: map[string]any{"chain": map[string]any{"certificates": certs}}})
		return b
	}
	if _, err := parseSigningCertAnswer(ok("signedCertificateDetachedSct", []string{c, c})); err != nil {
		t.Fatalf("control: %v", err)
	}
	many := make([]string, MaxChainLength+1)
	for i := range many {
		many[i] = c
	}
	for name, data := range map[string][]byte{
		"not JSON":       []byte("<html>"),
		"no chain":       []byte("{}"),
		"empty chain":    ok("signedCertificateEmbeddedSct", nil),
		"too long":       ok("signedCertificateEmbeddedSct", many),
		"not PEM":        ok("signedCertificateEmbeddedSct", []string{"MIIB"}),
		"trailing bytes": ok("signedCertificateEmbeddedSct", []string{c + "junk"}),
		"two PEM blocks": ok("signedCertificateEmbeddedSct", []string{c + c}),
	} {
		if _, err := parseSigningCertAnswer(data); !errors.Is(err, ErrCertificate) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzParseSigningCertAnswer(f *testing.F) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	c := selfSigned(f, pub)
	b, _ := json.Marshal(map[string]any{"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": []string{c}}}})
	f.Add(b)
	f.Add([]byte(`{"signedCertificateDetachedSct":{"chain":{"certificates":["-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		chain, err := parseSigningCertAnswer(data)
		if err != nil {
			if !errors.Is(err, ErrCertificate) {
				t.Fatalf("error not ErrCertificate: %v", err)
			}
			return
		}
		if len(chain) == 0 || len(chain) > MaxChainLength {
			t.Fatalf("a chain of %d", len(chain))
		}
	})
}

// splitPEM (the timestamp authority's /certchain answer) reads up to
// MaxChainLength certificates and refuses one more, or bytes after the
// last block that are not PEM.
func TestSplitPEM(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	c := selfSigned(t, pub)
	if got, err := splitPEM([]byte(strings.Repeat(c, MaxChainLength) + "\n")); err != nil || len(got) != MaxChainLength || got[0] != c {
		t.Fatalf("control, %d certificates: %d, %v", MaxChainLength, len(got), err)
	}
	for name, tc := range map[string]struct{ data, says string }{
		"one too many":   {strings.Repeat(c, MaxChainLength+1), "more than 8 certificates"},
		"trailing bytes": {c + "junk", "trailing bytes that are not PEM"},
		"no PEM at all":  {"<html>", "trailing bytes that are not PEM"},
	} {
		if _, err := splitPEM([]byte(tc.data)); err == nil || err.Error() != tc.says {
			t.Errorf("%s: %v, want %q", name, err, tc.says)
		}
	}
}
