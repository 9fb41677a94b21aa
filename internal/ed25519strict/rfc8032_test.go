package ed25519strict

import (
	"crypto/ed25519"
	"encoding/hex"
)

// RFC 8032 §7.1 TEST 1 and TEST 2: public test vectors (seed, public key,
// message, signature). Everyone knows these seeds; never trust them.
const (
	testOnlySeedOneHex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	testKeyOnePubHex   = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	testKeyTwoPubHex   = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
	rfc8032Test1SigHex = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
	rfc8032Test2MsgHex = "72"
	rfc8032Test2SigHex = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
)

func testOnlyKeyOne() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(mustHex(testOnlySeedOneHex)) }

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
