// Package trustpolicy implements mcpres.trust-policy/v1, mcpres's extended
// trust policy: strict loading, evaluation for attest.Verify at an explicit
// time, authoring, and projection to the upstream
// mcp-res.trust-policy/0.2.0. docs/trust-policy.md is the user manual; this
// comment is the contract.
//
// # Format
//
// A policy is a JSON document (read with canonjson's strict
// reader) with schemaVersion "mcpres.trust-policy/v1", an id (1..128
// characters), an integer version ≥ 1, an inclusive window validFrom ≤
// validUntil, signers (≤ 32: name, identity, publicKey, roles ⊆ {signer,
// witness}, optional own window, optional subjects: the subject-name
// patterns the key is trusted for, see [Scope]), revocations (≤ 32: fingerprint, reason,
// optional revokedAt), an optional witnesses rule (quorum, members,
// distinctIdentities) and an optional transparency section holding a
// tlog-policy text (the logs and the checkpoint witnesses that transparency
// references are verified against). Its shape is the embedded JSON Schema [SchemaName];
// [Document] mirrors it member by member.
//
// # Loading
//
// [Load] reports every problem at once ([Problem]: JSON Pointer, keyword,
// message with the numbers) and returns a policy only when there is none.
// Duplicates never count twice: one key under two names or identities, a
// name twice, a revocation twice, a witness member twice, and the
// double-counting texts of formats' witness.ParsePolicy ([ParseTLogPolicy])
// are all rejected, as are small-order or non-canonical Ed25519 keys and
// inverted windows.
//
// # Evaluation
//
// A loaded *[Policy] is an attest.TrustPolicy. [Open] is the one place a
// policy document of either format is opened (this kind, or the upstream
// mcp-res.trust-policy/0.2.0, which this package also owns), for
// attest.Options.Policy; [NewAdHoc] builds the policy of `attest verify
// --key PUB --identity ID`. Strict by default, with nothing to loosen:
//
//   - G6 ([Policy.InForce]): validFrom ≤ T ≤ validUntil, else
//     MCP_RES_TRUST_POLICY_EXPIRED;
//   - E13 ([Policy.Envelope]): trustPolicyId = id, else
//     MCP_RES_ATTESTATION_IDENTITY_MISMATCH; signingTime inside the window
//     and ≤ T, else MCP_RES_TRUST_POLICY_EXPIRED; a revoked key fails with
//     MCP_RES_ATTESTATION_KEY_REVOKED at every level (revokedAt is reported,
//     never used to accept); trusted iff a signer has exactly that key and
//     identity, its own window covers the signing time and T, and its
//     subjects, if any, match the statement's subject name;
//   - E14 ([Policy.Transparency]): without a transparency section, digest
//     only, as upstream (DIGEST_ONLY); with one, the reference is verified
//     offline against the tlog policy with package offline ([TLogPolicy.Trust]):
//     entry binding, inclusion proof, signed checkpoint and origin, witness
//     cosignatures and quorum, and logId/entryUuid; any failure is
//     MCP_RES_TRANSPARENCY_REFERENCE_INVALID, success VERIFIED_OFFLINE. A
//     Rekor v1 entry needs a verifier given to [Open] ([OpenOptions])
//     (cmd/mcpres-sigstore); without one it stays DIGEST_ONLY;
//   - G8 ([Policy.Derive]): SIGNED_WITH_IDENTITY needs every envelope
//     trusted and a primary signer with the signer role; WITNESSED also needs
//     the witnesses rule met by envelopes 2..n, counted by key fingerprint,
//     never counting the primary; TRANSPARENCY_RECORDED needs the level
//     below it (WITNESSED with a witnesses rule, else SIGNED_WITH_IDENTITY)
//     and at least one reference VERIFIED_OFFLINE. The notes give the
//     counts, why an envelope was untrusted or a witness not counted, and
//     each verified reference's log, leaf, tree size and counted witnesses.
//
// Nothing here reads a clock, the network or a file.
//
// # Authoring and export
//
// [New], [Decode] and the [Document] edit methods serve cmd/mcpres's policy
// commands, which re-check every result with [Load] before writing it.
// [Policy.Upstream] projects to mcp-res.trust-policy/0.2.0 and lists every
// rule the projection would weaken.
package trustpolicy
