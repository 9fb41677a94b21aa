// Package sigstore exports one MCP-RES DSSE envelope as a Sigstore bundle
// v0.3 (media type application/vnd.dev.sigstore.bundle.v0.3+json), so that
// Sigstore tooling (sigstore-go, cosign, sigstore-python, sigstore-js) can
// verify an MCP-RES attestation with the signer's public key.
//
// # No Sigstore or protobuf code in the binary
//
// A Sigstore bundle is the protobuf message dev.sigstore.bundle.v1.Bundle
// in its proto3 JSON form. This package writes that JSON with
// canonjson and imports neither sigstore-go nor
// google.golang.org/protobuf: every package linked into mcpres pays its
// init on every run, and a binary linking sigstore-go, Rekor, go-tuf and the
// rest measured 37 ms of init against the 25 ms whole-process budget of
// `mcpres validate` (DESIGN §4). sigstore-go is used only by the tests,
// which load the written bundle with sigstore-go's bundle.Bundle (protojson)
// and verify it offline with verify.NewVerifier.
//
// The proto3 JSON mapping used here: field names in lowerCamelCase (the
// json_name of protobuf-specs: mediaType, verificationMaterial, publicKey,
// tlogEntries, dsseEnvelope, payloadType), bytes fields (payload, sig) as
// standard padded base64, strings as they are.
//
// # Mapping
//
// An MCP-RES envelope (REFERENCE §3.2.3)
//
//	{"schemaVersion": "mcp-res.dsse-envelope/0.2.0",
//	 "payloadType": "application/vnd.in-toto+json",
//	 "payload": B64(statement),
//	 "signatures": [{"keyid": FP, "sig": B64(sig), "algorithm": "Ed25519",
//	                 "publicKeySpkiBase64": B64(spki), "signerIdentity": ID}]}
//
// becomes
//
//	{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
//	 "verificationMaterial": {"publicKey": {"hint": FP}, "tlogEntries": []},
//	 "dsseEnvelope": {"payload": B64(statement),
//	                  "payloadType": "application/vnd.in-toto+json",
//	                  "signatures": [{"sig": B64(sig), "keyid": ""}]}}
//
// where FP is the key fingerprint, the lowercase hex SHA-256 of the 44-byte
// SPKI DER (the MCP-RES keyid). The signed bytes are unchanged: the
// signature covers PAE(payloadType, payload) only (REFERENCE §6.5), so the
// same Ed25519 signature verifies in both formats. payload and sig are
// re-encoded from their decoded bytes, so the bundle always carries the
// canonical base64 even where strict base64 tolerated non-zero unused bits.
//
// Dropped members. schemaVersion, and in the signature algorithm,
// publicKeySpkiBase64 and signerIdentity, are MCP-RES extensions that the
// standard DSSE envelope of Sigstore (io.intoto.Envelope) has no field for;
// none of them is signed. The signer is designated by the verification
// material instead: a publicKey whose hint is the key fingerprint. A
// Sigstore verifier looks the hint up in its trusted material, so it must be
// given the signer's public key (the SPKI of publicKeySpkiBase64, or the
// signer's .pub file) under that fingerprint. The signer identity stays
// inside the signed statement (predicate.signerIdentity).
//
// The DSSE keyid is written empty. DSSE defines keyid as an optional,
// unauthenticated hint, and sigstore-go's verifier (through
// go-securesystemslib's dsse.EnvelopeVerifier) skips a signature whose
// non-empty keyid differs from the verifier's own key id, which is the
// OpenSSH-style fingerprint "SHA256:" + unpadded base64 of the SHA-256 of
// the SSH wire encoding of the key. The MCP-RES keyid (hex SHA-256 of the
// SPKI) therefore never matches, and an envelope carrying it fails to
// verify with sigstore-go. An empty keyid is what sigstore-go's own signer
// writes (pkg/sign leaves it unset) and what sigstore-js writes; it needs
// no third fingerprint format, and the key is already named by the hint.
//
// No transparency-log entries and no timestamps are written (tlogEntries is
// an empty list, timestampVerificationData is absent): an MCP-RES
// transparency reference is a digest-checked opaque proof (REFERENCE
// §6.10), not a Rekor entry. Verifiers must therefore be configured for
// key-based verification without observer timestamps (sigstore-go:
// verify.WithNoObserverTimestamps, policy verify.WithKey).
//
// # Checks
//
// [ExportBundle] refuses anything that would not give a verifiable bundle:
// the envelope must be the closed MCP-RES shape (no unknown members, whose
// loss would go unnoticed), hold exactly one signature (Sigstore bundles
// carry exactly one DSSE signature, and sigstore-go rejects any other
// count), use Ed25519, decode as strict base64 (REFERENCE §6.8), carry a
// 44-byte Ed25519 SPKI (§6.6) whose fingerprint is the keyid, and its
// signature must verify over PAE(payloadType, payload) under the strict
// rules of §6.7. It does not check the statement against a conformance
// bundle or a trust policy: that is `mcpres attest verify`.
package sigstore
