// Package keyfile reads and writes the Ed25519 key files of mcpres and
// tells one kind of key file from another. It is the one place that
// parses PEM keys, SPKI and strict base64; package attest signs and
// verifies with the keys it returns, and package keyref opens key
// references (files, variables, tokens, agents) with it.
//
// # Key files
//
//   - [GenerateKey], [MarshalPrivateKeyPEM], [MarshalEncryptedPrivateKeyPEM],
//     [ParsePrivateKeyPEM]: private keys are PKCS#8 PEM ([PEMTypePrivateKey])
//     or, encrypted, the cosign/sigstore format
//     ([PEMTypeEncryptedSigstore]: scrypt and NaCl secretbox around the
//     PKCS#8 DER). A passphrase is asked for through a function the caller
//     gives, only when the key is encrypted.
//   - [MarshalPublicKeyPEM], [ParsePublicKeyPEM]: public keys are SPKI PEM
//     ([PEMTypePublicKey]) or the strict base64 of the SPKI DER, as an
//     envelope's publicKeySpkiBase64 holds it.
//   - [ParseSPKI] is check E5 of REFERENCE §6.6: the 44-byte Ed25519
//     SubjectPublicKeyInfo layout alone; it names the algorithm of a
//     non-Ed25519 key with crypto/x509 (which ed25519strict, linked by
//     package offline, must not import). The point rules are
//     ed25519strict's.
//   - [DecodeStrictBase64] is REFERENCE §6.8: standard alphabet, padding
//     mandatory, no whitespace, no superfluous padding; non-zero unused
//     bits in the last group are accepted, as upstream does.
//
// Only Ed25519 is supported; every other algorithm fails with an error
// that names it. Errors wrap the Err… values (test with errors.Is). No
// error message ever contains key material, a PEM body or a passphrase,
// and intermediate copies of private DER are zeroed.
//
// # Kinds of key file
//
// mcpres takes two worlds of keys: the PEM keys above sign and co-sign
// attested bundles, signed-note keys (package signednote) sign and cosign
// a log's checkpoints. [Recognise] tells which [Kind] a file is, by its
// PEM type or with the strict parsers, and the readers here refuse another
// kind with a *[KindError] that says what the file is ("this is a
// signed-note log verifier key; not a PEM private key") instead of an
// encoding error. [CheckKind] does the same for any reader. A KindError
// names kinds, never commands: which command takes which kind is the
// business of the program that prints the error.
//
// These functions are pure: no files, network, clock or package-level
// state, no work at package initialisation, no logging.
package keyfile
