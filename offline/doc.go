// Package offline verifies transparency references with no network: the
// log entry that binds a bundle, its RFC 6962 inclusion proof, the log's
// signed checkpoint and the witnesses' cosignatures, all carried in the
// reference's proof bytes and checked against keys from a trust policy.
// docs/transparency.md is the user manual; this comment is the contract.
//
// It never imports a package that opens network connections, nor net
// itself (TestOffline in internal/layering checks its dependency list):
// that is why its keys and signatures are those of signednote,
// which verifies cosignature/v1 itself rather than through
// transparency-dev/formats/note (which imports crypto/x509 and so net).
// Rekor v1 entries, whose libraries link net/http, are verified by package
// offline/rekor.
//
// # The log entry
//
// An [Entry] (mcpres.transparency-entry/v1) names the evidence: the subject
// artifact (name, SHA-256), the evidence bundle digest, the scenario
// fingerprint and the execution instance digest. The entry of an attested
// bundle (mcpres.transparency-entry/v2, [SignedEntryFor]) also names the
// signers of its envelopes, and a reference to it binds only their
// envelopes ([CheckEntrySigner]). The log's leaf data is its canonical
// encoding (mcp-res-json-utf16-v1, [Entry.Marshal]); [ParseEntry] accepts
// exactly that encoding.
//
// # The proof bytes
//
// A transparencyReference's inclusionProofBase64 decodes to the proof
// bytes. Their kind is told by the first bytes ([DetectKind]):
//
//   - "c2sp.org/tlog-proof@v1\n": a C2SP tlog-proof ([KindTLogProof]),
//     verified here;
//   - "{": a Rekor v1 LogEntryAnon JSON object ([KindRekorV1]), verified by
//     package offline/rekor;
//   - anything else is opaque ([KindOpaque]): only its SHA-256 can be
//     checked, upstream's DIGEST_ONLY meaning.
//
// An mcpres tlog-proof is transparency-dev/formats' proof.TLogProof with
// the entry as its extra data:
//
//	c2sp.org/tlog-proof@v1
//	extra BASE64(canonical entry bytes)
//	index LEAF_INDEX
//	BASE64(hash 1)
//	...
//	BASE64(hash n)
//
//	CHECKPOINT
//
// where the hashes are the RFC 6962 inclusion proof of the leaf in the tree
// of the checkpoint's size, and CHECKPOINT is the C2SP signed note: origin,
// size and root hash lines, an empty line, the log's Ed25519 signature line
// and any witness cosignature/v1 lines. [ParseProof] accepts one encoding
// per proof (formats' parser is lenient; ParseProof re-marshals and
// compares). In the reference, logId is the checkpoint origin and entryUuid
// the leaf index in decimal; inclusionProofSha256 is the SHA-256 of the
// proof bytes, so upstream validators, which check only that digest, still
// accept the reference.
//
// # Verifying
//
// [Verify] takes the proof bytes, the entry this bundle must have, and a
// [Trust] (the logs and the witness policy of a tlog-policy text, with keys
// parsed once by signednote.ParseVerifier; package trustpolicy converts its TLogPolicy).
// Its steps and their error types are listed on the function; it returns a
// [Verified] if and only if every step passed. Duplicates never count
// twice: witnesses are counted once per key fingerprint
// (signednote.CountedCosignature), a repeated cosignature line counts
// once, and a Trust that lists one key twice is refused. Nothing reads a
// clock: witness timestamps are reported, and judged only against the
// Trust's EvaluatedAt and MaxCosignatureAge by signednote.JudgeCosignature,
// the time rule a log applies when it collects cosignatures too (a
// cosignature dated later, or older than the maximum age, is not counted
// and is listed as a signednote.UncountedCosignature). [Witnessed], which
// judges a quorum before a reference is written or signed, requires the
// evaluation time.
//
// [CheckBinding] is the signing-time check (no keys needed): the proof
// parses, its entry binds the bundle, and its inclusion proof leads to the
// checkpoint's root hash; [CheckReference] adds the reference's logId and
// entryUuid.
package offline
