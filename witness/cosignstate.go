package witness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/signednote"
)

// ErrUnknownLog is matched (errors.Is) by the error of [CosignCheckpointWithState]
// for a log the state has no record of (or a missing state file) when
// trust on first use was not asked for: nothing was cosigned.
var ErrUnknownLog = errors.New("witness: the log is not witnessed yet")

// A StateWriteError is a state that could not be recorded: nothing was
// cosigned. Err is atomicfile's error.
type StateWriteError struct {
	Path string
	Err  error
}

func (e *StateWriteError) Error() string {
	return fmt.Sprintf("witness: recording the state %s: %v", e.Path, e.Err)
}

func (e *StateWriteError) Unwrap() error { return e.Err }

// StateOptions configure [CosignCheckpointWithState].
type StateOptions struct {
	// LockWait is how long to wait for the state's lock held by another
	// process ([LockStateFile]).
	LockWait time.Duration
	// TrustOnFirstUse accepts a log the state has no record of (or a
	// missing state file): its current checkpoint is trusted on first
	// use. It never overrides a recorded state.
	TrustOnFirstUse bool
}

// CosignCheckpointWithState is [CosignCheckpoint] against the state recorded in the state file
// at statePath, the way `mcpres witness cosign` runs: the state's lock is
// held from before the state is read until after it is written, so
// witnesses sharing a state file take turns; a log the state does not know
// is accepted only with opts.TrustOnFirstUse (else an error matching
// [ErrUnknownLog]); and the new state is recorded before the cosignature
// is returned (a *[StateWriteError] if it cannot be), so a cosignature is
// never published for a tree the state does not hold. A refusal matches
// [ErrRefused] and changes nothing.
func CosignCheckpointWithState(ctx context.Context, r LogReader, logKey *signednote.Verifier, w *signednote.WitnessSigner, statePath string, opts StateOptions, now time.Time) (*Cosignature, error) {
	sf, err := LockStateFile(statePath, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer sf.Unlock()
	origin := logKey.Name()
	s, err := sf.Read()
	if err != nil {
		return nil, err
	}
	switch {
	case s == nil && !opts.TrustOnFirstUse:
		return nil, fmt.Errorf("%w: witness state %s does not exist", ErrUnknownLog, statePath)
	case s == nil:
		s = &State{}
	case s.Get(origin) == nil && !opts.TrustOnFirstUse:
		return nil, fmt.Errorf("%w: witness state %s has no record of log %s", ErrUnknownLog, statePath, origin)
	}
	c, err := CosignCheckpoint(ctx, r, logKey, w, s.Get(origin), now)
	if err != nil {
		return nil, err
	}
	s.Put(c.State)
	if err := sf.Write(s); err != nil {
		return nil, &StateWriteError{Path: statePath, Err: err}
	}
	return c, nil
}
