package monitor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
)

// DefaultChunkBundles is how many entry bundles (of 256 entries) are read
// and verified together before the state is written: 16,384 entries, so
// that a catch-up on a million entries writes its state 61 times (each
// write is synced to disk) and an interrupted one reads again at most a
// second's worth of entries.
const DefaultChunkBundles = 64

// MaxChunkAlerts bounds the alerts a chunk holds until it verifies: a
// chunk ends after the entry bundle in which its alerts reach this many,
// so that memory stays flat however many entries of a log alert.
const MaxChunkAlerts = 1024

// Config is what a monitor of one log checks.
type Config struct {
	// LogKey is the log's verifier key (type 0x01): its name is the
	// checkpoint origin. Required.
	LogKey *signednote.Verifier
	// TLogPolicy, when set, is the witness policy every checkpoint must
	// satisfy (its witnesses, groups and quorum; its log lines are not
	// read). Cosignatures are judged at Now by signednote.JudgeCosignature.
	TLogPolicy *trustpolicy.TLogPolicy
	// MaxCosignatureAge, when not zero, is the oldest a counted
	// cosignature may be.
	MaxCosignatureAge time.Duration
	// Watch selects the entries to judge; Authoriser judges them (nil:
	// every watched entry is a watched-entry alert).
	Watch      Watch
	Authoriser Authoriser
	// RequireSigners makes a watched entry the Authoriser cannot
	// attribute (an [*UnattributedError]: an entry that names no signer)
	// an unattributed-entry alert; without it such entries are counted
	// (Result.Unattributed).
	RequireSigners bool
	// StateDir holds the state files. Required.
	StateDir string
	// LockWait is how long to wait for another process holding the state.
	LockWait time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// ChunkBundles is how many entry bundles are verified per state write
	// (0: DefaultChunkBundles).
	ChunkBundles int
	// Checkpoints are places that hold a checkpoint of the log and serve
	// no tiles (a witness's copy of what it cosigned, a distributor's, the
	// one a consumer saw: [OpenCheckpoint]), each answering a checkpoint
	// or a tlog-proof or transparency reference carrying one
	// ([HeldCheckpoint]). Each must be signed by the
	// log key and consistent with the largest checkpoint the sources
	// serve (split view); none is ever read for entries, held to the
	// quorum or written into the state.
	Checkpoints []CheckpointSource
}

// A Result says what one [Run] did.
type Result struct {
	// Alerts counts the alerts raised.
	Alerts int
	// Entries and Watched count the entries read and the watched ones.
	Entries, Watched uint64
	// Unattributed counts the watched entries that name no signer, which
	// the Authoriser could not judge and were not alerts (see
	// Config.RequireSigners).
	Unattributed uint64
	// Tree is the verified tree head in the state after the run (zero
	// before the first).
	Tree TreeHead
	// Next is the index of the next entry to read.
	Next uint64
	// Unproven are the checkpoints of Config.Checkpoints larger than
	// every source's whose consistency could not be proven yet: the
	// sources do not serve the tiles of their tree (a log publishes after
	// its witnesses cosign). Not alerts; the next run checks them again.
	Unproven []View
}

// Run checks the log once: it reads the checkpoint of every source (all
// of them serving the one log of cfg.LogKey) and, from the one verified
// tree head they lead to, the new entries; each finding is passed to
// emit as an [Alert]. It returns an error, and no result, only when the
// monitor itself cannot work (a bad configuration, an unreadable or
// locked state, an emit that fails); whatever a source serves is an
// alert, never an error.
//
// In order:
//
//  1. each checkpoint must be signed by the log key for its origin
//     (offline.VerifyCheckpoint): else a checkpoint-signature alert;
//  2. with several sources, every checkpoint must be consistent with the
//     largest (equal roots at equal sizes, else a consistency proof from
//     the largest source's tiles verified with merkle's
//     proof.VerifyConsistency): else a split-view alert, and nothing
//     advances; so must every checkpoint of cfg.Checkpoints (signed by
//     the log key, else checkpoint-signature), the proof built from the
//     largest source's tiles whichever tree is larger — one larger whose
//     tiles the source does not serve yet is Result.Unproven, not an
//     alert;
//  3. against the state: a smaller checkpoint is a rollback alert, one
//     that is not consistent with the verified tree head a fork alert;
//  4. the tlog policy's quorum: else a below-quorum alert;
//  5. the largest checkpoint that passed becomes the target: the entries
//     from the state's position to its size are read from its source's
//     entry bundles, ChunkBundles at a time, each leaf hashed (RFC 6962)
//     into a compact range that must reach the target's root (through a
//     consistency proof from the chunk's end): else a tiles alert and the
//     state stays at the last chunk that verified. Each verified entry is
//     decoded ([DecodeEntry]: else an entry-undecodable alert) and, when
//     [Watch] matches it, judged by the Authoriser (unauthorised-entry;
//     an entry that names no signer is counted, or with RequireSigners
//     an unattributed-entry) or reported (watched-entry). A chunk's alerts are emitted before
//     the state records the chunk, so an interrupted run alerts again
//     rather than never.
//
// The state is locked for the whole run and only ever moves forward. A
// run whose ctx is done while it reads entries stops at the last chunk
// that verified, without an alert: the next run resumes there.
func Run(ctx context.Context, cfg Config, sources []Source, emit func(*Alert) error) (*Result, error) {
	if cfg.LogKey == nil {
		return nil, errors.New("monitor: no log key")
	}
	if err := cfg.LogKey.CheckType(0x01); err != nil {
		return nil, fmt.Errorf("monitor: log key: %w", err)
	}
	if len(sources) == 0 {
		return nil, errors.New("monitor: no log source")
	}
	if cfg.StateDir == "" {
		return nil, errors.New("monitor: no state directory")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ChunkBundles <= 0 {
		cfg.ChunkBundles = DefaultChunkBundles
	}
	logKey := signednote.FormatVerifierKey(cfg.LogKey.Name(), cfg.LogKey.Type(), cfg.LogKey.PublicKey())
	sf, err := lockState(cfg.StateDir, StateName(cfg.LogKey.Name(), cfg.LogKey.KeyHash()), cfg.LockWait)
	if err != nil {
		return nil, err
	}
	defer sf.release()
	old, err := sf.load(logKey)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, emit: emit, origin: cfg.LogKey.Name(), sf: sf, old: old, res: &Result{}}
	st := old
	if st == nil {
		st = &State{LogKey: logKey}
	} else {
		cp := *old
		st = &cp
	}
	if err := r.check(ctx, sources, st); err != nil {
		return nil, err
	}
	r.res.Tree, r.res.Next = st.Tree, st.Next
	return r.res, nil
}

type run struct {
	cfg    Config
	emit   func(*Alert) error
	origin string
	sf     *stateFile
	old    *State
	res    *Result
}

// view is a checkpoint a source served, signed by the log key.
type view struct {
	name string
	src  Source // nil for a checkpoint-only source
	raw  []byte
	head TreeHead
	root []byte
	ok   bool // consistent, quorate, usable as a target
}

func (r *run) alert(a *Alert) error {
	a.SchemaVersion = AlertSchema
	a.Log = r.origin
	a.Time = r.cfg.Now().UTC().Format(time.RFC3339)
	r.res.Alerts++
	return r.emit(a)
}

func (r *run) check(ctx context.Context, sources []Source, st *State) error {
	var views []*view
	var verified *TreeHead
	if st.Checkpoint != "" {
		verified = &TreeHead{Size: st.Tree.Size, RootHash: st.Tree.RootHash}
	}
	for _, src := range sources {
		v, err := r.open(ctx, src, verified, false)
		if err != nil {
			return err
		}
		if v != nil {
			v.src = src
			views = append(views, v)
		}
	}
	var held []*view
	for _, src := range r.cfg.Checkpoints {
		v, err := r.open(ctx, src, verified, true)
		if err != nil {
			return err
		}
		if v != nil {
			held = append(held, v)
		}
	}
	if len(views) == 0 {
		return nil
	}
	// 2. Split view: every view against the largest.
	sort.SliceStable(views, func(i, j int) bool { return views[i].head.Size > views[j].head.Size })
	largest := views[0]
	split := false
	for _, v := range views[1:] {
		err := consistent(ctx, largest.src, v.head.Size, v.root, largest.head.Size, largest.root)
		if err == nil {
			continue
		}
		split = true
		kind, msg := KindSplitView, fmt.Sprintf("the checkpoint of %s is not consistent with that of %s: %v", v.src.Name(), largest.src.Name(), err)
		var se *SourceError
		if errors.As(err, &se) {
			kind, msg = KindLogUnreadable, "cannot check the sources against each other: "+err.Error()
		}
		if err := r.alert(&Alert{Kind: kind, Source: largest.src.Name(), Message: msg, Checkpoint: &largest.head, Verified: verified,
			Other: r.other(v)}); err != nil {
			return err
		}
	}
	if heldSplit, err := r.compareHeld(ctx, largest, held, verified); err != nil {
		return err
	} else if heldSplit {
		split = true
	}
	// 3. Against the state; 4. the quorum.
	var stRoot []byte
	if verified != nil {
		stRoot, _ = base64.StdEncoding.DecodeString(st.Tree.RootHash)
	}
	for _, v := range views {
		if verified != nil {
			var kind Kind
			var msg string
			switch {
			case v.head.Size < st.Tree.Size:
				kind, msg = KindRollback, fmt.Sprintf("checkpoint of size %d is smaller than the verified tree of size %d", v.head.Size, st.Tree.Size)
			default:
				if err := consistent(ctx, v.src, st.Tree.Size, stRoot, v.head.Size, v.root); err != nil {
					kind, msg = KindFork, fmt.Sprintf("checkpoint of size %d is not consistent with the verified tree of size %d: %v", v.head.Size, st.Tree.Size, err)
					var se *SourceError
					if errors.As(err, &se) {
						kind, msg = KindLogUnreadable, "cannot prove the checkpoint consistent with the verified tree: "+err.Error()
					}
				}
			}
			if kind != "" {
				v.ok = false
				if err := r.alert(&Alert{Kind: kind, Source: v.src.Name(), Message: msg, Checkpoint: &v.head, Verified: verified}); err != nil {
					return err
				}
				continue
			}
		}
		if r.cfg.TLogPolicy != nil {
			trust := r.cfg.TLogPolicy.Trust()
			trust.EvaluatedAt, trust.MaxCosignatureAge = r.cfg.Now(), r.cfg.MaxCosignatureAge
			if _, err := offline.VerifyCheckpoint(v.raw, r.origin, r.cfg.LogKey, trust); err != nil {
				v.ok = false
				if err := r.alert(&Alert{Kind: KindBelowQuorum, Source: v.src.Name(), Message: fmt.Sprintf("checkpoint of size %d does not meet the witness policy (quorum %s): %v", v.head.Size, r.cfg.TLogPolicy.Quorum, err), Checkpoint: &v.head, Verified: verified}); err != nil {
					return err
				}
			}
		}
	}
	if split {
		return nil
	}
	var target *view
	for _, v := range views {
		if v.ok {
			target = v
			break
		}
	}
	if target == nil {
		return nil
	}
	return r.read(ctx, target, st)
}

// open reads and verifies the checkpoint of src (step 1): nil after an
// alert. A held (checkpoint-only) source may answer a document carrying
// the checkpoint (HeldCheckpoint).
func (r *run) open(ctx context.Context, src CheckpointSource, verified *TreeHead, held bool) (*view, error) {
	raw, err := src.ReadCheckpoint(ctx)
	if err != nil {
		return nil, r.alert(&Alert{Kind: KindLogUnreadable, Source: src.Name(), Message: err.Error(), Verified: verified})
	}
	if held {
		raw, err = HeldCheckpoint(raw)
	}
	var cp *offline.Checkpoint
	if err == nil {
		cp, err = offline.VerifyCheckpoint(raw, r.origin, r.cfg.LogKey, offline.Trust{Quorum: "none"})
	}
	if err != nil {
		return nil, r.alert(&Alert{Kind: KindCheckpointSignature, Source: src.Name(), Message: "checkpoint not accepted: " + err.Error(), Verified: verified})
	}
	return &view{name: src.Name(), raw: raw, head: TreeHead{Size: cp.Size, RootHash: cp.Hash.String()}, root: bytes.Clone(cp.Hash[:]), ok: true}, nil
}

// compareHeld is step 2 for the checkpoint-only sources: each held
// checkpoint against largest, the largest a source serves, with a
// consistency proof built from that source's tiles, whichever tree is
// larger. A held checkpoint larger than largest whose tiles the source
// does not serve (yet: a tile cannot be read) is added to
// Result.Unproven; two such of one size with two roots are a split view
// all the same. It reports whether it found a split view (or could not
// look: a tile that could not be read).
func (r *run) compareHeld(ctx context.Context, largest *view, held []*view, verified *TreeHead) (bool, error) {
	split := false
	var ahead []*view
	for _, h := range held {
		var err error
		if h.head.Size <= largest.head.Size {
			err = consistent(ctx, largest.src, h.head.Size, h.root, largest.head.Size, largest.root)
		} else {
			// The tiles of a tree the source does not serve yet: missing
			// (404), or another answer for a missing object (a bucket's
			// 403); whatever it is, the source's own tree is read and
			// checked by steps 3 and 5.
			err = consistent(ctx, largest.src, largest.head.Size, largest.root, h.head.Size, h.root)
			if se := (*SourceError)(nil); errors.As(err, &se) {
				ahead = append(ahead, h)
				continue
			}
		}
		if err == nil {
			continue
		}
		split = true
		kind := KindSplitView
		cosigned, quorate := r.cosignedText(h)
		msg := fmt.Sprintf("the checkpoint at %s (size %d)%s is not consistent with the checkpoint %s serves (size %d): %v",
			h.name, h.head.Size, cosigned, largest.src.Name(), largest.head.Size, err)
		if quorate {
			msg += "; the log's witnesses cosigned a tree it does not serve here"
		}
		var se *SourceError
		if errors.As(err, &se) {
			kind, msg = KindLogUnreadable, fmt.Sprintf("cannot check the checkpoint at %s against the source: %v", h.name, err)
		}
		if err := r.alert(&Alert{Kind: kind, Source: largest.src.Name(), Message: msg, Checkpoint: &largest.head, Verified: verified,
			Other: r.other(h)}); err != nil {
			return false, err
		}
	}
	for i, a := range ahead {
		for _, b := range ahead[:i] {
			if a.head.Size != b.head.Size || a.head.RootHash == b.head.RootHash {
				continue
			}
			split = true
			bc, _ := r.cosignedText(b)
			ac, _ := r.cosignedText(a)
			msg := fmt.Sprintf("the checkpoints at %s%s and at %s%s are two trees of size %d, both signed by the log",
				b.name, bc, a.name, ac, a.head.Size)
			if err := r.alert(&Alert{Kind: KindSplitView, Source: b.name, Message: msg, Checkpoint: &b.head, Verified: verified,
				Other: r.other(a)}); err != nil {
				return false, err
			}
		}
		r.res.Unproven = append(r.res.Unproven, *r.other(a))
	}
	return split, nil
}

// other is v as the other side of a split view: with a tlog policy, the
// witnesses whose cosignatures on it verify.
func (r *run) other(v *view) *View {
	o := &View{Source: v.name, Checkpoint: v.head}
	if r.cfg.TLogPolicy != nil {
		o.Cosigners, o.QuorumMet, _ = r.witnessed(v.raw)
	}
	return o
}

// cosignedText says, for a person, who cosigned v (with a tlog policy):
// "" or ", cosigned by …,", and whether they meet the quorum.
func (r *run) cosignedText(v *view) (string, bool) {
	if r.cfg.TLogPolicy == nil {
		return "", false
	}
	keys, met, err := r.witnessed(v.raw)
	switch {
	case err != nil:
		return fmt.Sprintf(", whose witness cosignatures do not verify (%v),", err), false
	case len(keys) == 0:
		return ", cosigned by no witness of the tlog policy,", false
	case met:
		return fmt.Sprintf(", cosigned by %s, meeting the witness quorum %s,", strings.Join(keys, ", "), r.cfg.TLogPolicy.Quorum), true
	}
	return fmt.Sprintf(", cosigned by %s, below the witness quorum %s,", strings.Join(keys, ", "), r.cfg.TLogPolicy.Quorum), false
}

// witnessed verifies the witness cosignatures of a checkpoint with the
// tlog policy's keys: the keys ("NAME+HASH") of the policy's witnesses
// whose cosignatures verify, whatever their time, counted ones first,
// and whether they meet the quorum at Now (with MaxCosignatureAge). A
// cosignature by a policy witness's key that does not verify is an
// error (offline.VerifyCheckpoint).
func (r *run) witnessed(raw []byte) (keys []string, met bool, err error) {
	pol := r.cfg.TLogPolicy
	trust := pol.Trust()
	trust.EvaluatedAt, trust.MaxCosignatureAge = r.cfg.Now(), r.cfg.MaxCosignatureAge
	all := trust
	all.Quorum = "none"
	cp, err := offline.VerifyCheckpoint(raw, r.origin, r.cfg.LogKey, all)
	if err != nil {
		return nil, false, err
	}
	byName := map[string]string{}
	for _, w := range pol.Witnesses {
		byName[w.Name] = fmt.Sprintf("%s+%08x", w.Key.Name(), w.Key.KeyHash())
	}
	for _, c := range cp.Witnesses {
		keys = append(keys, byName[c.Name])
	}
	for _, c := range cp.NotCounted {
		keys = append(keys, byName[c.Name])
	}
	_, err = offline.VerifyCheckpoint(raw, r.origin, r.cfg.LogKey, trust)
	return keys, err == nil, nil
}

// consistent checks that the tree (size1, root1) is a prefix of (size2,
// root2), with a consistency proof built from src's tiles of the larger
// tree. An error that is a *SourceError means a tile could not be read.
func consistent(ctx context.Context, src Source, size1 uint64, root1 []byte, size2 uint64, root2 []byte) error {
	if size1 > size2 {
		return fmt.Errorf("tree of size %d is larger than %d", size1, size2)
	}
	if size1 == size2 {
		if !bytes.Equal(root1, root2) {
			return fmt.Errorf("two root hashes for tree size %d", size1)
		}
		return nil
	}
	if size1 == 0 {
		return nil
	}
	var fetchErr error
	f := tileFetcher(src)
	pb, err := client.NewProofBuilder(ctx, size2, func(ctx context.Context, l, i uint64, p uint8) ([]byte, error) {
		b, err := f(ctx, l, i, p)
		if err != nil && fetchErr == nil {
			fetchErr = err
		}
		return b, err
	})
	if err != nil {
		return err
	}
	p, err := pb.ConsistencyProof(ctx, size1, size2)
	if fetchErr != nil {
		return fetchErr
	}
	if err != nil {
		return fmt.Errorf("building the consistency proof from %d to %d: %v", size1, size2, err)
	}
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, size1, size2, p, root1, root2); err != nil {
		return fmt.Errorf("consistency proof from %d to %d does not verify: %v", size1, size2, err)
	}
	return nil
}

var rangeFactory = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// read reads the entries of target from st.Next on, chunk by chunk.
func (r *run) read(ctx context.Context, target *view, st *State) error {
	hashes, err := st.rangeHashes()
	if err != nil {
		return err
	}
	rng, err := rangeFactory.NewRange(0, st.Next, hashes)
	if err != nil {
		return fmt.Errorf("state: entry range: %v", err)
	}
	accept := func() {
		st.Checkpoint, st.Tree = string(target.raw), target.head
	}
	if st.Next == target.head.Size {
		if st.Tree != target.head || st.Checkpoint == "" {
			accept()
			return r.sf.save(st, r.old, r.cfg.Now())
		}
		return nil
	}
	chunk := uint64(r.cfg.ChunkBundles) * layout.EntryBundleWidth
	for st.Next < target.head.Size {
		if err := ctx.Err(); err != nil {
			return nil
		}
		end := min((st.Next/chunk+1)*chunk, target.head.Size)
		pending, counts, reached, err := r.readChunk(ctx, target, rng, st.Next, end)
		if err == nil {
			end = reached
		}
		if err == nil {
			var root []byte
			root, err = rng.GetRootHash(nil)
			if err == nil {
				err = consistent(ctx, target.src, end, root, target.head.Size, target.root)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				// Interrupted (a signal, the caller's deadline) while reading:
				// nothing was found about the log. The state stays at the
				// last chunk that verified, where the next run resumes.
				return nil
			}
			return r.alert(&Alert{Kind: KindTiles, Source: target.src.Name(), Checkpoint: &target.head,
				Message: fmt.Sprintf("entries %d to %d do not verify against the checkpoint: %v", st.Next, end-1, err)})
		}
		for _, a := range pending {
			if err := r.alert(a); err != nil {
				return err
			}
		}
		accept()
		st.Next = end
		st.Range = st.Range[:0]
		for _, h := range rng.Hashes() {
			st.Range = append(st.Range, base64.StdEncoding.EncodeToString(h))
		}
		st.Entries += counts.entries
		st.Watched += counts.watched
		st.Alerts += uint64(len(pending))
		r.res.Entries += counts.entries
		r.res.Watched += counts.watched
		r.res.Unattributed += counts.unattributed
		if err := r.sf.save(st, r.old, r.cfg.Now()); err != nil {
			return err
		}
	}
	return nil
}

type counts struct{ entries, watched, unattributed uint64 }

// readChunk reads entries [from, end) of target into rng and judges them;
// the alerts are returned, to be raised once the chunk verifies, with the
// end of the entries read: end, or the end of the bundle in which the
// alerts reached MaxChunkAlerts. On error rng may hold part of the chunk:
// the caller stops.
func (r *run) readChunk(ctx context.Context, target *view, rng *compact.Range, from, end uint64) ([]*Alert, counts, uint64, error) {
	var pending []*Alert
	var c counts
	for idx := from / layout.EntryBundleWidth; idx*layout.EntryBundleWidth < end; idx++ {
		if len(pending) >= MaxChunkAlerts {
			return pending, c, idx * layout.EntryBundleWidth, nil
		}
		p := layout.PartialTileSize(0, idx, target.head.Size)
		width := int(p)
		if width == 0 {
			width = layout.EntryBundleWidth
		}
		raw, err := target.src.ReadEntryBundle(ctx, idx, p)
		if err != nil {
			return nil, c, 0, err
		}
		entries, err := ParseEntryBundle(raw, width)
		if err != nil {
			return nil, c, 0, fmt.Errorf("%s: %v", layout.EntriesPath(idx, p), err)
		}
		first := idx * layout.EntryBundleWidth
		// The entries are decoded from one string of the whole bundle, each
		// a substring (text), rather than one copy per entry: the entries
		// lie one after the other, each after its 2-byte length.
		bundle, off := string(raw), 0
		for i, data := range entries {
			n := first + uint64(i)
			off += 2
			text := bundle[off : off+len(data)]
			off += len(data)
			if n < from || n >= end {
				continue
			}
			leaf := rfc6962.DefaultHasher.HashLeaf(data)
			if err := rng.Append(leaf, nil); err != nil {
				return nil, c, 0, err
			}
			c.entries++
			if a := r.judge(n, leaf, text, &c); a != nil {
				a.Source, a.Checkpoint = target.src.Name(), &target.head
				pending = append(pending, a)
			}
		}
	}
	return pending, c, end, nil
}

// judge decides one entry.
func (r *run) judge(n uint64, leaf []byte, data string, c *counts) *Alert {
	e, err := DecodeEntry(data)
	if err != nil {
		sum := sha256.Sum256([]byte(data))
		return &Alert{Kind: KindEntryUndecodable, Entry: &EntryInfo{Index: n, LeafHash: hex.EncodeToString(leaf)},
			Message: fmt.Sprintf("entry %d (%d bytes, sha256 %x) cannot be decoded: %v", n, len(data), sum[:8], err)}
	}
	rule := r.cfg.Watch.Match(e)
	if rule == "" {
		return nil // most entries: nothing more is built for them
	}
	c.watched++
	info := &EntryInfo{Index: n, LeafHash: hex.EncodeToString(leaf), Watch: rule,
		Subject: e.Subject.Name, SubjectSha256: e.Subject.Sha256, EvidenceBundleDigest: e.EvidenceBundleDigest, Signers: e.Signers}
	if r.cfg.Authoriser == nil {
		return &Alert{Kind: KindWatchedEntry, Entry: info,
			Message: fmt.Sprintf("new evidence about %q (%s) was logged", e.Subject.Name, rule)}
	}
	err = r.cfg.Authoriser.Authorise(e)
	var un *UnattributedError
	switch {
	case errors.As(err, &un) && !r.cfg.RequireSigners:
		c.unattributed++
		return nil
	case errors.As(err, &un):
		return &Alert{Kind: KindUnattributedEntry, Entry: info,
			Message: fmt.Sprintf("evidence about %q (%s) was logged naming no signer: %v", e.Subject.Name, rule, err)}
	case err != nil:
		return &Alert{Kind: KindUnauthorisedEntry, Entry: info,
			Message: fmt.Sprintf("evidence about %q (%s) signed by a signer the policy does not authorise: %v", e.Subject.Name, rule, err)}
	}
	return nil
}

// Follow is the follow mode of `mcpres log monitor`: it calls [Run], then
// after with its result, and again every interval, until ctx is done
// (nil) or after returns false (nil), or a run fails (its error: the
// monitor cannot work). Each run is a whole [Run]: it locks the state,
// resumes from it and releases it, so another monitor may run between
// two.
func Follow(ctx context.Context, cfg Config, sources []Source, emit func(*Alert) error, interval time.Duration, after func(*Result) bool) error {
	if interval <= 0 {
		return errors.New("monitor: the interval must be positive")
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		res, err := Run(ctx, cfg, sources, emit)
		if err != nil {
			return err
		}
		if !after(res) {
			return nil
		}
		t.Reset(interval)
	}
}
