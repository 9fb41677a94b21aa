// Package keyless signs MCP-RES attested bundles without a long-lived key
// (issue 33): an Ed25519 key made in memory for one signature and never
// written, a short-lived Fulcio certificate binding it to the signer's
// OIDC identity, and an RFC 3161 timestamp over the signature proving it
// was made while the certificate was valid.
//
// [Sign] does, in order and refusing at the first fault:
//
//  1. take an OIDC identity token ([ReadToken], or [ActionsToken] inside
//     GitHub Actions) and check what a client can check of it without
//     the issuer's keys (audience sigstore, not expired); Fulcio verifies
//     it;
//  2. make the ephemeral Ed25519 key and ask Fulcio for a certificate
//     (POST /api/v2/signingCert, proof of possession: an Ed25519
//     signature over the token's email claim, or its sub for issuers
//     without one, as cosign and sigstore-go do);
//  3. check the certificate's public key is the ephemeral key, and take
//     the signer identity from the certificate (a different identity
//     asked for is refused);
//  4. sign the bundle (attest.SignBundle, or attest.Cosign for an attested
//     bundle) with the ephemeral key;
//  5. ask the timestamp authority for an RFC 3161 timestamp over the
//     envelope's signature;
//  6. put the certificate, the timestamp and the same DSSE envelope in a
//     Sigstore bundle v0.3 and verify it with sigstore-go's verifier
//     against the trusted root (chain to a trusted Fulcio CA at the
//     timestamp's time, the timestamp from a trusted authority over the
//     signature, the signature under the certificate key, issuer and
//     identity) before anything is returned.
//
// The token is never written, logged or put in an error: errors name the
// step that failed and the server's status, never the token or a server's
// answer body (which could echo it).
//
// Plain-HTTP URLs (Fulcio, the timestamp authority, the Actions token
// endpoint) are accepted only on loopback addresses, for tests.
//
// [Material] verifies keyless signatures offline for a policy's identity
// signers (trustpolicy.CertificateIdentity): [Material.Certify] checks one
// Sigstore bundle with sigstore-go against the trusted root the policy
// names by digest (timestamp, validity, chain, SCTs, signature, issuer,
// identity, extensions) and binds it to an envelope, each failure a
// [Failure] with a stable Code; [Material.Resolve] turns the certified
// keys into key signers for attest's verifier.
//
// This package links net/http and sigstore-go: only cmd/mcpres-sigstore
// links it (DESIGN §4 startup budget; internal/layering). Verification
// opens no connection (tested in an empty network namespace).
package keyless
