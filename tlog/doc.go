// Package tlog publishes mcpres log entries to a self-hosted transparency
// log built on Tessera (github.com/transparency-dev/tessera v1.0.4), and
// builds the inclusion proofs that transparency references embed.
//
// # Layout and drivers
//
// The log is a C2SP tlog-tiles log: a signed checkpoint at "checkpoint",
// hash tiles under "tile/L/N[.p/W]" and entry bundles under
// "tile/entries/N[.p/W]", so any static web server can serve it. This
// package defines what it needs from storage ([Storage]: a Tessera driver to
// append through, and read and publish access to the tlog-tiles resources)
// and never imports a driver, as Tessera's own core never imports its
// storage packages. Package tlog/posix implements [Storage] on a directory
// with Tessera's POSIX driver; the CLI chooses it. Tessera's MySQL, GCP and
// AWS drivers take over when one machine is not enough: a [Storage] on one
// of them returns that driver from Driver and reads through the bucket or
// database the same way.
//
// # Keys and checkpoints
//
// A log is identified by its Ed25519 signed-note key (signednote,
// type 0x01): the key's name is the checkpoint origin. Every checkpoint
// read is authenticated with that key before it is interpreted
// (signednote.Open). Tessera signs each new checkpoint with the log key
// passed to [Log.Add]; [Log.Add] refuses a key that is not the log's.
//
// Witness cosignatures (C2SP tlog-cosignature) are attached to the
// published checkpoint with [Log.UpdateCheckpoint] (one-shot commands) or,
// while an [Appender] is open in this process, [Appender.UpdateCheckpoint]
// (from the [AppenderOptions.OnCheckpoint] hook: the log service), which
// keep the checkpoint body and the log signature and replace the
// checkpoint atomically, excluded against Tessera's publisher. The one
// witnessing round of mcpres (ask a tlog policy's witnesses, attach what
// they give) is tlog/witnessclient's Witnessing: that hook in the log
// service, a round after Add in one-shot commands. With
// [AppenderOptions.AwaitHook], [Appender.Add] proves an entry against the
// checkpoint as it is once the hook has run for it, cosignatures
// included. Tessera is configured never to republish an unchanged tree, so
// attached cosignatures stay until the log grows (storage that republishes
// anyway, like Tessera's MySQL driver, keeps them itself); the next
// checkpoint needs new ones.
//
// # Proofs
//
// [Log.Add] appends one entry, waits until a published checkpoint covers
// it (Tessera's PublicationAwaiter), and returns a [Proof] against the
// latest checkpoint; [Log.Proof] builds a fresh proof for any index. A
// proof is the entry, its index, the RFC 6962 inclusion proof and the signed
// checkpoint note with any cosignatures; [Proof.Marshal] encodes it as a
// C2SP tlog-proof (transparency-dev/formats proof.TLogProof, the entry in
// its extra data). Every proof is verified (merkle/proof.VerifyInclusion
// against the checkpoint's root) before it is returned, so a corrupt tile
// is reported instead of published.
//
// # Logging
//
// Tessera logs through k8s.io/klog/v2 and log/slog. This package never
// configures either: both are process-global, so only a program's main path
// may decide. The mcpres CLI discards klog output unless --verbose
// (cmd/mcpres/log.go). Tessera's package initialisation creates its
// OpenTelemetry instruments on the global (no-op unless configured) meter.
package tlog
