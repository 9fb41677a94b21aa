// Package attest produces and verifies MCP-RES attestations: DSSE envelopes
// signed with Ed25519 over in-toto statements (REFERENCE §3.2, §6).
//
// # Signing and verifying
//
// [SignBundle] validates a conformance bundle once and returns the attested
// bundle with one envelope; [Cosign] verifies an attested bundle once and
// appends an envelope, refusing a key that already signed and more than
// [MaxEnvelopes]; both return what they did ([Signing]) or a [SignError]
// that says why nothing was signed. [Sign] is the bare envelope. [Verify]
// verifies an attested bundle in the reference order against an optional
// trust policy ([TrustPolicy], loaded per call from Options.Policy or once
// for a batch with [LoadPolicy]); what a policy verified about a
// transparency reference ([VerifiedTransparency]) is recorded in the
// evaluation the level is derived from.
//
// Everything is offline and explicit: documents are *canonjson.Value
// (canonjson.Parse), keys are ed25519.PrivateKey and PublicKey
// ([ParsePrivateKeyPEM], [ParsePublicKeyPEM]), and no clock is read, so
// the signing time ([SignOptions].SigningTime) and the evaluation time
// ([Options].EvaluatedAt) are RFC 3339 strings the caller gives (REFERENCE
// §1.7). A gate verifies and then checks the result:
//
//	r, err := attest.Verify(doc, attest.Options{Policy: policy, EvaluatedAt: now,
//		PolicyLoaders: map[string]attest.PolicyLoader{trustpolicy.SchemaVersionPolicy: trustpolicy.Loader}})
//	if err != nil || !r.Valid || r.Level < attest.Witnessed { // Levels are ordered
//		// refuse
//	}
//
// A valid result vouches for the embedded bundle as a whole: its signed
// statement binds the bundle's digests and its subject (name and
// artifactSha256), so [Result].Subject, read from the bundle, is the one
// that was signed.
//
// # Binding the gate to what ships
//
// A valid result says who signed, not that the bundle is about the
// artifact being deployed: last release's bundle, or a bundle about
// another server the same key signed, verifies just as well. A gate
// states what it ships with a [SubjectRequirement] (the SHA-256 of the
// artifact, any of a set of digests, the image of an OCI referrer, the
// exact name and version) and requires every check of it to pass:
//
//	req := attest.SubjectRequirement{Digests: []string{"sha256:" + artifactHex}, Name: "io.github.acme/server"}
//	if err := req.Check(); err != nil { // a digest not in sha256:HEX form
//		// usage error
//	}
//	outs := req.Evaluate(r) // one SubjectOutcome per check
//	if !r.Valid || !attest.SubjectPassed(outs) {
//		// refuse: each failed outcome's Reason names what was expected and found
//	}
//
// A failed check is [CodeSubjectMismatch]; an invalid result is about no
// subject and fails every check.
//
// # Trust policies
//
// [Options].Policy is a parsed policy document; its schemaVersion picks the
// loader. The built-in one reads mcp-res.trust-policy/0.2.0 with exactly
// the upstream semantics; package trustpolicy's Loader reads
// mcpres.trust-policy/v1 (witness rules, key windows, revocations, offline
// transparency verification). Any other [TrustPolicy] can be plugged in
// through [Options].PolicyLoaders: Verify gives it times as time.Time in
// UTC, exact to the microsecond (see [EnvelopeFacts]).
//
// # Cryptographic layer
//
// The files base64.go, spki.go, pae.go and keys.go hold the low-level
// primitives the envelope logic is built on. Each one does exactly what
// REFERENCE §6 fixes and nothing the upstream reference implementation
// would not also do:
//
//   - [DecodeStrictBase64] (§6.8): standard alphabet, padding mandatory, no
//     whitespace, no superfluous padding; non-zero unused bits in the last
//     group are accepted.
//   - Ed25519 (§6.7) is package ed25519strict's, which owns the rules for
//     the whole module (note keys included): ed25519strict.Verify is pure
//     Ed25519 with the Python validator's strictness. Go's
//     crypto/ed25519.Verify alone accepts a small-order public key, so a
//     "signature" made without any private key (public key = identity
//     point, R = identity, S = 0) verifies for every message;
//     ed25519strict.Verify rejects non-canonical and small-order A and R,
//     S ≥ L and wrong lengths before it calls crypto/ed25519.Verify, and
//     says which rule failed (its Err… values, wrapped).
//   - The 44-byte Ed25519 SubjectPublicKeyInfo DER and its key id, the
//     lowercase hex SHA-256 of those 44 bytes (also called the key
//     fingerprint: the envelope's keyid, the predicate's
//     signerKeyFingerprint, the trust policy's keyFingerprint) are
//     ed25519strict.MarshalSPKI and ed25519strict.SPKIFingerprint (§6.6);
//     [ParseSPKI] is check E5, the layout alone, and names the algorithm of
//     a non-Ed25519 key with crypto/x509 (which ed25519strict, linked by
//     package offline, must not import).
//   - [PAE] (§6.5): the DSSE pre-authentication encoding that is signed.
//   - [GenerateKey], [MarshalPrivateKeyPEM], [MarshalEncryptedPrivateKeyPEM],
//     [ParsePrivateKeyPEM], [MarshalPublicKeyPEM], [ParsePublicKeyPEM]: key
//     files. Private keys are PKCS#8 PEM ("PRIVATE KEY") or, encrypted, the
//     cosign/sigstore format ("ENCRYPTED SIGSTORE PRIVATE KEY": scrypt and
//     NaCl secretbox around the PKCS#8 DER); public keys are SPKI PEM
//     ("PUBLIC KEY"). Only Ed25519 is supported; every other algorithm fails
//     with an error that names it. No error message ever contains key
//     material or a passphrase.
//
// These functions are pure: no files, network, clock or package-level state.
// Nothing is computed at package initialisation (the CLI has a startup
// budget), and none of these functions logs or prints.
package attest
