// Package mysql stores a tlog log in a MariaDB or MySQL database, with
// Tessera's MySQL driver (github.com/transparency-dev/tessera/storage/mysql,
// v1.0.4): the path for a log that outgrows one disk. It serves the same
// tlog-tiles resources as a POSIX log and gives the same references for the
// same entries.
//
// [Open] applies the schema ([Schema]: Tessera's tables and mcpres's own,
// all CREATE TABLE IF NOT EXISTS) before it hands the database to Tessera.
// The driver keeps one row per tile and entry bundle and overwrites it as
// the tile grows, so there are no partial versions to collect. It also
// signs the unchanged tree again every checkpoint interval, so attached
// cosignatures are kept beside its checkpoint row ([Storage.ReadCheckpoint]). Tessera's
// MySQL driver publishes at most one checkpoint per second
// ([Storage.MinCheckpointInterval]).
//
// Tested against Debian's MariaDB 10.11 (Tessera tests against MySQL 8.4).
package mysql

import (
	"bytes"
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/transparency-dev/tessera"
	tmysql "github.com/transparency-dev/tessera/storage/mysql"
)

// Schema is the database schema Open applies: Tessera v1.0.4's
// storage/mysql/schema.sql, verbatim, and mcpres's tables (the
// deduplication index and the recorded log key).
//
//go:embed schema.sql
var Schema string

// maxConns bounds the connections one Storage opens (MariaDB's default
// max_connections is 151).
const maxConns = 32

// minCheckpointInterval is Tessera v1.0.4's MySQL minimum.
const minCheckpointInterval = time.Second

// minBatchMaxAge is the youngest batch worth integrating: with one
// checkpoint a second, fewer, larger integration transactions cost the
// database less and add no latency.
const minBatchMaxAge = 250 * time.Millisecond

// Storage is a log in a database. It implements tlog.Storage.
type Storage struct {
	db     *sql.DB
	ts     *tmysql.Storage
	dbName string // the database's name (the witnessing lock is per database)
}

var (
	_ tlog.Storage     = (*Storage)(nil)
	_ tlog.KeyRecorder = (*Storage)(nil)
)

// DSNEnvPrefix starts a DSN given as "env:NAME": the DSN is the value of
// the environment variable NAME, which keeps the password out of the
// process list ([ResolveDSN]).
const DSNEnvPrefix = "env:"

// ResolveDSN returns the DSN spec names: spec itself, or for env:NAME the
// value of the environment variable NAME, which must be set and not
// empty.
func ResolveDSN(spec string) (string, error) {
	name, ok := strings.CutPrefix(spec, DSNEnvPrefix)
	if !ok {
		return spec, nil
	}
	v := os.Getenv(name)
	if name == "" || v == "" {
		return "", fmt.Errorf("mysql: the DSN env:%s: the environment variable %s is not set or empty", name, name)
	}
	return v, nil
}

// OpenLog opens the database spec names (a DSN or env:NAME, [ResolveDSN])
// with [Open] and returns it with the key of the log in it (tlog.Key):
// key when not nil, which must be the recorded key, else the recorded
// key. Close releases it.
func OpenLog(ctx context.Context, spec string, key *signednote.Verifier) (*Storage, *signednote.Verifier, error) {
	dsn, err := ResolveDSN(spec)
	if err != nil {
		return nil, nil, err
	}
	st, err := Open(ctx, dsn)
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

// Open connects to the database named by dsn (go-sql-driver/mysql's
// format, "user:password@tcp(127.0.0.1:3306)/dbname"), applies Schema and
// opens Tessera's driver on it. The connection allows multi-statement
// queries (multiStatements=true) for the schema. Close releases it.
func Open(ctx context.Context, dsn string) (*Storage, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql: the DSN: %w", err)
	}
	cfg.MultiStatements = true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	db := sql.OpenDB(conn)
	// Bounded, reused connections: every submission reads the
	// deduplication index and the tiles of its proof.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: connecting to %s: %w", cfg.Addr, err)
	}
	if _, err := db.ExecContext(ctx, Schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: applying the schema: %w", err)
	}
	ts, err := tmysql.New(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: %w", err)
	}
	var name sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&name); err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: %w", err)
	}
	return &Storage{db: db, ts: ts, dbName: name.String}, nil
}

// Close closes the database connections.
func (s *Storage) Close() error { return s.db.Close() }

var (
	_ tlog.CheckpointIntervalFloor = (*Storage)(nil)
	_ tlog.BatchAgeFloor           = (*Storage)(nil)
)

// MinCheckpointInterval is the shortest checkpoint interval Tessera's MySQL
// driver accepts.
func (s *Storage) MinCheckpointInterval() time.Duration { return minCheckpointInterval }

// MinBatchMaxAge is the shortest batch age worth using on this driver
// (tlog.AppenderOptions.BatchMaxAge): it publishes at most one checkpoint
// a second.
func (s *Storage) MinBatchMaxAge() time.Duration { return minBatchMaxAge }

// String names the storage in messages.
func (s *Storage) String() string { return "the database" }

// Driver returns Tessera's MySQL driver.
func (s *Storage) Driver(ctx context.Context) (tessera.Driver, error) { return s.ts, nil }

// ReadCheckpoint reads the published checkpoint (fs.ErrNotExist if none):
// Tessera's checkpoint row, or, while that row holds the tree a
// ReplaceCheckpoint attached cosignatures to, the cosigned note.
//
// It is one query (the log service's awaiter runs it every 20 ms).
func (s *Storage) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	var row, cosigned []byte
	err := s.db.QueryRowContext(ctx, "SELECT c.`note`, m.`note` FROM `Checkpoint` c LEFT JOIN `mcpresCosigned` m ON m.`id` = 0 WHERE c.`id` = 0").Scan(&row, &cosigned)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fs.ErrNotExist
	}
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoint: %w", err)
	}
	if cosigned == nil {
		return row, nil
	}
	return effective(row, cosigned), nil
}

// effective is the published checkpoint: cosigned when it is the row's
// note with signature lines added (the same text, every signature line of
// the row's), else the row. Tessera signs an unchanged tree again with the
// same deterministic Ed25519 signature, so a republished row still matches.
func effective(row, cosigned []byte) []byte {
	rtext, rsigs, ok1 := bytes.Cut(row, []byte("\n\n"))
	ctext, csigs, ok2 := bytes.Cut(cosigned, []byte("\n\n"))
	if !ok1 || !ok2 || !bytes.Equal(rtext, ctext) {
		return row
	}
	have := map[string]bool{}
	for l := range bytes.SplitSeq(csigs, []byte("\n")) {
		have[string(l)] = true
	}
	for l := range bytes.SplitSeq(rsigs, []byte("\n")) {
		if !have[string(l)] {
			return row
		}
	}
	return cosigned
}

// ReadTile reads a hash tile; for a partial tile it may return a wider
// version (Tessera's driver keeps one row per tile).
func (s *Storage) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	return s.ts.ReadTile(ctx, level, index, p)
}

// ReadEntryBundle reads an entry bundle, with ReadTile's convention.
func (s *Storage) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	return s.ts.ReadEntryBundle(ctx, index, p)
}

// ReplaceCheckpoint replaces the published checkpoint in one transaction
// that holds the row lock Tessera's publisher takes (SELECT … FOR UPDATE
// on its checkpoint row), so that attaching cosignatures never races a new
// checkpoint. next is kept in mcpresCosigned (see ReadCheckpoint) and in
// the row; the publication time is kept.
func (s *Storage) ReplaceCheckpoint(ctx context.Context, prev, next []byte) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var row, cosigned []byte
	if err := tx.QueryRowContext(ctx, "SELECT `note` FROM `Checkpoint` WHERE `id` = 0 FOR UPDATE").Scan(&row); err != nil {
		return fmt.Errorf("reading the checkpoint: %w", err)
	}
	err = tx.QueryRowContext(ctx, "SELECT `note` FROM `mcpresCosigned` WHERE `id` = 0 FOR UPDATE").Scan(&cosigned)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("reading the cosigned checkpoint: %w", err)
	}
	cur := row
	if err == nil {
		cur = effective(row, cosigned)
	}
	if !bytes.Equal(cur, prev) {
		return tlog.ErrCheckpointChanged
	}
	if _, err := tx.ExecContext(ctx, "REPLACE INTO `mcpresCosigned` (`id`, `note`) VALUES (0, ?)", next); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE `Checkpoint` SET `note` = ? WHERE `id` = 0", next); err != nil {
		return err
	}
	return tx.Commit()
}

// RecordKey records the log's verifier key (tlog.KeyRecorder: tlog's Init
// records it).
func (s *Storage) RecordKey(ctx context.Context, vkey string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO `mcpresLog` (`id`, `vkey`) VALUES (0, ?)", vkey)
	return err
}

// RecordedKey returns the recorded verifier key, "" when none is
// (tlog.KeyRecorder).
func (s *Storage) RecordedKey(ctx context.Context) (string, error) {
	var vkey string
	err := s.db.QueryRowContext(ctx, "SELECT `vkey` FROM `mcpresLog` WHERE `id` = 0").Scan(&vkey)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return vkey, err
}
