package keyfile

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
)

// The public Ed25519 test seeds of RFC 8032 §7.1 (TEST 1 and TEST 2), used
// by REFERENCE §2.5 for its goldens. Everyone knows them; never trust them
// outside tests.
const (
	testOnlySeedOneHex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	testOnlySeedTwoHex = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
)

// Public material of the two test keys (RFC 8032 §7.1, REFERENCE §2.5).
const (
	testKeyOnePubHex  = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	testKeyOneSPKIB64 = "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
	testKeyOneKeyID   = "06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9"

	testKeyTwoPubHex  = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
	testKeyTwoSPKIB64 = "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="
	testKeyTwoKeyID   = "deb2ded39dc26fce0e6085b6fc34bf6b5941913bbfe2ea614113cff9e004c170"
)

func testOnlyKeyOne() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(mustHex(testOnlySeedOneHex)) }
func testOnlyKeyTwo() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(mustHex(testOnlySeedTwoHex)) }

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// identityHex is the identity point (0, 1): a small-order key.
const identityHex = "0100000000000000000000000000000000000000000000000000000000000000"

// withByte returns a copy of b with byte i set to v.
func withByte(b []byte, i int, v byte) []byte {
	c := bytes.Clone(b)
	c[i] = v
	return c
}
