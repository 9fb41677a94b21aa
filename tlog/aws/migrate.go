package aws

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
)

// migrationSchema records a migration into the database from its start:
// while it is unfinished, Open refuses the bucket and database (neither
// 'log init' nor 'log serve' may start a second log on them), and only
// Migrate with the same source resumes it.
const migrationSchema = "CREATE TABLE IF NOT EXISTS `mcpresMigration` (`id` TINYINT UNSIGNED NOT NULL, `origin` VARCHAR(1024) NOT NULL, `size` BIGINT UNSIGNED NOT NULL, `root` BINARY(32) NOT NULL, `done` BOOLEAN NOT NULL, PRIMARY KEY(`id`))"

// ErrMigrating is matched by Open's error while a migration into the
// bucket and database is unfinished.
var ErrMigrating = errors.New("a migration into this bucket and database is unfinished: run 'mcpres log migrate' again with the same source to finish it")

// A MigrationPlan is what Migrate would do (PlanMigration) or did.
type MigrationPlan struct {
	// Origin, Size and Root are the source log's, from its checkpoint.
	Origin string
	Size   uint64
	Root   [32]byte
	// Integrated is how many entries the destination's tree already has
	// (a resumed migration), Done whether the migration finished before.
	Integrated uint64
	Done       bool
	// Bundles is how many entry bundles the source has.
	Bundles uint64
}

// PlanMigration reads, and writes nothing: the source log's checkpoint
// (authenticated with key) and the destination's state. It fails when
// the destination holds another log or another migration, or a log
// already grown past the migration.
func PlanMigration(ctx context.Context, src tlog.Storage, key *signednote.Verifier, cfg *Config) (*MigrationPlan, error) {
	s, err := openRaw(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	_, plan, err := s.plan(ctx, src, key)
	return plan, err
}

// Migrate copies the log in src (a log kept by another driver, e.g.
// tlog/mysql's) into the bucket and database cfg names, keeping its
// origin, size and root hash: every entry bundle is copied, Tessera's AWS
// driver rebuilds the tiles from them and checks the root hash, every
// bundle in the bucket is compared byte for byte with the source's, an
// inclusion proof of the last entry from the bucket's tiles is verified
// against the source checkpoint, and the source's signed checkpoint (with
// its cosignatures) is published as is: nothing is signed again. The log
// key is recorded in the database. Stop writing to the source first: the
// size migrated is the source's checkpoint at the start.
//
// It is resumable: the migration is recorded in the database when it
// starts (until it ends, Open refuses the destination), and a second run
// with the same source goes on from what the destination integrated. A
// destination that holds another log, another migration, or this log
// grown past the source, is refused.
func Migrate(ctx context.Context, src tlog.Storage, key *signednote.Verifier, cfg *Config) (*MigrationPlan, error) {
	s, err := openRaw(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	srcCP, plan, err := s.plan(ctx, src, key)
	if err != nil {
		return nil, err
	}
	if plan.Done {
		return plan, nil
	}
	if _, err := s.db.ExecContext(ctx, migrationSchema); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, "INSERT IGNORE INTO `mcpresMigration` (`id`, `origin`, `size`, `root`, `done`) VALUES (0, ?, ?, ?, FALSE)", plan.Origin, plan.Size, plan.Root[:]); err != nil {
		return nil, fmt.Errorf("database: recording the migration: %w", err)
	}
	if _, _, err := s.migration(ctx, plan); err != nil { // another run recorded another source meanwhile
		return nil, err
	}
	if s.state, err = openState(ctx, s.db); err != nil {
		return nil, err
	}
	if rec, err := s.RecordedKey(ctx); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	} else if rec == "" {
		if err := s.RecordKey(ctx, key.String()); err != nil {
			return nil, fmt.Errorf("database: recording the log key: %w", err)
		}
	} else if rec != key.String() {
		return nil, &tlog.KeyMismatchError{Key: key.String(), Recorded: rec, Where: s.String()}
	}
	drv, err := s.Driver(ctx)
	if err != nil {
		return nil, err
	}
	mt, err := tessera.NewMigrationTarget(ctx, drv, tessera.NewMigrationOptions())
	if err != nil {
		return nil, fmt.Errorf("opening Tessera's migration target: %w", err)
	}
	size := plan.Size
	fetch := func(ctx context.Context, idx uint64, p uint8) ([]byte, error) {
		b, err := src.ReadEntryBundle(ctx, idx, p)
		if err != nil {
			return nil, err
		}
		return trimBundle(b, p)
	}
	if size > 0 {
		if err := mt.Migrate(ctx, 4, size, plan.Root[:], fetch); err != nil {
			return nil, fmt.Errorf("migrating: %w", err)
		}
	}
	// Re-verify from the bucket: every bundle, and a proof from its tiles.
	for ri := range layout.Range(0, size, size) {
		want, err := fetch(ctx, ri.Index, ri.Partial)
		if err != nil {
			return nil, fmt.Errorf("re-reading source bundle %d: %w", ri.Index, err)
		}
		got, err := s.get(ctx, layout.EntriesPath(ri.Index, ri.Partial))
		if err != nil {
			return nil, fmt.Errorf("re-verifying: %w", err)
		}
		if !bytes.Equal(got, want) {
			return nil, fmt.Errorf("re-verifying: entry bundle %d in the bucket differs from the source's", ri.Index)
		}
	}
	if size > 0 {
		pb, err := client.NewProofBuilder(ctx, size, s.ReadTile)
		if err != nil {
			return nil, fmt.Errorf("re-verifying the bucket's tiles: %w", err)
		}
		if _, err := pb.InclusionProof(ctx, size-1); err != nil {
			return nil, fmt.Errorf("re-verifying the bucket's tiles: %w", err)
		}
		st := tlog.Open(s, key)
		if _, err := s.putIfNone(ctx, layout.CheckpointPath, srcCP); err != nil {
			return nil, err
		}
		p, err := st.Proof(ctx, size-1)
		if err != nil {
			return nil, fmt.Errorf("re-verifying the last entry against the bucket: %w", err)
		}
		if p.Checkpoint.Size != size || p.Checkpoint.Hash != plan.Root {
			return nil, fmt.Errorf("re-verifying: the bucket's checkpoint is of size %d, root %x", p.Checkpoint.Size, p.Checkpoint.Hash)
		}
	} else if _, err := s.putIfNone(ctx, layout.CheckpointPath, srcCP); err != nil {
		return nil, err
	}
	// Tessera's publisher: the published tree is the source's, so it
	// signs nothing until the log grows. Tessera v1.0.4's migration
	// target integrates without advancing its sequencer (SeqCoord.next
	// stays 0): the next entry would be sequenced below the tree's size
	// (found by TestMigrateFromMySQL as integration pushback: the
	// outstanding count underflows), so the sequencer starts at the size.
	if _, err := s.db.ExecContext(ctx, "UPDATE PubCoord SET publishedAt = UNIX_TIMESTAMP(), size = ? WHERE id = 0", size); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE SeqCoord SET next = GREATEST(next, ?) WHERE id = 0", size); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE `mcpresMigration` SET `done` = TRUE WHERE `id` = 0"); err != nil {
		return nil, fmt.Errorf("database: recording the end of the migration: %w", err)
	}
	plan.Integrated, plan.Done = size, true
	return plan, nil
}

// plan reads the source's checkpoint and the destination's state.
func (s *Storage) plan(ctx context.Context, src tlog.Storage, key *signednote.Verifier) ([]byte, *MigrationPlan, error) {
	raw, err := src.ReadCheckpoint(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("the source's checkpoint: %w", err)
	}
	cp, err := signednote.Open(raw, key)
	if err != nil {
		return nil, nil, fmt.Errorf("the source's checkpoint: %w", err)
	}
	plan := &MigrationPlan{Origin: cp.Origin, Size: cp.Size, Root: cp.Hash, Bundles: (cp.Size + layout.EntryBundleWidth - 1) / layout.EntryBundleWidth}
	recorded, done, err := s.migration(ctx, plan)
	if err != nil {
		return nil, nil, err
	}
	plan.Done = done
	if plan.Integrated, err = s.integrated(ctx); err != nil {
		return nil, nil, err
	}
	dst, err := s.ReadCheckpoint(ctx)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if plan.Integrated > 0 && !recorded {
			return nil, nil, fmt.Errorf("%w: the database's tree has %d entries and no migration is recorded", ErrMismatch, plan.Integrated)
		}
	case err != nil:
		return nil, nil, err
	default:
		dcp, err := signednote.Open(dst, key)
		if err != nil {
			return nil, nil, fmt.Errorf("%s already holds another log (its checkpoint: %v): refused", s, err)
		}
		if !recorded || dcp.Size != cp.Size || dcp.Hash != cp.Hash {
			return nil, nil, fmt.Errorf("%s already holds log %s at size %d: refused (a migration goes into an empty bucket and database)", s, dcp.Origin, dcp.Size)
		}
	}
	if plan.Integrated > plan.Size {
		return nil, nil, fmt.Errorf("%w: the database's tree has %d entries, the source %d", ErrMismatch, plan.Integrated, plan.Size)
	}
	return raw, plan, nil
}

// migration reads the recorded migration: whether one is recorded and
// done. One recorded for another source is refused.
func (s *Storage) migration(ctx context.Context, plan *MigrationPlan) (recorded, done bool, err error) {
	var origin string
	var size uint64
	var root []byte
	err = s.db.QueryRowContext(ctx, "SELECT `origin`, `size`, `root`, `done` FROM `mcpresMigration` WHERE `id` = 0").Scan(&origin, &size, &root, &done)
	var me *gomysql.MySQLError
	if errors.Is(err, sql.ErrNoRows) || errors.As(err, &me) && me.Number == errNoSuchTable {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("database: reading the recorded migration: %w", err)
	}
	if plan != nil && (origin != plan.Origin || size != plan.Size || !bytes.Equal(root, plan.Root[:])) {
		return false, false, fmt.Errorf("%s: a migration of log %s at size %d is recorded there, not of this source (%s at size %d): refused", s, origin, size, plan.Origin, plan.Size)
	}
	return true, done, nil
}

// integrated is the size of the database's tree (0 for a new database).
func (s *Storage) integrated(ctx context.Context) (uint64, error) {
	var seq uint64
	err := s.db.QueryRowContext(ctx, "SELECT `seq` FROM `IntCoord` WHERE `id` = 0").Scan(&seq)
	var me *gomysql.MySQLError
	if errors.Is(err, sql.ErrNoRows) || errors.As(err, &me) && me.Number == errNoSuchTable {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("database: reading the tree state: %w", err)
	}
	return seq, nil
}

// errNoSuchTable is MySQL's ER_NO_SUCH_TABLE.
const errNoSuchTable = 1146

// putIfNone creates key with data unless it exists; an existing object
// must hold data. It reports whether it created it.
func (s *Storage) putIfNone(ctx context.Context, key string, data []byte) (bool, error) {
	_, err := s.s3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: sdkaws.String(s.cfg.Bucket), Key: sdkaws.String(key), Body: bytes.NewReader(data),
		IfNoneMatch: sdkaws.String("*"), ContentType: sdkaws.String("text/plain; charset=utf-8"), CacheControl: sdkaws.String("no-cache"),
	})
	if err == nil {
		return true, nil
	}
	if !refusedPrecondition(err) {
		return false, fmt.Errorf("bucket %s: writing %s: %w", s.cfg.Bucket, key, err)
	}
	cur, err := s.get(ctx, key)
	if err != nil {
		return false, err
	}
	if !bytes.Equal(cur, data) {
		return false, fmt.Errorf("bucket %s: %s exists with other content: refused", s.cfg.Bucket, key)
	}
	return false, nil
}

// trimBundle keeps the first p entries of an entry bundle (all for p 0):
// a source that keeps one row per bundle may return a wider version of a
// partial bundle.
func trimBundle(b []byte, p uint8) ([]byte, error) {
	n := int(p)
	if n == 0 {
		n = layout.EntryBundleWidth
	}
	off := 0
	for i := 0; i < n; i++ {
		if len(b)-off < 2 {
			return nil, fmt.Errorf("entry bundle: %d entries, want %d", i, n)
		}
		l := int(binary.BigEndian.Uint16(b[off:]))
		if len(b)-off-2 < l {
			return nil, errors.New("entry bundle: truncated entry")
		}
		off += 2 + l
	}
	if p == 0 && off != len(b) {
		return nil, errors.New("entry bundle: trailing data after 256 entries")
	}
	return b[:off], nil
}
