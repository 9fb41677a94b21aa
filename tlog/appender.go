package tlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
)

// Garbage collection of a one-entry Add: Tessera's collector runs every
// localGCInterval, and Add waits localGCWait (a few runs) after the entry
// is published before it closes the appender.
const (
	localGCInterval = 10 * time.Millisecond
	localGCWait     = 4 * localGCInterval
)

// dedupMemEntries is the size of Tessera's in-memory deduplication cache,
// which answers duplicates the persistent index has not indexed yet.
const dedupMemEntries = 1 << 16

// ErrBusy is returned (wrapped) by Appender.Add when Tessera pushes back:
// too many entries wait for integration. The caller may retry later.
var ErrBusy = errors.New("tlog: the log is busy (too many entries waiting), retry later")

// AppenderOptions tunes an Appender. The zero value is what a one-entry
// Add uses: batches of one, the fastest checkpoints.
type AppenderOptions struct {
	// BatchSize and BatchMaxAge bound Tessera's batches of entries
	// (default 1 and tessera.DefaultBatchMaxAge). BatchMaxAge is at least
	// the storage's minimum when it is a [BatchAgeFloor]: a driver that
	// publishes seldom gains nothing from younger batches, only more
	// integration transactions.
	BatchSize   uint
	BatchMaxAge time.Duration
	// CheckpointInterval is the shortest interval between two checkpoints
	// (default and minimum CheckpointInterval, or the storage's minimum
	// when it is a [CheckpointIntervalFloor]).
	CheckpointInterval time.Duration
	// GCInterval is how often Tessera deletes the partial versions of
	// full tiles and entry bundles (default tessera's, one minute).
	GCInterval time.Duration
	// MaxOutstanding is how many entries may wait for integration before
	// Add fails with ErrBusy (default Tessera's, 4096).
	MaxOutstanding uint
	// Tessera, when set, adjusts Tessera's options last (for example
	// WithWitnesses, to have witnesses cosign each checkpoint before it is
	// published).
	Tessera func(*tessera.AppendOptions) *tessera.AppendOptions
	// OnCheckpoint, when set, is called (from one goroutine, in order)
	// with the appender and each new checkpoint it sees published, once
	// per tree (a checkpoint replaced by its cosigned version is not new):
	// the hook for collecting witness cosignatures (with
	// [Appender.UpdateCheckpoint]; witnessclient.Witnessing) and for
	// monitoring.
	OnCheckpoint func(ctx context.Context, a *Appender, cp *signednote.Checkpoint)
	// AwaitHook makes Add wait, after a published checkpoint covers the
	// entry, until OnCheckpoint has returned for a checkpoint that covers
	// it (bounded by Add's context), and prove the entry against the
	// checkpoint published then: with the cosignatures the hook attached.
	AwaitHook bool
}

// tessera returns Tessera's options: no republication of an unchanged
// tree (which would drop attached cosignatures), and dedup when given.
func (o AppenderOptions) tessera(store Storage, signer note.Signer, d *dedup) *tessera.AppendOptions {
	bs, age, ci := o.BatchSize, o.BatchMaxAge, o.CheckpointInterval
	if bs == 0 {
		bs = 1
	}
	if age == 0 {
		age = tessera.DefaultBatchMaxAge
	}
	if m, ok := store.(BatchAgeFloor); ok && age < m.MinBatchMaxAge() {
		age = m.MinBatchMaxAge()
	}
	if ci < CheckpointInterval {
		ci = CheckpointInterval
	}
	if m, ok := store.(CheckpointIntervalFloor); ok && ci < m.MinCheckpointInterval() {
		ci = m.MinCheckpointInterval()
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(bs, age).
		WithCheckpointInterval(ci).
		WithCheckpointRepublishInterval(0)
	if o.GCInterval > 0 {
		opts = opts.WithGarbageCollectionInterval(o.GCInterval)
	}
	if o.MaxOutstanding > 0 {
		opts = opts.WithPushback(o.MaxOutstanding)
	}
	if d != nil {
		opts = opts.WithAntispam(dedupMemEntries, d)
	}
	if o.Tessera != nil {
		opts = o.Tessera(opts)
	}
	return opts
}

// An Appender appends entries to a log through one long-lived Tessera
// appender, with deduplication: what a server uses. It holds the Log's
// lock from NewAppender to Close, so UpdateCheckpoint on the same Log
// waits until Close (attach cosignatures through AppenderOptions instead).
// Add is safe for concurrent use.
type Appender struct {
	l        *Log
	app      *tessera.Appender
	reader   tessera.LogReader
	awaiter  *tessera.PublicationAwaiter
	shutdown func(context.Context) error
	cancel   context.CancelFunc
	dedup    *dedup
	idx      DedupIndex
	done     sync.WaitGroup
	closed   sync.Once
	cpMu     sync.Mutex
	cp       *signednote.Checkpoint // the last checkpoint opened by Add
	cache    *resourceCache
	nodes    *nodeCache

	gcInterval time.Duration // AppenderOptions.GCInterval (0: Tessera's default, a minute)

	awaitHook bool
	hookMu    sync.Mutex
	hooked    uint64        // the size of the last checkpoint OnCheckpoint returned for
	hookDone  chan struct{} // closed (and replaced) when hooked grows
	update    func(context.Context, func(*signednote.Checkpoint) ([]byte, error)) (*signednote.Checkpoint, error)
}

// NewAppender opens an appender on the log, which must exist and be
// signed by signer's key. Before it returns, the persistent deduplication
// index covers every entry in the log, so that a duplicate of any entry is
// answered with that entry.
func (l *Log) NewAppender(ctx context.Context, signer note.Signer, opts AppenderOptions) (*Appender, error) {
	if err := l.checkSigner(signer); err != nil {
		return nil, err
	}
	l.mu.Lock()
	ok := false
	defer func() {
		if !ok {
			l.mu.Unlock()
		}
	}()
	// The log must exist and be ours: NewAppender would otherwise create
	// a new log in an empty location.
	if _, err := l.Checkpoint(ctx); err != nil {
		return nil, err
	}
	idx, err := l.store.OpenDedup(ctx)
	if err != nil {
		return nil, fmt.Errorf("tlog: %w", err)
	}
	a := &Appender{l: l, idx: idx, dedup: &dedup{idx: idx}, cache: newResourceCache(cachedResources), nodes: newNodeCache(),
		awaitHook: opts.AwaitHook && opts.OnCheckpoint != nil, hookDone: make(chan struct{}), gcInterval: opts.GCInterval}
	a.update = a.l.updateCheckpoint
	if ex, ok := l.store.(PublisherExclusion); ok && !ex.ExcludesOwnPublisher() {
		a.update = nil
	}
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel = cancel
	fail := func(err error) (*Appender, error) {
		cancel()
		a.closeDedup()
		return nil, err
	}
	drv, err := l.store.Driver(actx)
	if err != nil {
		return fail(fmt.Errorf("tlog: opening the storage: %w", err))
	}
	topts := opts.tessera(l.store, signer, a.dedup)
	a.app, a.shutdown, a.reader, err = tessera.NewAppender(actx, drv, topts)
	if err != nil {
		return fail(fmt.Errorf("tlog: opening the appender: %w", err))
	}
	if p, ok := l.store.(CheckpointPublisher); ok {
		a.done.Add(1)
		go func() {
			defer a.done.Done()
			p.PublishCheckpoints(actx, topts)
		}()
	}
	a.dedup.mu.Lock()
	a.dedup.reader = a.reader
	a.dedup.mu.Unlock()
	if err := a.dedup.catchUp(ctx, a.reader); err != nil {
		_ = a.shutdown(ctx)
		return fail(err)
	}
	a.awaiter = tessera.NewPublicationAwaiter(actx, a.reader.ReadCheckpoint, PollInterval)
	if opts.OnCheckpoint != nil {
		a.done.Add(1)
		go a.watch(actx, opts.OnCheckpoint)
	}
	ok = true
	return a, nil
}

// watch calls hook with each new published checkpoint (a new tree: a
// checkpoint replaced by its cosigned version is not new) until ctx is
// done.
func (a *Appender) watch(ctx context.Context, hook func(context.Context, *Appender, *signednote.Checkpoint)) {
	defer a.done.Done()
	var last, lastText []byte
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for {
		if data, err := a.reader.ReadCheckpoint(ctx); err == nil && !bytes.Equal(data, last) {
			if cp, err := signednote.Open(data, a.l.key); err == nil {
				last = data
				if cp.Text != string(lastText) {
					lastText = []byte(cp.Text)
					hook(ctx, a, cp)
					a.hookReturned(cp.Size)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// hookReturned records that OnCheckpoint returned for a checkpoint of
// size n, and wakes the Adds waiting for it.
func (a *Appender) hookReturned(n uint64) {
	a.hookMu.Lock()
	defer a.hookMu.Unlock()
	if n > a.hooked {
		a.hooked = n
		close(a.hookDone)
		a.hookDone = make(chan struct{})
	}
}

// awaitHooked waits until OnCheckpoint has returned for a checkpoint of at
// least size n.
func (a *Appender) awaitHooked(ctx context.Context, n uint64) error {
	for {
		a.hookMu.Lock()
		hooked, done := a.hooked, a.hookDone
		a.hookMu.Unlock()
		if hooked >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
		}
	}
}

// Checkpoint reads and authenticates the published checkpoint, as
// [Log.Checkpoint] does.
func (a *Appender) Checkpoint(ctx context.Context) (*signednote.Checkpoint, error) {
	return a.l.Checkpoint(ctx)
}

// UpdateCheckpoint is [Log.UpdateCheckpoint] while the appender is open:
// it replaces the published checkpoint with what update returns for it
// (the same text, signed by the log key; typically with cosignatures
// added), atomically, and fails with ErrCheckpointChanged (wrapped) when
// Tessera published a new checkpoint meanwhile. The storage's
// ReplaceCheckpoint excludes Tessera's publisher of this process; a
// storage that says it cannot (ExcludesOwnPublisher() false: POSIX off
// Linux) is refused rather than raced. Tessera never republishes an
// unchanged tree (WithCheckpointRepublishInterval(0)), so the cosignatures
// stay until the log grows.
func (a *Appender) UpdateCheckpoint(ctx context.Context, update func(cp *signednote.Checkpoint) ([]byte, error)) (*signednote.Checkpoint, error) {
	if a.update == nil {
		return nil, errors.New("tlog: this storage cannot replace the checkpoint while an appender of this process publishes (no open-file-description locks on this system)")
	}
	return a.update(ctx, update)
}

// Add appends data as one entry, unless an identical entry is in the log,
// waits until a published checkpoint covers it, and returns its proof
// against that checkpoint (Existing set for an entry that was there); with
// AwaitHook, against the checkpoint published once OnCheckpoint returned
// for one that covers it. It fails with ErrBusy (wrapped) when Tessera
// pushes back.
func (a *Appender) Add(ctx context.Context, data []byte) (*Proof, error) {
	if len(data) == 0 || len(data) > MaxEntrySize {
		return nil, fmt.Errorf("tlog: an entry is 1..%d bytes, got %d", MaxEntrySize, len(data))
	}
	idx, cpNote, err := a.awaiter.Await(ctx, a.app.Add(ctx, tessera.NewEntry(data)))
	if errors.Is(err, tessera.ErrPushback) {
		return nil, fmt.Errorf("%w: %v", ErrBusy, err)
	}
	if err != nil {
		return nil, fmt.Errorf("tlog: appending: %w", err)
	}
	// The proof is against the published checkpoint the awaiter saw
	// covering the entry, opened once for all the entries it covers.
	if a.awaitHook {
		if err := a.awaitHooked(ctx, idx.Index+1); err != nil {
			return nil, fmt.Errorf("tlog: entry %d appended, but waiting for the checkpoint hook: %w", idx.Index, err)
		}
		if cpNote, err = a.l.store.ReadCheckpoint(ctx); err != nil {
			return nil, fmt.Errorf("tlog: entry %d appended, but reading the checkpoint: %w", idx.Index, err)
		}
	}
	cp, err := a.checkpoint(cpNote)
	if err != nil {
		return nil, fmt.Errorf("tlog: entry %d appended, but the published checkpoint: %w", idx.Index, err)
	}
	p, err := a.l.proofAt(ctx, cp, idx.Index, a.nodes, a.cache.tile(a.l.store), a.cache.bundle(a.l.store))
	if err != nil {
		return nil, fmt.Errorf("tlog: entry %d appended, but: %w", idx.Index, err)
	}
	if !bytes.Equal(p.Entry, data) {
		return nil, fmt.Errorf("tlog: entry %d in the log is not the data appended", idx.Index)
	}
	p.Existing = idx.IsDup
	return p, nil
}

// Proof returns the proof of the entry at index against the published
// checkpoint, as [Log.Proof] does, while the appender is open: after a
// round of witnessing that attached cosignatures, the proof that carries
// them.
func (a *Appender) Proof(ctx context.Context, index uint64) (*Proof, error) {
	data, err := a.l.store.ReadCheckpoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("tlog: reading the checkpoint: %w", err)
	}
	cp, err := a.checkpoint(data)
	if err != nil {
		return nil, fmt.Errorf("tlog: the published checkpoint: %w", err)
	}
	return a.l.proofAt(ctx, cp, index, a.nodes, a.cache.tile(a.l.store), a.cache.bundle(a.l.store))
}

// checkpoint authenticates a published checkpoint note, caching the last.
func (a *Appender) checkpoint(data []byte) (*signednote.Checkpoint, error) {
	a.cpMu.Lock()
	defer a.cpMu.Unlock()
	if a.cp != nil && bytes.Equal(a.cp.Note, data) {
		return a.cp, nil
	}
	cp, err := signednote.Open(data, a.l.key)
	if err != nil {
		return nil, err
	}
	a.cp = cp
	return cp, nil
}

// Close waits for the entries Tessera accepted to be integrated and
// published (bounded by ctx), stops the appender, closes the
// deduplication index and releases the Log's lock.
func (a *Appender) Close(ctx context.Context) error {
	var err error
	a.closed.Do(func() {
		err = a.shutdown(ctx)
		if err == nil {
			// Every entry this appender took is integrated: index them
			// before the index (and, on shared storage, this process's
			// claims) is released.
			_ = a.dedup.catchUp(ctx, a.reader)
		}
		a.cancel()
		a.done.Wait()
		a.quiesceGC(ctx)
		a.closeDedup()
		a.l.mu.Unlock()
	})
	return err
}

// closeDedup waits for a running follower pass, then closes the index.
func (a *Appender) closeDedup() {
	a.dedup.mu.Lock()
	defer a.dedup.mu.Unlock()
	a.dedup.closed = true
	a.idx.Close()
}

// A gcQuiescer is storage whose Tessera garbage collector can be waited
// for: WaitGC returns once no garbage-collection run holds its lock.
type gcQuiescer interface {
	WaitGC(ctx context.Context) error
}

// quiesceGC waits, after the appender's context is cancelled, for
// Tessera's garbage collector to stop writing in the log's state. Tessera
// v1.0.4 does not wait for its garbage-collection goroutine on shutdown
// (storage/posix garbageCollectorJob only returns at its next tick), so a
// run that started just before the cancel could still be writing its
// gcState when Close returns. A tick already pending when the context is
// cancelled may start one more run: this waits for the run in progress,
// then, with a short interval (local adds run it every few milliseconds),
// two intervals and a run that started in between. Best effort by
// construction (Tessera offers no handle on the goroutine), bounded by ctx.
func (a *Appender) quiesceGC(ctx context.Context) {
	q, ok := a.l.store.(gcQuiescer)
	if !ok {
		return
	}
	if q.WaitGC(ctx) != nil || a.gcInterval <= 0 || a.gcInterval > time.Second {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(2 * a.gcInterval):
	}
	_ = q.WaitGC(ctx)
}
