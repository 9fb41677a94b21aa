package keyfile

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
)

// A PKCS#8 private key of another algorithm is refused with
// ErrUnsupportedKeyType naming it (an X25519 key, an ECDSA P-384 key),
// and describeKey names every algorithm crypto/x509 returns; the control
// is an Ed25519 key.
func TestPrivateKeyOfAnotherAlgorithm(t *testing.T) {
	x, _ := ecdh.X25519().GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	for want, key := range map[string]any{"X25519": x, "ECDSA P-384": ec} {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		data := pem.EncodeToMemory(&pem.Block{Type: PEMTypePrivateKey, Bytes: der})
		if _, err := ParsePrivateKeyPEM(data, nil); !errors.Is(err, ErrUnsupportedKeyType) || !strings.Contains(err.Error(), "private key is "+want+", only Ed25519") {
			t.Errorf("%s: %v", want, err)
		}
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	data, err := MarshalPrivateKeyPEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParsePrivateKeyPEM(data, nil); err != nil || !got.Equal(priv) {
		t.Errorf("control: %v", err)
	}
	for want, key := range map[string]any{
		"X25519": x.PublicKey(), "ECDSA P-384": &ec.PublicKey, "Ed25519": priv.Public(), "unsupported algorithm (int)": 7,
	} {
		if got := describeKey(key); !strings.Contains(got, want) {
			t.Errorf("describeKey(%T) = %q, want %q", key, got, want)
		}
	}
}

// A Kind outside the table is named as an unknown key, never a panic.
func TestKindStringOutOfRange(t *testing.T) {
	for _, k := range []Kind{-1, Kind(len(kindNames)), 1000} {
		if k.String() != UnknownKey.String() {
			t.Errorf("Kind(%d) = %q", k, k.String())
		}
	}
	if PEMPrivateKey.String() == UnknownKey.String() {
		t.Error("control: a PEM private key is named as unknown")
	}
}
