package attest

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"
)

// The only private keys in this repository: the public Ed25519 test seeds of
// RFC 8032 §7.1 (TEST 1 and TEST 2), used by REFERENCE §2.5 for its goldens.
// Everyone knows them; never trust them outside tests.
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

	// RFC 8032 §7.1 TEST 1 (empty message) and TEST 2 (message 0x72).
	rfc8032Test1SigHex = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
	rfc8032Test2MsgHex = "72"
	rfc8032Test2SigHex = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
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

func TestTestKeysMatchRFC8032(t *testing.T) {
	for _, tc := range []struct {
		name   string
		priv   ed25519.PrivateKey
		pubHex string
		msg    []byte
		sigHex string
	}{
		{"one", testOnlyKeyOne(), testKeyOnePubHex, nil, rfc8032Test1SigHex},
		{"two", testOnlyKeyTwo(), testKeyTwoPubHex, mustHex(rfc8032Test2MsgHex), rfc8032Test2SigHex},
	} {
		if got := hex.EncodeToString(tc.priv.Public().(ed25519.PublicKey)); got != tc.pubHex {
			t.Errorf("key %s: public key = %s, want %s", tc.name, got, tc.pubHex)
		}
		if got := hex.EncodeToString(ed25519.Sign(tc.priv, tc.msg)); got != tc.sigHex {
			t.Errorf("key %s: signature = %s, want %s", tc.name, got, tc.sigHex)
		}
	}
}
