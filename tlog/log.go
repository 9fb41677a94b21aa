package tlog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"sync"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/formats/proof"
	mproof "github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
)

// Tuning of the appender. The CLI appends one entry per process and waits
// for it, so batches are flushed at once and checkpoints published as soon
// as Tessera's POSIX driver allows.
const (
	// CheckpointInterval is the shortest interval between two published
	// checkpoints (the POSIX driver's minimum).
	CheckpointInterval = 100 * time.Millisecond
	// PollInterval is how often Add and Init read the checkpoint while
	// they wait for one that covers their work.
	PollInterval = 20 * time.Millisecond
	// MaxEntrySize is the largest entry accepted: the tlog-tiles limit of
	// one entry in an entry bundle.
	MaxEntrySize = tessera.DefaultEntrySizeLimit
)

var (
	// ErrExists is returned by Init when the storage already holds a log.
	ErrExists = errors.New("tlog: a log already exists there")
	// ErrNoLog is returned when the storage has no published checkpoint.
	ErrNoLog = errors.New("tlog: no log there (no published checkpoint)")
	// ErrWrongKey is returned when a signing key is not the log's key.
	ErrWrongKey = errors.New("tlog: the signing key is not the log's key")
	// ErrCheckpointChanged is returned (wrapped) by
	// Storage.ReplaceCheckpoint, and so by UpdateCheckpoint, when the
	// published checkpoint changed in the meantime.
	ErrCheckpointChanged = errors.New("tlog: the published checkpoint changed meanwhile")
	// ErrIndex is returned (wrapped) by Proof for an index the latest
	// checkpoint does not cover.
	ErrIndex = errors.New("tlog: index not covered by the latest checkpoint")
)

// Storage is where a log lives, as this package needs it. Implementations
// are drivers (package tlog/posix); this package never imports one.
type Storage interface {
	// Driver returns the Tessera driver that appends to this storage. It
	// is called once per Init or Add, with a context that is cancelled
	// when that call returns.
	Driver(ctx context.Context) (tessera.Driver, error)
	// ReadCheckpoint returns the published checkpoint note. When none is
	// published it MUST return an error matching fs.ErrNotExist.
	ReadCheckpoint(ctx context.Context) ([]byte, error)
	// ReadTile returns the hash tile at tile level and index, of width p
	// (0 for a full tile), falling back to the full tile when the partial
	// one is gone, as tessera/client.TileFetcherFunc specifies.
	ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
	// ReadEntryBundle returns an entry bundle with the same conventions.
	ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error)
	// ReplaceCheckpoint publishes next in place of the published
	// checkpoint, provided the published checkpoint is still prev byte for
	// byte; otherwise it MUST fail with an error wrapping
	// ErrCheckpointChanged and change nothing. The replacement MUST be
	// atomic for readers and excluded against the driver's own publishing.
	ReplaceCheckpoint(ctx context.Context, prev, next []byte) error
	// OpenDedup opens the storage's persistent deduplication index,
	// waiting while another process holds it, until ctx is done. The
	// caller closes it.
	OpenDedup(ctx context.Context) (DedupIndex, error)
}

// A Log is a transparency log in some Storage, identified by its
// verifier key. Its methods are safe for concurrent use; a process should
// use one Log per storage location, since Tessera's POSIX locks exclude
// other processes but not other goroutines of the same process.
type Log struct {
	store  Storage
	key    *signednote.Verifier
	origin string
	mu     sync.Mutex // serialises appending and checkpoint replacement
}

// Open returns the log in store whose checkpoints are signed by key; the
// log's origin is key.Name(). It reads nothing: a missing or foreign log
// is reported by the first operation.
func Open(store Storage, key *signednote.Verifier) *Log {
	return &Log{store: store, key: key, origin: key.Name()}
}

// Origin returns the log's origin, its key's name.
func (l *Log) Origin() string { return l.origin }

// checkSigner makes sure signer is the private half of the log's key, by
// signing a probe and verifying it: a name and hash match alone would not
// catch a mismatched key file.
func (l *Log) checkSigner(signer note.Signer) error {
	if signer.Name() != l.key.Name() || signer.KeyHash() != l.key.KeyHash() {
		return fmt.Errorf("%w: key %s+%08x, log key %s+%08x", ErrWrongKey, signer.Name(), signer.KeyHash(), l.key.Name(), l.key.KeyHash())
	}
	probe := []byte("mcpres tlog signer probe\n" + l.origin + "\n")
	sig, err := signer.Sign(probe)
	if err != nil {
		return fmt.Errorf("tlog: signing with the log key: %w", err)
	}
	if !l.key.Verify(probe, sig) {
		return fmt.Errorf("%w: the private key does not match the verifier key %s+%08x", ErrWrongKey, l.key.Name(), l.key.KeyHash())
	}
	return nil
}

// Init creates a new, empty log: Tessera lays out the storage and publishes
// a checkpoint of size 0 signed by signer, which must be the private half
// of the log's key, and a [KeyRecorder] storage records the log's key. It
// fails with ErrExists if a checkpoint is already published there.
func (l *Log) Init(ctx context.Context, signer note.Signer) (*signednote.Checkpoint, error) {
	if err := l.checkSigner(signer); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.store.ReadCheckpoint(ctx); err == nil {
		return nil, ErrExists
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tlog: reading the checkpoint: %w", err)
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	drv, err := l.store.Driver(actx)
	if err != nil {
		return nil, fmt.Errorf("tlog: opening the storage: %w", err)
	}
	_, shutdown, reader, err := tessera.NewAppender(actx, drv, AppenderOptions{}.tessera(l.store, signer, nil))
	if err != nil {
		return nil, fmt.Errorf("tlog: creating the log: %w", err)
	}
	defer shutdown(ctx)
	for {
		data, err := reader.ReadCheckpoint(actx)
		if err == nil {
			cp, err := signednote.Open(data, l.key)
			if err != nil {
				return nil, err
			}
			if kr, ok := l.store.(KeyRecorder); ok {
				if err := kr.RecordKey(ctx, l.key.String()); err != nil {
					return nil, fmt.Errorf("tlog: recording the log key in %s: %w", where(l.store), err)
				}
			}
			return cp, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("tlog: reading the first checkpoint: %w", err)
		}
		select {
		case <-actx.Done():
			return nil, fmt.Errorf("tlog: waiting for the first checkpoint: %w", actx.Err())
		case <-time.After(PollInterval):
		}
	}
}

// Checkpoint reads and authenticates the published checkpoint. It fails
// with ErrNoLog when there is none.
func (l *Log) Checkpoint(ctx context.Context) (*signednote.Checkpoint, error) {
	data, err := l.store.ReadCheckpoint(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoLog
	}
	if err != nil {
		return nil, fmt.Errorf("tlog: reading the checkpoint: %w", err)
	}
	cp, err := signednote.Open(data, l.key)
	if err != nil {
		return nil, fmt.Errorf("tlog: published checkpoint: %w", err)
	}
	return cp, nil
}

// Add appends data as one entry, signing the new checkpoint with signer
// (the log key's private half), waits until a published checkpoint covers
// the entry, and returns a proof of it against the latest checkpoint.
//
// An entry already in the log is not appended again: Add returns a fresh
// proof of the existing entry, with Proof.Existing set. The storage's
// persistent deduplication index is brought up to date first, so this
// holds across processes and after a crash (an Add killed after Tessera
// integrated the entry: running it again answers that entry). Full tiles'
// and entry bundles' partial versions are garbage collected before Add
// returns.
//
// The entry is durable once Add returns a proof.
func (l *Log) Add(ctx context.Context, signer note.Signer, data []byte) (*Proof, error) {
	if len(data) == 0 || len(data) > MaxEntrySize {
		return nil, fmt.Errorf("tlog: an entry is 1..%d bytes, got %d", MaxEntrySize, len(data))
	}
	a, err := l.NewAppender(ctx, signer, AppenderOptions{GCInterval: localGCInterval})
	if err != nil {
		return nil, err
	}
	p, err := a.Add(ctx, data)
	if err == nil {
		// Let Tessera's garbage collector, which works from the
		// published checkpoint, run on the checkpoint that covers p.
		select {
		case <-ctx.Done():
		case <-time.After(localGCWait):
		}
	}
	if cerr := a.Close(ctx); err == nil && cerr != nil {
		return nil, fmt.Errorf("tlog: closing the appender after entry %d: %w", p.Index, cerr)
	}
	return p, err
}

// Proof returns a fresh proof for the entry at index against the latest
// published checkpoint (with whatever cosignatures it carries).
func (l *Log) Proof(ctx context.Context, index uint64) (*Proof, error) {
	return l.proof(ctx, index)
}

func (l *Log) proof(ctx context.Context, index uint64) (*Proof, error) {
	cp, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	return l.proofAt(ctx, cp, index, newNodeCache(), l.store.ReadTile, l.store.ReadEntryBundle)
}

// proofAt builds the proof of the entry at index against cp, a published,
// authenticated checkpoint, with the tree's nodes from nodes.
func (l *Log) proofAt(ctx context.Context, cp *signednote.Checkpoint, index uint64, nodes *nodeCache,
	readTile func(context.Context, uint64, uint64, uint8) ([]byte, error),
	readBundle func(context.Context, uint64, uint8) ([]byte, error)) (*Proof, error) {
	if index >= cp.Size {
		return nil, fmt.Errorf("%w: index %d, checkpoint size %d", ErrIndex, index, cp.Size)
	}
	hashes, err := nodes.inclusion(ctx, index, cp.Size, readTile)
	if err != nil {
		return nil, fmt.Errorf("tlog: inclusion proof of entry %d in tree size %d: %w", index, cp.Size, err)
	}
	bundle, err := client.GetEntryBundle(ctx, readBundle, index/layout.EntryBundleWidth, cp.Size)
	if err != nil {
		return nil, fmt.Errorf("tlog: reading entry %d: %w", index, err)
	}
	i := index % layout.EntryBundleWidth
	if i >= uint64(len(bundle.Entries)) {
		return nil, fmt.Errorf("tlog: entry bundle %d has %d entries, want more than %d", index/layout.EntryBundleWidth, len(bundle.Entries), i)
	}
	p := &Proof{Index: index, Hashes: hashes, Entry: bytes.Clone(bundle.Entries[i]), Checkpoint: cp}
	// Check our own output: a corrupt tile or bundle must not become a
	// published proof.
	if err := p.Verify(); err != nil {
		return nil, fmt.Errorf("tlog: the log's tiles give a proof that does not verify: %w", err)
	}
	return p, nil
}

// UpdateCheckpoint replaces the published checkpoint with what update
// returns for it, typically the same note with cosignature lines added.
// The result must be a checkpoint note with the same text, signed by the
// log key. The replacement is atomic, and fails with ErrCheckpointChanged
// (wrapped) if the log published another checkpoint meanwhile. While an
// Appender of this Log is open it waits for its Close: use
// [Appender.UpdateCheckpoint] then.
func (l *Log) UpdateCheckpoint(ctx context.Context, update func(cp *signednote.Checkpoint) ([]byte, error)) (*signednote.Checkpoint, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.updateCheckpoint(ctx, update)
}

// updateCheckpoint is UpdateCheckpoint without the Log's lock.
func (l *Log) updateCheckpoint(ctx context.Context, update func(cp *signednote.Checkpoint) ([]byte, error)) (*signednote.Checkpoint, error) {
	cp, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	next, err := update(cp)
	if err != nil {
		return nil, err
	}
	ncp, err := signednote.Open(next, l.key)
	if err != nil {
		return nil, fmt.Errorf("tlog: updated checkpoint: %w", err)
	}
	if ncp.Text != cp.Text {
		return nil, errors.New("tlog: the updated checkpoint has another body than the published one")
	}
	if err := l.store.ReplaceCheckpoint(ctx, cp.Note, next); err != nil {
		return nil, fmt.Errorf("tlog: publishing the updated checkpoint: %w", err)
	}
	return ncp, nil
}

// A Proof proves that Entry is the leaf at Index of the tree the
// Checkpoint commits to.
type Proof struct {
	Index uint64
	// Hashes is the RFC 6962 inclusion proof from the leaf to the root.
	Hashes [][]byte
	// Entry is the leaf data.
	Entry []byte
	// Checkpoint is the signed checkpoint, with its cosignatures.
	Checkpoint *signednote.Checkpoint
	// Existing is set by Add when the entry was already in the log (the
	// proof is of that entry, not of a new one).
	Existing bool
}

// Verify checks the inclusion proof: SHA-256(0x00 ‖ Entry) at Index,
// combined with Hashes, gives the checkpoint's root for its size. It does
// not check signatures (the Checkpoint was authenticated when read).
func (p *Proof) Verify() error {
	for i, h := range p.Hashes {
		if len(h) != sha256.Size {
			return fmt.Errorf("proof hash %d is %d bytes, want %d", i, len(h), sha256.Size)
		}
	}
	leaf := rfc6962.DefaultHasher.HashLeaf(p.Entry)
	return mproof.VerifyInclusion(rfc6962.DefaultHasher, p.Index, p.Checkpoint.Size, leaf, p.Hashes, p.Checkpoint.Hash[:])
}

// TLogProof returns the proof as a C2SP tlog-proof value: the index, the
// inclusion hashes, the checkpoint note and the entry as extra data.
func (p *Proof) TLogProof() proof.TLogProof {
	hs := make([][sha256.Size]byte, len(p.Hashes))
	for i, h := range p.Hashes {
		copy(hs[i][:], h)
	}
	return proof.TLogProof{Index: p.Index, Hashes: hs, Checkpoint: p.Checkpoint.Note, ExtraData: p.Entry}
}

// Marshal returns the C2SP tlog-proof encoding of the proof:
//
//	c2sp.org/tlog-proof@v1
//	extra BASE64(entry)
//	index DECIMAL
//	BASE64(hash)        (one line per inclusion proof hash)
//
//	CHECKPOINT NOTE     (body, blank line, signature lines)
//
// These are the bytes a transparency reference embeds.
func (p *Proof) Marshal() []byte { return p.TLogProof().Marshal() }

// EntryID returns the reference's entry identifier: the leaf index in
// decimal.
func (p *Proof) EntryID() string { return strconv.FormatUint(p.Index, 10) }

// Reference returns the transparency reference of p: logId the checkpoint
// origin, entryUuid the leaf index, and the proof bytes (Marshal) with
// their SHA-256. Its Marshal is what `mcpres log add -o` writes and `mcpres
// log serve` answers.
func (p *Proof) Reference() *attest.TransparencyReference {
	return attest.NewTransparencyReference(p.Checkpoint.Origin, p.EntryID(), p.Marshal())
}
