//go:build cgo

package p11_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
	"github.com/mcpres/mcpres/keyref/p11"
)

// A token that goes away (SoftHSM2's store moved aside, as a removed
// device) makes signing fail with ErrUnavailable; once it is back, the
// same Key signs again (a new session, the module initialised again).
func TestPKCS11TokenGoneAndBack(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	k, err := keyref.Open(tok.URI("signer"), keyref.Options{LookupEnv: noEnv, PKCS11: p11.Open})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	msg := []byte("m")
	if _, err := ed25519strict.Sign(k, msg); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(tok.Dir, "tokens")
	if err := os.Rename(tokens, tokens+".away"); err != nil {
		t.Fatal(err)
	}
	_, err = ed25519strict.Sign(k, msg)
	t.Logf("token away: %v", err)
	if !errors.Is(err, keyref.ErrUnavailable) {
		t.Fatalf("token away: %v, want ErrUnavailable", err)
	}
	if err := os.Rename(tokens+".away", tokens); err != nil {
		t.Fatal(err)
	}
	if _, err := ed25519strict.Sign(k, msg); err != nil {
		t.Fatalf("token back: %v", err)
	}
}
