//go:build cgo

package p11_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
)

// buildHelper builds cmd/mcpres-pkcs11.
func buildHelper(t testing.TB) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build mcpres-pkcs11")
	}
	bin := filepath.Join(t.TempDir(), "mcpres-pkcs11")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/mcpres/mcpres/cmd/mcpres-pkcs11").CombinedOutput(); err != nil {
		t.Fatalf("building mcpres-pkcs11: %v\n%s", err, out)
	}
	return bin
}

// Through the helper process (what mcpres does), a SoftHSM2 key opens
// with the public key pkcs11-tool exports, signs, and a wrong PIN is
// ErrPINIncorrect on this side of the pipe, its message without the PIN.
func TestHelperProcess(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	opener := keyref.HelperOpener(buildHelper(t))
	k, err := keyref.Open(tok.URI("signer"), keyref.Options{LookupEnv: noEnv, PKCS11: opener})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if want := tok.PublicKey(t, "signer"); !bytes.Equal(k.PublicKey(), want) {
		t.Fatalf("public key %x, pkcs11-tool exported %x", k.PublicKey(), want)
	}
	for i := range 3 {
		msg := []byte{byte(i), 'm'}
		sig, err := ed25519strict.Sign(k, msg)
		if err != nil || !ed25519.Verify(k.PublicKey(), msg, sig) {
			t.Fatalf("signature %d: %v", i, err)
		}
	}
	wrong := filepath.Join(t.TempDir(), "pin")
	os.WriteFile(wrong, []byte("86420\n"), 0o600)
	_, err = keyref.Open("pkcs11:token=mcpres;object=signer?module-path="+tok.Module+"&pin-source="+wrong, keyref.Options{LookupEnv: noEnv, PKCS11: opener})
	if !errors.Is(err, keyref.ErrPINIncorrect) || strings.Contains(err.Error(), "86420") {
		t.Fatalf("wrong PIN through the helper: %v", err)
	}
	_, err = keyref.Open("pkcs11:token=mcpres;object=none?module-path="+tok.Module+"&pin-source="+tok.PINFile, keyref.Options{LookupEnv: noEnv, PKCS11: opener})
	if !errors.Is(err, keyref.ErrObjectNotFound) || !strings.Contains(err.Error(), "object=signer;id=%01") {
		t.Fatalf("missing object through the helper: %v", err)
	}
}

// Built without cgo, the helper says so and how to get a build that has
// PKCS#11 support.
func TestHelperWithoutCgo(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "mcpres-pkcs11")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/mcpres/mcpres/cmd/mcpres-pkcs11")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	_, err = keyref.Open(tok.URI("signer"), keyref.Options{LookupEnv: noEnv, PKCS11: keyref.HelperOpener(bin)})
	if !errors.Is(err, keyref.ErrNoPKCS11) || !strings.Contains(err.Error(), "CGO_ENABLED=1 go install ./cmd/...") {
		t.Fatalf("a helper without cgo: %v", err)
	}
}
