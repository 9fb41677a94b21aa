// Package tufdist distributes files, trust policies in mcpres, through a
// TUF repository (The Update Framework, specification 1.0.31), using
// go-tuf v2 (github.com/theupdateframework/go-tuf/v2, pinned at v2.4.2).
//
// The distributed file is an opaque target: tufdist never parses it, and
// does not import the trustpolicy package that does. It is kept apart from
// loading a policy from bytes so that what imports the policy format (the
// offline verifier among others) does not link a TUF client, an HTTP
// client and go-tuf's dependencies (STYLE §1).
//
// # Repository side
//
// [Init] creates a repository with consistent snapshots and Ed25519 keys,
// [AddTarget] adds or replaces a target and publishes new targets,
// snapshot and timestamp metadata, and [Sign] adds a further root
// signature when the root threshold is above one. They take keys as
// Ed25519 crypto.Signers (an ed25519.PrivateKey, or a key in a token or an
// agent through package keyref: the CLI takes every key reference), each
// signature checked by ed25519strict.Sign, and an explicit signing time:
// there is no hidden clock. The layout, which any
// static HTTP server can serve:
//
//	N.root.json                  every root version; 1.root.json is what clients pin
//	N.targets.json               targets version N: name → length, sha256
//	N.snapshot.json              snapshot version N: targets.json version, length, sha256
//	timestamp.json               the only unversioned file: snapshot.json version, length, sha256
//	targets/<sha256>.<name>      target content, named by its hash
//
// Every file is written atomically, and timestamp.json last, so clients
// never see a state whose files are not all in place.
//
// # Client side
//
// [Fetch] runs the TUF client workflow with go-tuf's updater from a pinned
// root against an http(s) URL or a local directory (read through an
// os.Root, with no network at all), keeps the verified metadata in a
// cache (rollback protection across runs), and falls back to that cache
// when the repository cannot be read, but only while the cached metadata,
// verified again, has not expired at the evaluation time. Only the
// top-level targets role is consulted for the target: delegations are not
// followed, so the file is always vouched for by the keys the root names
// for targets.
//
// Cache layout (one directory per pinned root, see [DefaultCacheDir]):
//
//	metadata/{timestamp,snapshot,targets}.json   the newest state that verified completely
//	roots/N.root.json                             root versions after the pinned one, each verified by its predecessor
//	targets/<url-escaped name>                    the verified targets
//
// # Errors
//
// Every verification failure is a [*VerificationError] naming the role
// (root, timestamp, snapshot, targets or the target file) and the check
// (signature threshold, expiry, version, length and hashes, consistency,
// format, key), and wrapping go-tuf's error: errors.Is(err,
// &metadata.ErrExpiredMetadata{}), &metadata.ErrBadVersionNumber{},
// &metadata.ErrUnsignedMetadata{} and &metadata.ErrLengthOrHashMismatch{}
// hold for the corresponding checks. An unreachable repository with an
// unusable cache is an [*UnreachableError] carrying both reasons.
//
// # Startup cost, and why mcpres does not link this package
//
// go-tuf's metadata package imports sigstore's signature package, which
// brings protobuf descriptors and go-containerregistry; with net/http and
// this package, linking tufdist into a binary adds about 1 ms of package
// initialisation and 2 to 3 ms before main starts, paid by every run
// whatever it does (measured with GODEBUG=inittrace=1 on `mcpres
// validate`). The mcpres binary therefore does not import tufdist: the
// separate binary cmd/mcpres-tuf does, and mcpres runs it for `mcpres
// policy tuf` and `attest verify --policy-tuf`. This keeps mcpres free of
// sigstore and protobuf packages (TestOffline in internal/layering) and of
// any HTTP client.
//
// This package itself does no work at initialisation and keeps no
// package-level state; it never logs (go-tuf's logger is left as its
// default, which discards).
package tufdist
