//go:build cgo

package main

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/keyref/keyreftest"
)

// Control: a SoftHSM2 key opens (its public key answered), signs each
// request with a signature that verifies, and the helper ends with exit 0
// when its input ends. The PIN is never printed.
func TestServeSoftHSM(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	in := frame('O', openPayload("pkcs11:token=mcpres;object=signer", tok.Module, "1", keyreftest.TestOnlyPIN))
	in = append(in, frame('S', []byte("first"))...)
	in = append(in, frame('S', []byte("second"))...)
	code, out, errs := serve(t, in)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	types, payloads := readFrames(t, out)
	if string(types) != "KGG" {
		t.Fatalf("answered frames %q", types)
	}
	pub := ed25519.PublicKey(payloads[0])
	if !bytes.Equal(pub, tok.PublicKey(t, "signer")) {
		t.Errorf("public key %x, want the token's", pub)
	}
	for i, msg := range []string{"first", "second"} {
		if !ed25519.Verify(pub, []byte(msg), payloads[1+i]) {
			t.Errorf("signature %d does not verify", i)
		}
	}
	if bytes.Contains(out, []byte(keyreftest.TestOnlyPIN)) {
		t.Error("the PIN was answered")
	}

	// A wrong PIN is answered as such (code 5, keyref.ErrPINIncorrect),
	// without the PIN.
	code, out, errs = serve(t, frame('O', openPayload("pkcs11:token=mcpres;object=signer", tok.Module, "1", "86420")))
	types, payloads = readFrames(t, out)
	if code != 2 || len(types) != 1 || types[0] != 'E' || payloads[0][0] != 5 || strings.Contains(string(payloads[0])+errs, "86420") {
		t.Errorf("wrong PIN: exit %d, answered %q, stderr %q", code, out, errs)
	}
}

// A module that cannot be loaded is answered with the module error's code
// (1, keyref.ErrModule), naming the module, and ends the helper (exit 2).
func TestServeMissingModule(t *testing.T) {
	code, out, errs := serve(t, frame('O', openPayload("pkcs11:token=t;object=o", "/nonexistent/libnone.so", "0", "")))
	types, payloads := readFrames(t, out)
	if code != 2 || len(types) != 1 || types[0] != 'E' || payloads[0][0] != 1 || !strings.Contains(errs, "/nonexistent/libnone.so") {
		t.Errorf("missing module: exit %d, answered %q, stderr %q", code, out, errs)
	}
}
