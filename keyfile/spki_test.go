package keyfile

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/ed25519strict"
)

// REFERENCE §2.5: SPKI base64 and key id of both test keys.
func TestSPKIGoldens(t *testing.T) {
	for _, tc := range []struct {
		name, pubHex, spkiB64, keyID string
	}{
		{"key one", testKeyOnePubHex, testKeyOneSPKIB64, testKeyOneKeyID},
		{"key two", testKeyTwoPubHex, testKeyTwoSPKIB64, testKeyTwoKeyID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			der := ed25519strict.MarshalSPKI(mustHex(tc.pubHex))
			if len(der) != 44 || !bytes.HasPrefix(der, mustHex("302a300506032b6570032100")) {
				t.Fatalf("ed25519strict.MarshalSPKI = %x", der)
			}
			if got := base64.StdEncoding.EncodeToString(der); got != tc.spkiB64 {
				t.Fatalf("SPKI base64 = %s, want %s", got, tc.spkiB64)
			}
			if got := ed25519strict.SPKIFingerprint(der); got != tc.keyID {
				t.Fatalf("KeyID = %s, want %s", got, tc.keyID)
			}
			// crypto/x509 produces the same bytes.
			std, err := x509.MarshalPKIXPublicKey(ed25519.PublicKey(mustHex(tc.pubHex)))
			if err != nil || !bytes.Equal(std, der) {
				t.Fatalf("x509.MarshalPKIXPublicKey = %x, %v; want %x", std, err, der)
			}
			decoded, err := DecodeStrictBase64(tc.spkiB64)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := ParseSPKI(decoded)
			if err != nil || hex.EncodeToString(pub) != tc.pubHex {
				t.Fatalf("ParseSPKI = %x, %v; want %s", pub, err, tc.pubHex)
			}
		})
	}
}

func TestParseSPKI(t *testing.T) {
	good := ed25519strict.MarshalSPKI(mustHex(testKeyOnePubHex))
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		der     []byte
		wantMsg string // substring of the error; "" means success
	}{
		{"good", good, ""},
		{"raw 32-byte key", mustHex(testKeyOnePubHex), "got 32 bytes, want 44"},
		{"43 bytes", good[:43], "got 43 bytes, want 44"},
		{"45 bytes", append(bytes.Clone(good), 0), "got 45 bytes, want 44"},
		{"empty", nil, "got 0 bytes, want 44"},
		{"ECDSA P-256 key", ecDER, "public key is ECDSA P-256, only Ed25519 is supported"},
		{"X25519 OID", withByte(good, 8, 0x6e), "public key is X25519, only Ed25519 is supported"},
	}
	for i := 0; i < len(ed25519strict.SPKIPrefix); i++ {
		if i == 8 {
			continue // 0x70 → 0x6e is X25519, above; other values are no known algorithm
		}
		tests = append(tests, struct {
			name    string
			der     []byte
			wantMsg string
		}{fmt.Sprintf("prefix byte %d changed", i), withByte(good, i, good[i]^0x01), "not the Ed25519 SPKI prefix"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub, err := ParseSPKI(tt.der)
			if tt.wantMsg == "" {
				if err != nil || !bytes.Equal(pub, good[12:]) {
					t.Fatalf("ParseSPKI = %x, %v", pub, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidSPKI) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("ParseSPKI error = %v, want ErrInvalidSPKI containing %q", err, tt.wantMsg)
			}
			if pub != nil {
				t.Fatalf("ParseSPKI returned %x with an error", pub)
			}
		})
	}
}

func TestParseSPKIDoesNotAlias(t *testing.T) {
	der := ed25519strict.MarshalSPKI(mustHex(testKeyOnePubHex))
	pub, err := ParseSPKI(der)
	if err != nil {
		t.Fatal(err)
	}
	der[20] ^= 0xff
	if hex.EncodeToString(pub) != testKeyOnePubHex {
		t.Fatal("ParseSPKI result aliases its input")
	}
}

func FuzzParseSPKI(f *testing.F) {
	f.Add(ed25519strict.MarshalSPKI(mustHex(testKeyOnePubHex)))
	f.Add(ed25519strict.MarshalSPKI(mustHex(testKeyTwoPubHex)))
	f.Add(mustHex(testKeyOnePubHex))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, der []byte) {
		pub, err := ParseSPKI(der)
		wantOK := len(der) == 44 && bytes.HasPrefix(der, []byte(ed25519strict.SPKIPrefix))
		if (err == nil) != wantOK {
			t.Fatalf("ParseSPKI(%x) error = %v, want ok = %v", der, err, wantOK)
		}
		if err != nil {
			if pub != nil || !errors.Is(err, ErrInvalidSPKI) {
				t.Fatalf("ParseSPKI(%x) = %x, %v", der, pub, err)
			}
			return
		}
		if !bytes.Equal(ed25519strict.MarshalSPKI(pub), der) {
			t.Fatalf("ed25519strict.MarshalSPKI(ParseSPKI(%x)) differs", der)
		}
	})
}
