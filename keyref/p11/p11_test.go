//go:build cgo

package p11_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
	"github.com/mcpres/mcpres/keyref/p11"
)

// noEnv is a process environment with nothing set.
func noEnv(string) (string, bool) { return "", false }

// A key generated in a SoftHSM2 token by pkcs11-tool opens through its
// URI, its public half is the one pkcs11-tool exports, and it signs pure
// Ed25519 that crypto/ed25519 verifies.
func TestPKCS11Sign(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	k, err := keyref.Open(tok.URI("signer"), keyref.Options{LookupEnv: noEnv, PKCS11: p11.Open})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if want := tok.PublicKey(t, "signer"); !bytes.Equal(k.PublicKey(), want) {
		t.Fatalf("public key %x, pkcs11-tool exported %x", k.PublicKey(), want)
	}
	if !k.InToken() {
		t.Error("InToken() = false for a pkcs11 key")
	}
	msg := []byte("mcpres keyref test message")
	sig, err := ed25519strict.Sign(k, msg)
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(k.PublicKey(), msg, sig) {
		t.Fatal("the token's signature does not verify")
	}
	// By id, with the module and PIN from the environment.
	env := map[string]string{keyref.EnvPKCS11Module: tok.Module, keyref.EnvPKCS11PIN: keyreftest.TestOnlyPIN}
	k2, err := keyref.Open("pkcs11:token=mcpres;id=%01", keyref.Options{LookupEnv: func(n string) (string, bool) { v, ok := env[n]; return v, ok }, PKCS11: p11.Open})
	if err != nil {
		t.Fatal(err)
	}
	defer k2.Close()
	if !bytes.Equal(k2.PublicKey(), k.PublicKey()) {
		t.Fatal("id=%01 opened another key")
	}
}

// A file key imported into the token with softhsm2-util signs exactly
// as the file does (Ed25519 is deterministic): the token does pure
// Ed25519 with the same key.
func TestPKCS11ImportedKeySignsAsTheFile(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	priv, err := keyfile.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	pemData, err := keyfile.MarshalPrivateKeyPEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "release.key")
	if err := os.WriteFile(file, pemData, 0o600); err != nil {
		t.Fatal(err)
	}
	tok.Import(t, file, "release", "02")
	k, err := keyref.Open(tok.URI("release"), keyref.Options{LookupEnv: noEnv, PKCS11: p11.Open})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	msg := []byte("same key, same signature")
	got, err := ed25519strict.Sign(k, msg)
	if err != nil {
		t.Fatal(err)
	}
	if want := ed25519.Sign(priv, msg); !bytes.Equal(got, want) {
		t.Fatalf("token signature %x, file signature %x", got, want)
	}
}

// Each failure of opening a token key is its own error, says what to do,
// and never contains the PIN.
func TestPKCS11Errors(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	tok.Generate(t, "EC:prime256v1", "ecdsa", "02")
	tok.Generate(t, "rsa:2048", "rsa", "03")
	wrongPIN := filepath.Join(t.TempDir(), "wrong-pin")
	if err := os.WriteFile(wrongPIN, []byte("97531\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	openPIN := filepath.Join(t.TempDir(), "pin")
	if err := os.WriteFile(openPIN, []byte(keyreftest.TestOnlyPIN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(openPIN, 0o644); err != nil {
		t.Fatal(err)
	}
	m := "module-path=" + tok.Module
	for _, c := range []struct {
		name, ref string
		env       map[string]string
		want      error
		says      string
	}{
		{"module not found", "pkcs11:token=mcpres;object=signer?module-path=/nonexistent/libnone.so&pin-value=1234", nil, keyref.ErrModule, "/nonexistent/libnone.so: not found"},
		{"no module", "pkcs11:token=mcpres;object=signer", nil, keyref.ErrModule, "$MCPRES_PKCS11_MODULE"},
		{"not a module", "pkcs11:token=mcpres;object=signer?module-path=" + wrongPIN, nil, keyref.ErrModule, "cannot be loaded"},
		{"token not found", "pkcs11:token=other;object=signer?" + m + "&pin-source=" + tok.PINFile, nil, keyref.ErrTokenNotFound, "there are: token=mcpres;serial="},
		{"object not found", "pkcs11:token=mcpres;object=nope?" + m + "&pin-source=" + tok.PINFile, nil, keyref.ErrObjectNotFound, "object=signer;id=%01"},
		{"wrong PIN", "pkcs11:token=mcpres;object=signer?" + m + "&pin-source=" + wrongPIN, nil, keyref.ErrPINIncorrect, "refused the PIN"},
		{"wrong PIN value", "pkcs11:token=mcpres;object=signer?" + m + "&pin-value=97531", nil, keyref.ErrPINIncorrect, "refused the PIN"},
		{"wrong PIN from the environment", "pkcs11:token=mcpres;object=signer?" + m, map[string]string{keyref.EnvPKCS11PIN: "97531"}, keyref.ErrPINIncorrect, "refused the PIN"},
		{"no PIN", "pkcs11:token=mcpres;object=signer?" + m, nil, keyref.ErrPINRequired, "pin-source"},
		{"PIN file readable by others", "pkcs11:token=mcpres;object=signer?" + m + "&pin-source=" + openPIN, nil, keyref.ErrPINFileMode, "has mode 0644, so other users can read the PIN: chmod 600 " + openPIN},
		// A key of another type says which keys sign and how to make one
		// (issue 31 item 10).
		{"ECDSA key", "pkcs11:token=mcpres;object=ecdsa?" + m + "&pin-source=" + tok.PINFile, nil, keyref.ErrKeyType,
			"is an ECDSA key; only Ed25519 keys (CKK_EC_EDWARDS on edwards25519, signing with CKM_EDDSA) sign MCP-RES envelopes and checkpoints: make one with pkcs11-tool --module " +
				tok.Module + " --token-label mcpres --login --keypairgen --key-type EC:edwards25519 --label LABEL --id ID"},
		{"RSA key", "pkcs11:token=mcpres;object=rsa?" + m + "&pin-source=" + tok.PINFile, nil, keyref.ErrKeyType, "is an RSA key; only Ed25519 keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := keyref.Open(c.ref, keyref.Options{LookupEnv: func(n string) (string, bool) { v, ok := c.env[n]; return v, ok }, PKCS11: p11.Open})
			if err == nil {
				k.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %q, want %v saying %q", err, c.want, c.says)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "97531") {
				t.Fatalf("the error quotes a PIN: %q", err)
			}
		})
	}
}

// SoftHSM2 reads its tokens from the file $SOFTHSM2_CONF names: when it
// is unset or names no file, the token is not found (or the module does
// not start), and the error says to set it (issue 31 item 10); with it
// set to the token's softhsm2.conf the same URI opens.
func TestPKCS11SoftHSMConf(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	const todo = "set SOFTHSM2_CONF to the softhsm2.conf of the token directory"
	open := func() error {
		k, err := keyref.Open(tok.URI("signer"), keyref.Options{LookupEnv: noEnv, PKCS11: p11.Open})
		if err == nil {
			k.Close()
		}
		return err
	}
	os.Unsetenv("SOFTHSM2_CONF") // keyreftest.SoftHSM's t.Setenv puts it back
	if err := open(); !(errors.Is(err, keyref.ErrTokenNotFound) || errors.Is(err, keyref.ErrModule)) ||
		!strings.Contains(err.Error(), "$SOFTHSM2_CONF is not set, so it reads /etc/softhsm/softhsm2.conf: "+todo) {
		t.Errorf("SOFTHSM2_CONF unset: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "softhsm2.conf")
	t.Setenv("SOFTHSM2_CONF", missing)
	if err := open(); !(errors.Is(err, keyref.ErrTokenNotFound) || errors.Is(err, keyref.ErrModule)) ||
		!strings.Contains(err.Error(), "$SOFTHSM2_CONF is "+missing+", which is not a file: "+todo) {
		t.Errorf("SOFTHSM2_CONF names no file: %v", err)
	}
	t.Setenv("SOFTHSM2_CONF", tok.Conf)
	if err := open(); err != nil {
		t.Errorf("SOFTHSM2_CONF set: %v", err)
	}
}
