//go:build cgo

package p11_test

import (
	"crypto"
	"crypto/ed25519"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
	"github.com/mcpres/mcpres/keyref/p11"
)

// BenchmarkSign: one checked signature (ed25519strict.Sign, what every
// signing function of mcpres does) of a 1 KiB message, a DSSE statement's
// size, by a file key, a SoftHSM2 token in this process and through the
// mcpres-pkcs11 helper (as mcpres signs), and a real ssh-agent. The README
// records the figures.
func BenchmarkSign(b *testing.B) {
	msg := make([]byte, 1024)
	run := func(b *testing.B, s crypto.Signer) {
		b.Helper()
		for b.Loop() {
			if _, err := ed25519strict.Sign(s, msg); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("file", func(b *testing.B) {
		// As mcpres signs with a key file: a keyref.Key, checked too.
		_, priv, _ := ed25519.GenerateKey(nil)
		pemText, err := keyfile.MarshalPrivateKeyPEM(priv)
		if err != nil {
			b.Fatal(err)
		}
		k, err := keyref.Open("env:K", keyref.Options{LookupEnv: func(string) (string, bool) { return string(pemText), true }})
		if err != nil {
			b.Fatal(err)
		}
		run(b, k)
	})
	b.Run("softhsm2", func(b *testing.B) {
		tok := keyreftest.SoftHSM(b, "bench")
		tok.Generate(b, "EC:edwards25519", "k", "01")
		k, err := keyref.Open(tok.URI("k"), keyref.Options{LookupEnv: noEnv, PKCS11: p11.Open})
		if err != nil {
			b.Fatal(err)
		}
		defer k.Close()
		run(b, k)
	})
	b.Run("softhsm2-helper", func(b *testing.B) {
		tok := keyreftest.SoftHSM(b, "bench")
		tok.Generate(b, "EC:edwards25519", "k", "01")
		k, err := keyref.Open(tok.URI("k"), keyref.Options{LookupEnv: noEnv, PKCS11: keyref.HelperOpener(buildHelper(b))})
		if err != nil {
			b.Fatal(err)
		}
		defer k.Close()
		run(b, k)
	})
	b.Run("ssh-agent", func(b *testing.B) {
		ag := keyreftest.SSHAgent(b)
		sk := ag.AddNew(b, "ed25519")
		k, err := keyref.Open(sk.Ref(), keyref.Options{LookupEnv: func(n string) (string, bool) { return ag.Sock, n == keyref.EnvSSHAuthSock }})
		if err != nil {
			b.Fatal(err)
		}
		defer k.Close()
		run(b, k)
	})
}
