// Package witness cosigns transparency-log checkpoints (C2SP tlog-witness,
// tlog-cosignature) and attaches collected cosignatures to a checkpoint.
//
// # Cosigning
//
// [CosignCheckpoint] is what a witness does for one log: read the log's latest
// checkpoint, authenticate it with the log's key, compare it with the
// [LogState] the witness recorded when it last cosigned, prove consistency,
// and sign. It refuses, with an error wrapping [ErrRefused]:
//
//   - a checkpoint that is not signed by the log key or not for its origin,
//     or larger than [MaxTreeSize] ([ErrBadCheckpoint]);
//   - a smaller tree than the one last cosigned ([ErrRollback]);
//   - the same size with another root hash, or a larger tree whose
//     consistency proof from the recorded tree does not verify ([ErrFork]).
//
// The consistency proof is built from the log's own hash tiles (C2SP
// tlog-tiles), which are authenticated against the new checkpoint's root
// before use (golang.org/x/mod/sumdb/tlog.TileHashReader), and verified with
// transparency-dev/merkle's proof.VerifyConsistency. The result carries the
// cosignature line and the new state; the caller MUST record the state
// (atomically) before it publishes the cosignature, so that a witness never
// signs two different trees of one size.
//
// A first cosignature for a log (no recorded state) trusts the checkpoint
// on first use; the CLI asks for that explicitly (--init).
//
// # The add-checkpoint protocol
//
// [AddCheckpoint] is the same decision for a checkpoint a log sends
// itself (C2SP tlog-witness POST add-checkpoint, parsed by
// [ParseAddRequest]; sizes beyond [MaxTreeSize] are malformed): the old
// size must be the size last cosigned (else a
// [*ConflictError] carrying it, HTTP 409), the consistency proof comes in
// the request and must verify ([ErrBadProof], 422), a malformed request or
// an old size beyond the checkpoint's is [ErrMalformedRequest] (400), and a
// checkpoint not signed by the log key is [ErrBadCheckpoint] (403). Package
// witness/witnesshttp serves it over HTTP; this package stays free of
// network code.
//
// # State
//
// A [State] is a small JSON document ([SchemaVersionState]) listing, per log
// origin, the size and root hash last cosigned:
//
//	{"schemaVersion": "mcpres.witness-state/v1",
//	 "logs": [{"origin": "example.org/log", "size": 2, "rootHash": "BASE64"}]}
//
// Every process that cosigns from a state file holds its lock across
// read, decide and write: [LockStateFile] takes an exclusive OS lock on
// PATH.lock (flock(2); internal/filelock), then [StateFile.Read] (a
// regular file only: a FIFO is refused at once), [CosignCheckpoint] or
// [AddCheckpoint], [StateFile.Write] (atomic), and [StateFile.Unlock]
// once the new state is recorded. Two witnesses on one state then decide
// one after the other: the second sees the tree the first cosigned, so
// they never cosign two roots at one size, and no update is lost (a lost
// update would lower the recorded size and let a fork through later).
// Without file locks (systems other than Linux, macOS and the BSDs)
// LockStateFile fails and nothing is cosigned.
//
// # Attaching cosignatures
//
// [Attach] adds cosignature lines to a checkpoint note after verifying each
// against the checkpoint body with the witness keys given; a second
// cosignature by a key (compared by key fingerprint, not by name) is
// dropped. [Cosigners] lists the distinct witness keys whose cosignatures
// on a checkpoint verify.
//
// # Network
//
// The package opens no connection and reads no clock: the log is read
// through a [LogReader] the caller chooses (a directory, or an HTTP
// client), and the cosignature time is an argument. (The one wait it
// knows is [LockStateFile]'s, bounded by its caller.)
package witness
