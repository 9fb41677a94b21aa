package mysql

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/tessera"
)

// publishPoll is how often the publisher looks for a grown tree while the
// checkpoint is current, and publishMargin what it adds to the time a
// publication becomes due (published_at is kept in milliseconds).
const (
	publishPoll   = 25 * time.Millisecond
	publishMargin = 2 * time.Millisecond
)

// PublishCheckpoints publishes a checkpoint of the integrated tree each
// time it has grown and the checkpoint interval has passed since the last
// publication, until ctx is done (tlog.CheckpointPublisher).
//
// Tessera v1.0.4's MySQL driver publishes from a ticker of the checkpoint
// interval (and after each batch it integrates), and skips when less than
// an interval has passed since the published_at it recorded, a few
// milliseconds after the previous tick: so every other tick is skipped,
// and under a steady load whose batches all land early in the interval a
// checkpoint comes every two seconds instead of every second (measured:
// 2.2 s between checkpoints at 1,024 clients). This publisher wakes when
// the next publication is due. It takes the driver's locks in the driver's
// order (the Checkpoint row, then the TreeState row, both FOR UPDATE) and
// applies the driver's interval rule, so the two never publish twice
// within an interval, in this process or across the processes serving the
// database; an unchanged tree is never signed again (that the driver
// still does, every interval: see [Storage.ReadCheckpoint]).
func (s *Storage) PublishCheckpoints(ctx context.Context, opts *tessera.AppendOptions) {
	sign := opts.CheckpointPublisher(s.ts, http.DefaultClient)
	interval := opts.CheckpointInterval()
	for {
		wait, err := s.publishIfDue(ctx, interval, sign)
		if err != nil {
			wait = publishPoll // the database is away: try again soon
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// publishIfDue publishes the integrated tree if it is larger than the
// published checkpoint's and interval has passed since that was published,
// and returns how long to wait before the next try.
func (s *Storage) publishIfDue(ctx context.Context, interval time.Duration, sign func(context.Context, uint64, []byte) ([]byte, error)) (time.Duration, error) {
	var note []byte
	var at int64
	var size uint64
	err := s.db.QueryRowContext(ctx, "SELECT c.`note`, c.`published_at`, t.`size` FROM `Checkpoint` c, `TreeState` t WHERE c.`id` = 0 AND t.`id` = 0").Scan(&note, &at, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return publishPoll, nil // no log yet
	}
	if err != nil {
		return 0, err
	}
	if cs, ok := signednote.UnverifiedSize(note); ok && size <= cs {
		return publishPoll, nil
	}
	if since := time.Since(time.UnixMilli(at)); since < interval {
		return interval - since + publishMargin, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT `note`, `published_at` FROM `Checkpoint` WHERE `id` = 0 FOR UPDATE").Scan(&note, &at); err != nil {
		return 0, err
	}
	if since := time.Since(time.UnixMilli(at)); since < interval {
		return interval - since + publishMargin, nil // another publisher was first
	}
	var root []byte
	if err := tx.QueryRowContext(ctx, "SELECT `size`, `root` FROM `TreeState` WHERE `id` = 0 FOR UPDATE").Scan(&size, &root); err != nil {
		return 0, err
	}
	if cs, ok := signednote.UnverifiedSize(note); ok && size <= cs {
		return publishPoll, nil
	}
	cp, err := sign(ctx, size, root)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "REPLACE INTO `Checkpoint` (`id`, `note`, `published_at`) VALUES (0, ?, ?)", cp, time.Now().UnixMilli()); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return interval + publishMargin, nil
}
