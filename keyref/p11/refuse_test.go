//go:build cgo

package p11_test

import (
	"crypto"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
	"github.com/mcpres/mcpres/keyref/p11"
)

func open(t *testing.T, ref string) (*keyref.Key, error) {
	t.Helper()
	return keyref.Open(ref, keyref.Options{LookupEnv: noEnv, PKCS11: p11.Open})
}

// A URI that does not name one key of one token is refused, saying what
// there is: two Ed25519 keys share the label object= names
// (ErrObjectNotFound, the keys listed), no token matches a serial= or a
// slot-id= (ErrTokenNotFound, the tokens listed), and an Ed25519 private
// key without its public key object beside it (ErrObjectNotFound: the
// public half checks every signature). The control opens one of the keys
// by its label.
func TestPKCS11AmbiguousAndIncomplete(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "one", "01")
	tok.Generate(t, "EC:edwards25519", "dup", "02")
	tok.Generate(t, "EC:edwards25519", "dup", "04")
	tok.Generate(t, "EC:edwards25519", "lonely", "03")
	tok.Tool(t, "--delete-object", "--type", "pubkey", "--id", "03")
	q := "?module-path=" + tok.Module + "&pin-source=" + tok.PINFile
	for _, c := range []struct {
		name, ref string
		want      error
		says      []string
	}{
		{"two keys match", "pkcs11:token=mcpres;object=dup" + q, keyref.ErrObjectNotFound, []string{"2 private keys matching", "object=dup;id=%02", "object=dup;id=%04", "object=one;id=%01"}},
		{"no such serial", "pkcs11:token=mcpres;serial=nope;object=one" + q, keyref.ErrTokenNotFound, []string{"no token of module", "there are: token=mcpres;serial="}},
		{"no such slot", "pkcs11:token=mcpres;slot-id=424242;object=one" + q, keyref.ErrTokenNotFound, []string{"no token of module"}},
		{"no such manufacturer", "pkcs11:manufacturer=nobody;object=one" + q, keyref.ErrTokenNotFound, []string{"no token of module"}},
		{"no public key object", "pkcs11:token=mcpres;object=lonely" + q, keyref.ErrObjectNotFound, []string{"0 public key objects have its CKA_ID"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := open(t, c.ref)
			if err == nil {
				k.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %q, want %v", err, c.want)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
	k, err := open(t, tok.URI("one"))
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	k.Close()
}

// A module with no initialised token is refused with ErrTokenNotFound
// saying so, and, for SoftHSM2, where it looks for tokens.
func TestPKCS11NoToken(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	empty := filepath.Join(t.TempDir(), "tokens")
	if err := os.MkdirAll(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "softhsm2.conf")
	if err := os.WriteFile(conf, []byte("directories.tokendir = "+empty+"\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", conf)
	k, err := open(t, tok.URI("signer"))
	if err == nil {
		k.Close()
		t.Fatal("opened a key of a module without tokens")
	}
	if !errors.Is(err, keyref.ErrTokenNotFound) || !strings.Contains(err.Error(), "has no token") || !strings.Contains(err.Error(), "SOFTHSM2_CONF="+conf) {
		t.Errorf("no token: %v", err)
	}
	t.Setenv("SOFTHSM2_CONF", tok.Conf)
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	if k, err := open(t, tok.URI("signer")); err != nil {
		t.Errorf("control, the token's own store: %v", err)
	} else {
		k.Close()
	}
}

// A key that was closed refuses to sign (ErrUnavailable) rather than
// opening the token again.
func TestPKCS11SignAfterClose(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "signer", "01")
	k, err := open(t, tok.URI("signer"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Sign(nil, []byte("m"), crypto.Hash(0)); err != nil {
		t.Fatalf("control: %v", err)
	}
	k.Close()
	if _, err := k.Sign(nil, []byte("m"), crypto.Hash(0)); !errors.Is(err, keyref.ErrUnavailable) {
		t.Errorf("a signature after Close: %v", err)
	}
}
