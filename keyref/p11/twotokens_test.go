//go:build cgo

package p11_test

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/keyref/keyreftest"
)

// Two tokens with the label a URI names are refused (ErrTokenNotFound,
// naming both and what to add): another token's key of the same label
// could sign. The control adds the serial= the message lists and opens
// the key.
func TestPKCS11TwoTokensMatch(t *testing.T) {
	tok := keyreftest.SoftHSM(t, "mcpres")
	tok.Generate(t, "EC:edwards25519", "one", "01")
	// A second token with the same label, in the same store.
	cmd := exec.Command("softhsm2-util", "--init-token", "--free", "--label", "mcpres", "--pin", keyreftest.TestOnlyPIN, "--so-pin", keyreftest.TestOnlySOPIN)
	cmd.Env = append(os.Environ(), "SOFTHSM2_CONF="+tok.Conf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a second token: %v\n%s", err, out)
	}
	k, err := open(t, tok.URI("one"))
	if err == nil {
		k.Close()
		t.Fatal("opened a key of one of two tokens with the same label")
	}
	if !errors.Is(err, keyref.ErrTokenNotFound) || !strings.Contains(err.Error(), "2 tokens match pkcs11:token=mcpres;object=one") ||
		!strings.Contains(err.Error(), "add serial= or slot-id=") {
		t.Fatalf("two tokens: %v", err)
	}
	serials := regexp.MustCompile(`token=mcpres;serial=([0-9a-f]+) \(slot-id=`).FindAllStringSubmatch(err.Error(), -1)
	if len(serials) != 2 || serials[0][1] == serials[1][1] {
		t.Fatalf("the message does not list two serials: %v", err)
	}
	for _, s := range serials {
		ref := strings.Replace(tok.URI("one"), "pkcs11:token=mcpres;", "pkcs11:token=mcpres;serial="+s[1]+";", 1)
		if k, err := open(t, ref); err == nil {
			k.Close()
			return // the token holding the key, named by its serial
		} else if !errors.Is(err, keyref.ErrObjectNotFound) {
			t.Fatalf("serial=%s: %v, want the key or ErrObjectNotFound (the other token)", s[1], err)
		}
	}
	t.Fatal("control: no serial= opens the key")
}
