package keyfile_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/mcpres/mcpres/keyfile"
)

// A key pair written and read back: the private key as PKCS#8 PEM (write
// it with mode 0600), the public key as SPKI PEM, and what each file is.
func ExampleParsePrivateKeyPEM() {
	// A fixed seed, for a reproducible example only: use GenerateKey(nil).
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	privPEM, _ := keyfile.MarshalPrivateKeyPEM(priv)
	pubPEM, _ := keyfile.MarshalPublicKeyPEM(priv.Public().(ed25519.PublicKey))

	back, err := keyfile.ParsePrivateKeyPEM(privPEM, nil) // unencrypted: no passphrase asked
	fmt.Println(err == nil && back.Equal(priv))
	fmt.Println(keyfile.Recognise(privPEM), "/", keyfile.Recognise(pubPEM))

	// The public key given where the private key is wanted: the error says
	// what the file is.
	_, err = keyfile.ParsePrivateKeyPEM(pubPEM, nil)
	fmt.Println(err)
	// Output:
	// true
	// a PEM private key / a PEM public key
	// unsupported key format: this is a PEM public key; not a PEM private key
}

// DecodeStrictBase64 accepts only the encoding REFERENCE §6.8 allows.
func ExampleDecodeStrictBase64() {
	b, err := keyfile.DecodeStrictBase64("QUJD")
	fmt.Printf("%s %v\n", b, err)
	_, err = keyfile.DecodeStrictBase64("QUJD=")
	fmt.Println(err)
	// Output:
	// ABC <nil>
	// invalid strict base64: length 5 is not a multiple of 4
}
