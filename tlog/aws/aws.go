// Package aws stores a tlog log on Tessera's AWS driver
// (github.com/transparency-dev/tessera/storage/aws, v1.0.4): the tiles,
// entry bundles and checkpoint in a bucket of any S3-compatible object
// store, which any CDN or static web server can serve, and the sequencing
// in a MySQL-compatible database (MariaDB here). It is the path for a log
// past one machine: several 'log serve' processes on one bucket and
// database serve one log.
//
// Reads (ReadCheckpoint, ReadTile, ReadEntryBundle) go to the bucket and
// never to the database. mcpres's own state (the shared deduplication
// index with its claims, so that an entry sent to two frontends at once
// is appended once; the witnessing rounds; the recorded log key) lives in
// the same database, in tlog/mysql's tables ([mysql.State]). Tessera's
// storage/aws/antispam is not used: its follower indexes entries after
// they are integrated, so two frontends given the same entry at once
// would both append it.
//
// Tessera writes with conditional PUTs (If-None-Match: *): an object
// store that ignores them under concurrency corrupts a log silently.
// [Storage.ProbeConditionalWrites] checks that the store enforces them;
// the CLI runs it before every write.
package aws

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
	taws "github.com/transparency-dev/tessera/storage/aws"
)

// maxConns bounds the connections one Storage opens for mcpres's state
// and, separately, Tessera's sequencer.
const maxConns = 32

// minCheckpointInterval is Tessera v1.0.4's AWS minimum.
const minCheckpointInterval = time.Second

// minBatchMaxAge: the driver integrates once a second, so younger batches
// only cost more sequencing transactions.
const minBatchMaxAge = 250 * time.Millisecond

// maxObjectSize bounds what a read of the bucket accepts (a full entry
// bundle of 256 entries of at most tlog.MaxEntrySize, with its length
// prefixes, is far below).
const maxObjectSize = 256 * (tlog.MaxEntrySize + 2)

// Storage is a log in a bucket and a database. It implements tlog.Storage.
type Storage struct {
	cfg    Config
	dsn    string
	sdk    sdkaws.Config
	s3opts func(*s3.Options)
	s3     *s3.Client
	db     *sql.DB
	state  *mysql.State
}

var (
	_ tlog.Storage                 = (*Storage)(nil)
	_ tlog.KeyRecorder             = (*Storage)(nil)
	_ tlog.WitnessRounds           = (*Storage)(nil)
	_ tlog.CheckpointIntervalFloor = (*Storage)(nil)
	_ tlog.BatchAgeFloor           = (*Storage)(nil)
)

// Open connects to the bucket and the database cfg names. The S3
// credentials come from the standard AWS chain; an env:NAME database is
// resolved. It checks that the bucket and the database belong together
// (a database whose tree has entries beside a bucket with no checkpoint,
// or a bucket whose checkpoint is larger than the database's tree, is
// another log's, or half of one) and applies mcpres's tables. Close
// releases it.
func Open(ctx context.Context, cfg *Config) (*Storage, error) {
	s, err := openRaw(ctx, cfg)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Storage, error) {
		s.db.Close()
		return nil, err
	}
	if recorded, done, err := s.migration(ctx, nil); err != nil {
		return fail(err)
	} else if recorded && !done {
		return fail(fmt.Errorf("%s: %w", s, ErrMigrating))
	}
	if s.state, err = openState(ctx, s.db); err != nil {
		return fail(err)
	}
	if err := s.checkPairing(ctx); err != nil {
		return fail(err)
	}
	return s, nil
}

// openState applies mcpres's tables and returns the state kept there.
func openState(ctx context.Context, db *sql.DB) (*mysql.State, error) {
	return mysql.OpenState(ctx, db)
}

// openRaw connects to the bucket and the database, and writes nothing.
func openRaw(ctx context.Context, cfg *Config) (*Storage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dsn, err := mysql.ResolveDSN(cfg.Database)
	if err != nil {
		return nil, err
	}
	if err := checkDSN(dsn); err != nil {
		return nil, fmt.Errorf("s3 config: database: %w", err)
	}
	sdk, err := config.LoadDefaultConfig(ctx, config.WithRegion(cfg.Region))
	if err != nil {
		return nil, fmt.Errorf("s3: the AWS configuration: %w", err)
	}
	if _, err := sdk.Credentials.Retrieve(ctx); err != nil {
		return nil, fmt.Errorf("s3: no credentials for the bucket: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or configure the AWS credential chain (AWS_PROFILE, an instance role): %w", err)
	}
	s3opts := func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = sdkaws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
	}
	s := &Storage{cfg: *cfg, dsn: dsn, sdk: sdk, s3opts: s3opts, s3: s3.NewFromConfig(sdk, s3opts)}
	dcfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("s3 config: database: %w", err)
	}
	dcfg.MultiStatements = true
	conn, err := gomysql.NewConnector(dcfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	s.db = sql.OpenDB(conn)
	s.db.SetMaxOpenConns(maxConns)
	s.db.SetMaxIdleConns(maxConns)
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("database: connecting to %s: %w", dcfg.Addr, err)
	}
	return s, nil
}

// OpenLog opens the storage cfg names with [Open] and returns it with the
// key of the log in it (tlog.Key): key when not nil, which must be the
// recorded key, else the recorded key. Close releases it.
func OpenLog(ctx context.Context, cfg *Config, key *signednote.Verifier) (*Storage, *signednote.Verifier, error) {
	st, err := Open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	k, err := tlog.Key(ctx, st, key)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, k, nil
}

// ErrMismatch is matched by Open's error when the bucket and the database
// do not hold the same log.
var ErrMismatch = errors.New("the bucket and the database do not hold the same log")

// checkPairing refuses a bucket and a database that are not one log's.
func (s *Storage) checkPairing(ctx context.Context) error {
	var seq uint64
	err := s.db.QueryRowContext(ctx, "SELECT `seq` FROM `IntCoord` WHERE `id` = 0").Scan(&seq)
	var me *gomysql.MySQLError
	switch {
	case errors.Is(err, sql.ErrNoRows), errors.As(err, &me) && me.Number == 1146: // no such table: a new database
		seq = 0
	case err != nil:
		return fmt.Errorf("database: reading the tree state: %w", err)
	}
	cp, err := s.ReadCheckpoint(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		if seq > 0 {
			return fmt.Errorf("%w: the database's tree has %d entries and bucket %q has no checkpoint", ErrMismatch, seq, s.cfg.Bucket)
		}
		return s.publishEmpty(ctx)
	}
	if err != nil {
		return err
	}
	size, ok := signednote.UnverifiedSize(cp)
	if !ok {
		return fmt.Errorf("bucket %q: its checkpoint is not a checkpoint", s.cfg.Bucket)
	}
	if size > seq {
		return fmt.Errorf("%w: bucket %q holds a checkpoint of %d entries and the database's tree has %d", ErrMismatch, s.cfg.Bucket, size, seq)
	}
	return nil
}

// Close closes the database connections.
func (s *Storage) Close() error { return s.db.Close() }

// String names the storage in messages (never its credentials).
func (s *Storage) String() string {
	if s.cfg.Endpoint == "" {
		return fmt.Sprintf("bucket %s", s.cfg.Bucket)
	}
	return fmt.Sprintf("bucket %s at %s", s.cfg.Bucket, s.cfg.Endpoint)
}

// MinCheckpointInterval is the shortest checkpoint interval Tessera's AWS
// driver accepts.
func (s *Storage) MinCheckpointInterval() time.Duration { return minCheckpointInterval }

// MinBatchMaxAge is the shortest batch age worth using on this driver.
func (s *Storage) MinBatchMaxAge() time.Duration { return minBatchMaxAge }

// Driver returns Tessera's AWS driver on the bucket and the database.
func (s *Storage) Driver(ctx context.Context) (tessera.Driver, error) {
	return taws.New(ctx, taws.Config{
		SDKConfig:    &s.sdk,
		S3Options:    s.s3opts,
		Bucket:       s.cfg.Bucket,
		DSN:          s.dsn,
		MaxOpenConns: maxConns,
		MaxIdleConns: maxConns,
	})
}

// get reads an object of the bucket; fs.ErrNotExist when there is none.
func (s *Storage) get(ctx context.Context, key string) ([]byte, error) {
	out, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: sdkaws.String(s.cfg.Bucket), Key: sdkaws.String(key)})
	if err != nil {
		if notFound(err) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("bucket %s: reading %s: %w", s.cfg.Bucket, key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, maxObjectSize+1))
	if err != nil {
		return nil, fmt.Errorf("bucket %s: reading %s: %w", s.cfg.Bucket, key, err)
	}
	if len(data) > maxObjectSize {
		return nil, fmt.Errorf("bucket %s: %s is larger than %d bytes", s.cfg.Bucket, key, maxObjectSize)
	}
	return data, nil
}

// notFound reports whether err is S3's answer for a missing object.
func notFound(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		}
	}
	return false
}

// ReadCheckpoint reads the published checkpoint from the bucket
// (fs.ErrNotExist if none).
func (s *Storage) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return s.get(ctx, layout.CheckpointPath)
}

// ReadTile reads a hash tile from the bucket; a partial tile that is gone
// (collected once the full tile exists) is read as the full tile.
func (s *Storage) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	data, err := s.get(ctx, layout.TilePath(level, index, p))
	if errors.Is(err, fs.ErrNotExist) && p != 0 {
		return s.get(ctx, layout.TilePath(level, index, 0))
	}
	return data, err
}

// ReadEntryBundle reads an entry bundle from the bucket, with ReadTile's
// convention.
func (s *Storage) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	data, err := s.get(ctx, layout.EntriesPath(index, p))
	if errors.Is(err, fs.ErrNotExist) && p != 0 {
		return s.get(ctx, layout.EntriesPath(index, 0))
	}
	return data, err
}

// ReplaceCheckpoint replaces the checkpoint in the bucket while holding
// the row lock Tessera's publisher takes in every process (PubCoord, FOR
// UPDATE), so that attaching cosignatures never races a new checkpoint.
func (s *Storage) ReplaceCheckpoint(ctx context.Context, prev, next []byte) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var at int64
	if err := tx.QueryRowContext(ctx, "SELECT `publishedAt` FROM `PubCoord` WHERE `id` = 0 FOR UPDATE").Scan(&at); err != nil {
		return fmt.Errorf("database: taking the publisher's lock: %w", err)
	}
	cur, err := s.ReadCheckpoint(ctx)
	if err != nil {
		return fmt.Errorf("reading the checkpoint: %w", err)
	}
	if !bytes.Equal(cur, prev) {
		return tlog.ErrCheckpointChanged
	}
	if _, err := s.s3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: sdkaws.String(s.cfg.Bucket), Key: sdkaws.String(layout.CheckpointPath),
		Body: bytes.NewReader(next), ContentType: sdkaws.String("text/plain; charset=utf-8"), CacheControl: sdkaws.String("no-cache"),
	}); err != nil {
		return fmt.Errorf("bucket %s: writing the checkpoint: %w", s.cfg.Bucket, err)
	}
	return tx.Commit()
}

// OpenDedup returns the deduplication index in the database, shared by
// every process serving the log (tlog.SharedDedupIndex).
func (s *Storage) OpenDedup(ctx context.Context) (tlog.DedupIndex, error) {
	return s.state.OpenDedup(ctx)
}

// WitnessRound runs round once per checkpoint across the processes
// serving the log (tlog.WitnessRounds).
func (s *Storage) WitnessRound(ctx context.Context, size uint64, wait time.Duration, round func(context.Context) (uint64, error)) (bool, error) {
	return s.state.WitnessRound(ctx, size, wait, round)
}

// RecordKey records the log's verifier key in the database
// (tlog.KeyRecorder).
func (s *Storage) RecordKey(ctx context.Context, vkey string) error {
	return s.state.RecordKey(ctx, vkey)
}

// RecordedKey returns the recorded verifier key, "" when none is.
func (s *Storage) RecordedKey(ctx context.Context) (string, error) {
	return s.state.RecordedKey(ctx)
}

// publishEmpty has Tessera's publisher publish the empty tree of a new
// log. Tessera v1.0.4's AWS driver publishes only a tree larger than the
// size its PubCoord row records (initialised to 0), or when that size is
// unknown (NULL), or on republication, which mcpres turns off (it would
// drop attached cosignatures): so a new log's size-0 checkpoint would
// never appear. With no checkpoint in the bucket and an empty tree, the
// row's size is set unknown, in the driver's own table shape (which its
// initialisation then keeps: CREATE TABLE IF NOT EXISTS, INSERT IGNORE).
func (s *Storage) publishEmpty(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS PubCoord(id INT UNSIGNED NOT NULL, publishedAt BIGINT NOT NULL, size BIGINT UNSIGNED, PRIMARY KEY (id)); "+
		"INSERT INTO PubCoord (id, publishedAt, size) VALUES (0, 0, NULL) ON DUPLICATE KEY UPDATE size = IF(size = 0, NULL, size)")
	if err != nil {
		return fmt.Errorf("database: preparing the first checkpoint: %w", err)
	}
	return nil
}
