package floor_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/internal/floor"
)

// preparedJSON is a floor.json of two checks made with test-only keys
// made now: an Ed25519 one and an ECDSA P-256/SHA-256 one.
func preparedJSON(t *testing.T, tamper bool) []byte {
	t.Helper()
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	msg := []byte("signed bytes")
	sum := sha256.Sum256(msg)
	ecSig, err := ecdsa.SignASN1(rand.Reader, ecKey, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	edSPKI, _ := x509.MarshalPKIXPublicKey(edPub)
	ecSPKI, _ := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	edSig, _ := edKey.Sign(rand.Reader, msg, crypto.Hash(0))
	if tamper {
		ecSig[len(ecSig)-1] ^= 1
	}
	data, _ := json.Marshal([]map[string]any{
		{"what": "envelope", "alg": "ed25519", "publicKey": edSPKI, "message": msg, "signature": edSig},
		{"what": "chain", "alg": "ecdsa", "hash": "sha256", "publicKey": ecSPKI, "message": msg, "signature": ecSig},
	})
	return data
}

// The keyless floor: prepared checks that verify are accepted and run on
// every file; a tampered one is refused when read; a material file that
// is not JSON fails the file (the control: both files JSON pass).
func TestKeylessFloor(t *testing.T) {
	checks, err := floor.PreparedChecks(preparedJSON(t, false))
	if err != nil || len(checks) != 2 {
		t.Fatalf("honest checks: %v", err)
	}
	if _, err := floor.PreparedChecks(preparedJSON(t, true)); err == nil || !strings.Contains(err.Error(), "chain: does not verify") {
		t.Errorf("tampered check: %v", err)
	}
	d := t.TempDir()
	b := filepath.Join(d, "b.json")
	os.WriteFile(b, []byte(`{"a":1}`), 0o644)
	os.WriteFile(b+".sigstore.json", []byte(`{"b":2}`), 0o644)
	if err := floor.CheckKeyless(b, b+".sigstore.json", checks, os.ReadFile); err != nil {
		t.Fatalf("control: %v", err)
	}
	os.WriteFile(b+".sigstore.json", []byte(`{`), 0o644)
	if err := floor.CheckKeyless(b, b+".sigstore.json", checks, os.ReadFile); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("material not JSON: %v", err)
	}
}
