package ed25519strict

import (
	"crypto/ed25519"
	"encoding/hex"
)

// The keys of RFC 8032 §7.1 TEST 1 and TEST 2, from their public seeds, and
// their (deterministic) signatures of the TEST messages: the empty message
// and 0x72. Everyone knows these seeds; never trust them. attest's
// TestTestKeysMatchRFC8032 checks the same seeds against the RFC's values.
var (
	testOnlyKeyOneSeed = mustHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	testOnlyKeyTwoSeed = mustHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")

	testKeyOnePubHex   = hex.EncodeToString(testOnlyKeyOne().Public().(ed25519.PublicKey))
	testKeyTwoPubHex   = hex.EncodeToString(ed25519.NewKeyFromSeed(testOnlyKeyTwoSeed).Public().(ed25519.PublicKey))
	rfc8032Test1SigHex = hex.EncodeToString(ed25519.Sign(testOnlyKeyOne(), nil))
	rfc8032Test2MsgHex = "72"
	rfc8032Test2SigHex = hex.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(testOnlyKeyTwoSeed), mustHex(rfc8032Test2MsgHex)))
)

func testOnlyKeyOne() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(testOnlyKeyOneSeed) }

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
