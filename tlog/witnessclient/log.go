package witnessclient

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/tessera/client"
)

// A Log is the log whose checkpoint is cosigned: a *tlog.Log (one-shot
// commands), or the *tlog.Appender of a running log (log serve), whose
// UpdateCheckpoint does not wait for the appender to close.
type Log interface {
	Checkpoint(ctx context.Context) (*signednote.Checkpoint, error)
	UpdateCheckpoint(ctx context.Context, update func(cp *signednote.Checkpoint) ([]byte, error)) (*signednote.Checkpoint, error)
}

var (
	_ Log = (*tlog.Log)(nil)
	_ Log = (*tlog.Appender)(nil)
)

// WitnessLog asks the witnesses to cosign the published checkpoint of lg
// (whose key is logKey; readTile reads its hash tiles) and attaches the
// cosignatures obtained with lg.UpdateCheckpoint, through witness.Attach,
// which verifies each again and keeps one per key. Only the witnesses
// whose cosignature the checkpoint does not carry yet are asked
// ([Client.Missing]; the others are Result.Present): a new checkpoint asks
// them all, and asking again for one that was under-cosigned (a witness
// was down) asks only those missing, so that a fresh, re-witnessed proof
// can be had for an entry already logged. It returns the checkpoint as
// published afterwards and what each witness did. With no cosignature
// obtained, the checkpoint is left as it is. It fails with
// tlog.ErrCheckpointChanged (wrapped) when the log published another
// checkpoint meanwhile.
//
// This is the hook a long-running log calls after each new checkpoint
// (tlog.AppenderOptions.OnCheckpoint, with the appender as lg).
func (c *Client) WitnessLog(ctx context.Context, lg Log, logKey *signednote.Verifier, readTile client.TileFetcherFunc) (*signednote.Checkpoint, *Result, error) {
	cp, err := lg.Checkpoint(ctx)
	if err != nil {
		return nil, nil, err
	}
	ask := c.missing(cp, logKey)
	var present []string
	for _, r := range c.remotes {
		if !slices.Contains(ask, r) {
			present = append(present, r.Name)
		}
	}
	if len(ask) == 0 {
		return cp, &Result{Present: present}, nil
	}
	res, err := c.askAll(ctx, cp.Note, logKey, TileProofs(readTile), ask)
	if err != nil {
		return nil, nil, err
	}
	res.Present = present
	if len(res.Cosignatures) == 0 {
		return cp, res, nil
	}
	keys := make([]*signednote.Verifier, len(c.remotes))
	for i, r := range c.remotes {
		keys[i] = r.Key
	}
	ncp, err := lg.UpdateCheckpoint(ctx, func(cur *signednote.Checkpoint) ([]byte, error) {
		if cur.Text != cp.Text {
			return nil, fmt.Errorf("%w: size %d was cosigned, size %d is published", tlog.ErrCheckpointChanged, cp.Size, cur.Size)
		}
		a, err := witness.Attach(cur.Note, logKey, keys, res.Cosignatures)
		if err != nil {
			return nil, err
		}
		return a.Checkpoint, nil
	})
	if err != nil {
		return nil, res, err
	}
	return ncp, res, nil
}
