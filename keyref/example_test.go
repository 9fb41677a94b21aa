package keyref_test

import (
	"crypto/ed25519"
	"fmt"

	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
)

// A reference opens to an Ed25519 crypto.Signer, whatever holds the key:
// here the PEM text of a CI secret (env:NAME; the key is RFC 8032's test
// key 1, public knowledge). A pkcs11: or ssh-agent: reference gives the
// same kind of Key, and its private half stays in the token or agent.
func ExampleOpen() {
	seed := make([]byte, 32)
	copy(seed, []byte{0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
		0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60})
	pemText, _ := keyfile.MarshalPrivateKeyPEM(ed25519.NewKeyFromSeed(seed))
	env := map[string]string{"MCPRES_SIGNING_KEY": string(pemText)}
	k, err := keyref.Open("env:MCPRES_SIGNING_KEY", keyref.Options{
		LookupEnv: func(name string) (string, bool) { v, ok := env[name]; return v, ok },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Close()
	sig, err := ed25519strict.Sign(k, []byte("message")) // what every signing function does
	fmt.Println(k, k.Fingerprint()[:16], len(sig), err)
	// Output: $MCPRES_SIGNING_KEY 06e3fd8fda29bb60 64 <nil>
}
