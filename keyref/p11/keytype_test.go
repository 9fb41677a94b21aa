//go:build cgo

package p11

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/miekg/pkcs11"
)

// The refusal of a key that is not Ed25519 names what it is, for every
// type a token may hold (SoftHSM2 makes no X25519 key, so the Montgomery
// case is shown here), and a CKA_KEY_TYPE of an unexpected size is never
// read as a valid type.
func TestKeyTypeName(t *testing.T) {
	for typ, want := range map[uint64]string{
		pkcs11.CKK_RSA: "an RSA key", pkcs11.CKK_EC: "an ECDSA key", pkcs11.CKK_DSA: "a DSA key",
		ckkECEdwards: "an EdDSA key", ckkECMontgomry: "which cannot sign", pkcs11.CKK_AES: "a secret key",
		pkcs11.CKK_GENERIC_SECRET: "a secret key", 0x1234: "a key of type 0x1234",
	} {
		if got := keyTypeName(typ); !strings.Contains(got, want) {
			t.Errorf("keyTypeName(0x%x) = %q, want %q", typ, got, want)
		}
	}
	b8 := binary.NativeEndian.AppendUint64(nil, ckkECEdwards)
	b4 := binary.NativeEndian.AppendUint32(nil, ckkECEdwards)
	if ulong(b8) != ckkECEdwards || ulong(b4) != ckkECEdwards {
		t.Error("control: CKK_EC_EDWARDS read wrong")
	}
	for _, b := range [][]byte{nil, {0x40}, append(b8, 0)} {
		if ulong(b) == ckkECEdwards {
			t.Errorf("a %d-byte CKA_KEY_TYPE read as CKK_EC_EDWARDS", len(b))
		}
	}
	for s, want := range map[string]string{"mcpres": "mcpres", "": "''", "my token": "'my token'", "it's": `'it'\''s'`} {
		if got := shellWord(s); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", s, got, want)
		}
	}
}
