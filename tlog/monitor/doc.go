// Package monitor watches an mcpres transparency log (C2SP tlog-tiles,
// served by `mcpres log serve`, any static server or bucket, or read from
// a log directory) as `mcpres log monitor` does: every new checkpoint is
// verified with the log key, proven consistent with the last verified one
// (merkle's proof.VerifyConsistency over the log's own tiles, through
// tessera's client.ProofBuilder), and checked against a tlog policy's
// witness quorum (offline.VerifyCheckpoint, cosignature times judged by
// signednote.JudgeCosignature); the new entries are read from the entry
// bundles, every leaf hashed into a compact range that must reach the
// checkpoint's root, decoded as mcpres.transparency-entry/v1 or /v2 and
// matched against watch rules. Each finding is an [Alert] (schema
// mcpres.log-monitor-alert/v1, docs/monitor.md).
//
// # Who signed
//
// An mcpres log entry names the evidence — the subject's name and
// artifact digest, the bundle digest, the scenario and execution digests
// — and, when the log admitted an attested bundle (tlog/admit, which
// verifies its envelopes first), the signers of its envelopes: an
// mcpres.transparency-entry/v2 (offline.SignedEntryFor). A reference to
// a v2 entry binds only the envelopes of a signer it names
// (offline.CheckEntrySigner), so whoever gets an envelope accepted on the
// strength of it is named in the log. A [PolicyAuthoriser] judges those
// signers against a trust policy (unauthorised-entry). A v1 entry names
// no signer and cannot be judged: its reference may be carried by any
// signer's envelope, a blind spot the monitor counts
// (Result.Unattributed) or, with Config.RequireSigners, reports
// (unattributed-entry). Without an [Authoriser] every watched entry is
// reported (watched-entry).
//
// # State
//
// One state file per log ([State], named by [StateName]) in a state
// directory, read, decided and written under an OS lock
// (internal/filelock) and replaced atomically (internal/atomicfile). It
// holds the last verified checkpoint, the position of the next entry and
// the compact range of the entries before it (at most 64 hashes), so a
// run resumes where the previous one stopped, and memory stays flat in
// the log's size: one entry bundle and one chunk's alerts at a time. A
// fork, a rollback, a split view or a checkpoint below quorum is never
// written; nothing in the state moves backwards.
//
// # Sources
//
// [NewHTTPSource] reads with a timeout per request, a size limit per
// resource ([MaxCheckpointBytes], [MaxTileBytes], [MaxEntryBundleBytes]),
// no redirect followed, no proxy and no credential; [NewDirSource] reads
// regular files inside a directory. Nothing read is trusted before it is
// verified.
//
// [OpenCheckpoint] opens a checkpoint-only source (Config.Checkpoints): a
// file or URL holding a checkpoint and no tiles — what a witness
// cosigned, a distributor's copy, the checkpoint a consumer saw (a
// tlog-proof or a transparency reference carrying it: [HeldCheckpoint]).
// It is read with the same rules, must be signed by the log key,
// and is compared with the largest checkpoint the sources serve: not
// consistent, a split view, whose alert names, with a tlog policy, the
// witnesses whose cosignatures on it verify (a checkpoint the log showed
// a quorum of its witnesses and not the monitor is the strongest
// evidence of a split view). One larger than every source's cannot be
// proven until the log serves its tiles (Result.Unproven, no alert). It
// is never a target for entries nor written into the state.
package monitor
