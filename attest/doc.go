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
// (keyfile.ParsePrivateKeyPEM, keyfile.ParsePublicKeyPEM) or any Ed25519
// crypto.Signer (package keyref), and no clock is read, so
// the signing time ([SignOptions].SigningTime) and the evaluation time
// ([Options].EvaluatedAt) are RFC 3339 strings the caller gives (REFERENCE
// §1.7). A gate is one [Verifier], built once from the policy, the time
// and the [Gate], which decides:
//
//	v, err := attest.NewVerifier(attest.VerifierOptions{
//		Policy: trustpolicy.Open(policy, trustpolicy.OpenOptions{}), EvaluatedAt: now,
//		Gate:   attest.Gate{MinLevel: attest.Witnessed, Subject: attest.SubjectRequirement{Digests: []string{artifact}}}})
//	r, verdict, err := v.Verify(doc)
//	if err != nil || !verdict.Passed { // a PASS result, a trusted signer, WITNESSED, the artifact
//		// refuse: verdict.Reasons() says why
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
// [Options].Policy is a policy opened once ([LoadedPolicy]):
// trustpolicy.Open reads either format, mcp-res.trust-policy/0.2.0 with
// exactly the upstream semantics and mcpres.trust-policy/v1 (witness
// rules, key windows, revocations, offline transparency verification).
// Any other [TrustPolicy] can be given through [NewLoadedPolicy]: Verify
// gives it times as time.Time in UTC, exact to the microsecond (see
// [EnvelopeFacts]).
//
// # Cryptographic layer
//
// pae.go holds the DSSE pre-authentication encoding ([PAE], REFERENCE
// §6.5) that is signed. Everything else the envelope logic is built on is
// in the packages below: Ed25519 (§6.7) is package ed25519strict's, which
// owns the rules for the whole module (ed25519strict.Verify is pure
// Ed25519 with the Python validator's strictness: Go's
// crypto/ed25519.Verify alone accepts a small-order public key, so a
// "signature" made without any private key verifies for every message);
// strict base64 (§6.8), the 44-byte Ed25519 SubjectPublicKeyInfo (§6.6,
// check E5) and key files (PKCS#8 and SPKI PEM, cosign-encrypted keys)
// are package keyfile's. The key id, the lowercase hex SHA-256 of the SPKI
// DER (the envelope's keyid, the predicate's signerKeyFingerprint, the
// trust policy's keyFingerprint), is ed25519strict.SPKIFingerprint.
//
// These functions are pure: no files, network, clock or package-level state.
// Nothing is computed at package initialisation (the CLI has a startup
// budget), and none of these functions logs or prints.
package attest
