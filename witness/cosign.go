package witness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"
)

// Refusals. Each is wrapped with the numbers that triggered it; test with
// errors.Is. Every refusal also matches ErrRefused: the log misbehaved or
// the input is not this log's, as opposed to an error reading the log.
var (
	ErrRefused       = errors.New("witness: refused")
	ErrBadCheckpoint = fmt.Errorf("%w: the checkpoint does not verify with the log key", ErrRefused)
	ErrRollback      = fmt.Errorf("%w: the log went backwards", ErrRefused)
	ErrFork          = fmt.Errorf("%w: the log forked", ErrRefused)
)

// TileHeight is the tile height of C2SP tlog-tiles logs.
const TileHeight = 8

// maxTileBytes is the size of a full tile.
const maxTileBytes = (1 << TileHeight) * sha256.Size

// A LogReader reads a tlog-tiles log. tessera/client.FileFetcher and
// tessera/client.HTTPFetcher satisfy it.
type LogReader interface {
	// ReadCheckpoint returns the latest checkpoint note.
	ReadCheckpoint(ctx context.Context) ([]byte, error)
	// ReadTile returns the hash tile at tile level and index of width p
	// (0: full), or the full tile when the partial one is gone. The bytes
	// are not trusted: CosignCheckpoint authenticates them.
	ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
}

// A LogState is what a witness remembers of one log: the tree it last
// cosigned.
type LogState struct {
	Origin string
	Size   uint64
	Hash   signednote.Hash // the root hash
}

// A Cosignature is the result of CosignCheckpoint.
type Cosignature struct {
	// Checkpoint is the checkpoint cosigned, as read and authenticated.
	Checkpoint *signednote.Checkpoint
	// Line is the cosignature/v1 signature line, "— NAME BASE64\n": what
	// a witness returns to the log (C2SP tlog-witness).
	Line []byte
	// Time is the cosignature's timestamp.
	Time time.Time
	// State is the new state to record before Line is published.
	State LogState
	// From is the recorded state the checkpoint was checked against, nil
	// on first use.
	From *LogState
	// ConsistencyProof is the proof from From to the checkpoint that was
	// verified (empty when the sizes are equal or on first use).
	ConsistencyProof [][]byte
}

// CosignCheckpoint reads the latest checkpoint of the log through r, authenticates it
// with logKey (whose name is the log's origin), checks it against prev (the
// state recorded for this log, nil on first use), and returns a
// cosignature/v1 line signed by w at time now. See the package
// documentation for the refusals.
//
// prev, when given, must be for logKey's origin. A checkpoint equal to prev
// is cosigned again (with the new time). Errors that do not wrap ErrRefused
// are failures to read the log or to build the proof: nothing was decided.
func CosignCheckpoint(ctx context.Context, r LogReader, logKey *signednote.Verifier, w *signednote.WitnessSigner, prev *LogState, now time.Time) (*Cosignature, error) {
	origin := logKey.Name()
	if prev != nil && prev.Origin != origin {
		return nil, fmt.Errorf("witness: the recorded state is for log %q, not %q", prev.Origin, origin)
	}
	data, err := r.ReadCheckpoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("witness: reading the checkpoint of %q: %w", origin, err)
	}
	cp, err := signednote.Open(data, logKey)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	if cp.Size == 0 && !bytes.Equal(cp.Hash[:], rfc6962.DefaultHasher.EmptyRoot()) {
		return nil, fmt.Errorf("%w: checkpoint of size 0 with root %s, not the empty tree's", ErrBadCheckpoint, cp.Hash)
	}
	if cp.Size > MaxTreeSize {
		return nil, fmt.Errorf("%w: checkpoint size %d is larger than %d, the largest a witness records", ErrBadCheckpoint, cp.Size, uint64(MaxTreeSize))
	}
	var cproof [][]byte
	if prev != nil {
		switch {
		case cp.Size < prev.Size:
			return nil, fmt.Errorf("%w: checkpoint size %d is smaller than the size %d this witness cosigned for %q",
				ErrRollback, cp.Size, prev.Size, origin)
		case cp.Size == prev.Size:
			if cp.Hash != prev.Hash {
				return nil, fmt.Errorf("%w: checkpoint of %q at size %d has root %s, but this witness cosigned root %s at that size",
					ErrFork, origin, cp.Size, cp.Hash, prev.Hash)
			}
		case prev.Size == 0:
			// Every tree extends the empty tree.
			if !bytes.Equal(prev.Hash[:], rfc6962.DefaultHasher.EmptyRoot()) {
				return nil, fmt.Errorf("%w: the recorded tree of size 0 of %q has root %s, not the empty tree's", ErrFork, origin, prev.Hash)
			}
		default:
			tr := &tileReader{ctx: ctx, r: r}
			hr := tlog.TileHashReader(tlog.Tree{N: int64(cp.Size), Hash: tlog.Hash(cp.Hash)}, tr)
			p, err := tlog.ProveTree(int64(cp.Size), int64(prev.Size), hr)
			if err != nil {
				if tr.err != nil {
					err = tr.err
				}
				return nil, fmt.Errorf("witness: building the consistency proof of %q from size %d to %d from its tiles: %w",
					origin, prev.Size, cp.Size, err)
			}
			cproof = make([][]byte, len(p))
			for i := range p {
				cproof[i] = bytes.Clone(p[i][:])
			}
			if err := proof.VerifyConsistency(rfc6962.DefaultHasher, prev.Size, cp.Size, cproof, prev.Hash[:], cp.Hash[:]); err != nil {
				return nil, fmt.Errorf("%w: %q at size %d (root %s) is not an extension of the tree this witness cosigned at size %d (root %s): consistency proof: %v",
					ErrFork, origin, cp.Size, cp.Hash, prev.Size, prev.Hash, err)
			}
		}
	}
	return sign(cp, w, prev, cproof, now)
}

// tileReader reads tlog-tiles hash tiles for sumdb/tlog's TileHashReader,
// which authenticates them against the tree's root before use.
type tileReader struct {
	ctx context.Context
	r   LogReader
	err error // the first read error, with the tile's path
}

func (t *tileReader) Height() int { return TileHeight }

func (t *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		if tile.H != TileHeight || tile.L < 0 || tile.W < 1 || tile.W > 1<<TileHeight {
			return nil, fmt.Errorf("witness: unexpected tile %+v", tile)
		}
		p := uint8(0)
		if tile.W < 1<<TileHeight {
			p = uint8(tile.W)
		}
		data, err := t.r.ReadTile(t.ctx, uint64(tile.L), uint64(tile.N), p)
		if err != nil {
			t.err = fmt.Errorf("reading tile level %d index %d width %d: %w", tile.L, tile.N, tile.W, err)
			return nil, t.err
		}
		want := tile.W * sha256.Size
		// A full tile may stand in for a partial one that was removed: its
		// first W hashes are the partial tile.
		if len(data) < want || len(data) > maxTileBytes || len(data)%sha256.Size != 0 {
			t.err = fmt.Errorf("tile level %d index %d width %d is %d bytes, want %d", tile.L, tile.N, tile.W, len(data), want)
			return nil, t.err
		}
		out[i] = data[:want]
	}
	return out, nil
}

func (t *tileReader) SaveTiles([]tlog.Tile, [][]byte) {}
