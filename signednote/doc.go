// Package signednote owns the signed notes of transparency logs and their
// witnesses (C2SP signed-note, tlog-checkpoint, tlog-cosignature): the
// verifier and signer keys of every type mcpres uses, their key hashes, the
// strict log-signature and cosignature/v1 verifiers, and opening a
// checkpoint. Packages offline, witness, tlog and trustpolicy use it, and
// nothing else parses a note key.
//
// It links no network package (package offline uses it): ECDSA keys are
// read without crypto/x509, and cosignature/v1 is verified here rather than
// through transparency-dev/formats/note, which imports crypto/x509.
//
// # Key types
//
// The first byte of an encoded key is its type:
//
//   - [TypeEd25519] (0x01), a log key: it signs checkpoints with plain
//     Ed25519 (the keys of golang.org/x/mod/sumdb/note); the log's origin
//     is the key's name;
//   - [TypeECDSA] (0x02), a Rekor v1 log key: the PKIX DER of an ECDSA P-256
//     key, signing SHA-256 digests (transparency-dev/formats'
//     NewECDSAVerifier); verifier keys only;
//   - [TypeCosignatureV1] (0x04), a witness key: it cosigns checkpoints with
//     timestamped cosignature/v1 signatures.
//
// # Key encodings
//
// A verifier key ("vkey") is the text
//
//	NAME+HASH+BASE64(TYPE ‖ KEY)
//
// and a private key ("skey", Ed25519 types only)
//
//	PRIVATE+KEY+NAME+HASH+BASE64(TYPE ‖ SEED)
//
// where KEY is the 32-byte Ed25519 public key (or the 91-byte P-256 DER),
// SEED the 32-byte Ed25519 seed, and HASH eight lowercase hex digits of the
// first four bytes (big-endian) of SHA-256(NAME ‖ "\n" ‖ TYPE ‖ KEY), or of
// SHA-256(DER) for an ECDSA key. NAME is 1 to [MaxNameBytes] bytes of UTF-8
// with no space, "+" or control character. These are the strings
// note.GenerateKey produces for type 0x01; key files hold one of them and a
// final newline.
//
// Parsing is strict: one encoding per key (lowercase hash, canonical padded
// base64, canonical DER), the hash must match the key, and an Ed25519 key
// must pass ed25519strict.CheckPublicKey (no small-order or non-canonical
// point). No message ever contains private key material.
//
// # Signatures
//
// A log signature (type 0x01) is a plain Ed25519 signature of the note
// text; a Rekor one (type 0x02) an ASN.1 ECDSA signature of its SHA-256. A
// cosignature/v1 signature (type 0x04) is 8 bytes of big-endian timestamp T
// (seconds since the Unix epoch) followed by the Ed25519 signature of
//
//	"cosignature/v1\ntime " ‖ decimal(T) ‖ "\n" ‖ TEXT
//
// where TEXT is the checkpoint body (at least two lines, formats' rule). The
// witness asserts append-only observation of the first three lines (origin,
// size, root hash) only. Ed25519 signatures are verified with
// ed25519strict.Verify, which is stricter than crypto/ed25519.Verify (used
// by sumdb/note and formats): it rejects small-order keys and R points and
// non-canonical encodings.
//
// # Checkpoints
//
// A checkpoint is a signed note whose text is
//
//	ORIGIN "\n" DECIMAL(SIZE) "\n" BASE64(ROOT HASH) "\n" [EXTENSION LINES]
//
// [Open] authenticates it with the log's key first ([OpenNote]) and only
// then parses the body ([ParseBody]): the size without leading zeros, the
// 32-byte root hash ([Hash]) in canonical padded base64 (formats'
// log.Checkpoint.Unmarshal is lenient on both), and the origin must be
// the log key's name. [Split] checks the shape of a note without verifying
// anything. [Checkpoint.VerifyLine] checks one cosignature line a witness
// returns against an opened checkpoint. These are the only places that
// open a signed note: packages offline, witness and tlog call them.
//
// A witness cosignature that verified and counts (once per key) is a
// [CountedCosignature], whichever package counted it; one that verified
// but was not counted because of its time is an [UncountedCosignature].
// Whether a verified cosignature counts at an evaluation time is decided
// by [JudgeCosignature] alone, the same rule when a log collects
// cosignatures, when a quorum is required before a reference is written
// or signed, and when a reference is verified.
//
// # Kinds of key file
//
// mcpres takes two worlds of keys, and "witness" names one of each: PEM
// Ed25519 keys (package keyfile) sign and co-sign attested bundles,
// signed-note keys (this package) sign and cosign a log's checkpoints.
// Package keyfile tells which kind of key file a reader was given, with
// the strict parsers of this package for note keys ([ParseVerifier],
// [SignerKeyType]); the parsers here report only their own errors.
//
// The package reads no clock: a cosignature's timestamp is an argument
// ([WitnessSigner.At]), and so is the evaluation time it is judged at
// ([JudgeCosignature]).
package signednote
