package tlog

import (
	"context"
	"errors"
	"time"

	"github.com/transparency-dev/tessera"
)

// A CheckpointPublisher is a Storage that publishes the checkpoints of an
// open [Appender] itself, because its driver's own publisher runs late:
// Tessera v1.0.4's MySQL driver tries on a ticker of the checkpoint
// interval and refuses when less than an interval has passed since the
// last publication, which it recorded a few milliseconds after the tick,
// so every other tick fails and a busy log publishes every two intervals
// (tlog/mysql). While an Appender is open, [Log.NewAppender] runs
// PublishCheckpoints with the appender's Tessera options (their checkpoint
// signer and interval) until the appender closes; it publishes each grown
// tree as soon as the interval allows, through the same exclusion as the
// driver's publisher.
type CheckpointPublisher interface {
	PublishCheckpoints(ctx context.Context, opts *tessera.AppendOptions)
}

// WitnessRounds is a Storage that several processes may serve at once
// (tlog/mysql): it has the witnessing of each checkpoint happen once, in
// one of them, rather than once per process.
type WitnessRounds interface {
	// WitnessRound runs round, excluded against the rounds of every
	// process serving the storage, unless a round that witnessed a
	// checkpoint of at least size already ran; it reports whether round
	// ran. round returns the size it witnessed. It waits at most wait for
	// another process's round to end.
	WitnessRound(ctx context.Context, size uint64, wait time.Duration, round func(context.Context) (uint64, error)) (bool, error)
}

// A ServeLocker is a Storage that one process at a time may serve (a log
// directory: its deduplication index lives in one process's memory).
// LockServing takes that exclusion at once or fails, with an error
// matching ErrServed when another process has it, or ErrServerStopping
// when the process that has it said it is stopping (ServeLock.Stopping):
// a server started while the previous one finishes its submissions can
// then wait for it rather than refuse.
type ServeLocker interface {
	LockServing() (ServeLock, error)
}

// A ServeLock is the exclusion ServeLocker.LockServing gave.
type ServeLock interface {
	// Stopping tells other processes that this one is stopping: their
	// LockServing fails with ErrServerStopping instead of ErrServed
	// until Release. It may be called more than once.
	Stopping()
	// Release ends the exclusion.
	Release() error
}

// ErrServed is matched by the error of ServeLocker.LockServing when
// another process serves the storage.
var ErrServed = errors.New("served by another process")

// ErrServerStopping is matched by the error of ServeLocker.LockServing
// when the process that serves the storage is stopping.
var ErrServerStopping = errors.New("served by another process that is stopping")

// A PublisherExclusion is a Storage that says whether its
// ReplaceCheckpoint is excluded against Tessera's publisher of this
// process (tlog/posix: only with open-file-description locks). One that is
// not cannot have cosignatures attached while an [Appender] of this
// process is open: [Appender.UpdateCheckpoint] refuses rather than races.
type PublisherExclusion interface {
	ExcludesOwnPublisher() bool
}

// A CheckpointIntervalFloor is a Storage whose driver publishes no more
// often than MinCheckpointInterval (tlog/mysql): an [Appender]'s
// checkpoint interval is at least that.
type CheckpointIntervalFloor interface {
	MinCheckpointInterval() time.Duration
}

// A BatchAgeFloor is a Storage on which batches younger than
// MinBatchMaxAge gain nothing (a driver that publishes seldom: only more
// integration transactions; tlog/mysql): an [Appender]'s BatchMaxAge is
// at least that.
type BatchAgeFloor interface {
	MinBatchMaxAge() time.Duration
}
