package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/tlog"
)

// stateMarker starts mcpres's own tables in schema.sql.
const stateMarker = "-- mcpres: the deduplication index"

// StateSchema is the part of [Schema] that is mcpres's own (its
// deduplication index and claims, the recorded log key, the witnessing
// rounds), without Tessera's MySQL driver's tables.
var StateSchema = Schema[strings.Index(Schema, stateMarker):]

// State is what mcpres keeps beside a log in a MySQL-compatible database
// whose tiles live elsewhere (tlog/aws: Tessera's AWS driver sequences in
// the same database and keeps the tiles in a bucket): the shared
// deduplication index (tlog.SharedDedupIndex), the witnessing rounds
// (tlog.WitnessRounds) and the recorded log key (tlog.KeyRecorder),
// exactly as a [Storage] keeps them, so that several processes serving
// one database append each entry once, whichever driver holds the tiles.
type State struct{ s *Storage }

// OpenState applies [StateSchema] to db, which must allow multi-statement
// queries, and returns the state kept in it. db stays the caller's.
func OpenState(ctx context.Context, db *sql.DB) (*State, error) {
	if _, err := db.ExecContext(ctx, StateSchema); err != nil {
		return nil, fmt.Errorf("mysql: applying mcpres's schema: %w", err)
	}
	var name sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&name); err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	return &State{s: &Storage{db: db, dbName: name.String}}, nil
}

// OpenDedup returns the shared deduplication index ([Storage.OpenDedup]).
func (x *State) OpenDedup(ctx context.Context) (tlog.DedupIndex, error) { return x.s.OpenDedup(ctx) }

// WitnessRound runs round once per checkpoint across the processes
// serving the database ([Storage.WitnessRound]).
func (x *State) WitnessRound(ctx context.Context, size uint64, wait time.Duration, round func(context.Context) (uint64, error)) (bool, error) {
	return x.s.WitnessRound(ctx, size, wait, round)
}

// RecordKey records the log's verifier key ([Storage.RecordKey]).
func (x *State) RecordKey(ctx context.Context, vkey string) error { return x.s.RecordKey(ctx, vkey) }

// RecordedKey returns the recorded verifier key ([Storage.RecordedKey]).
func (x *State) RecordedKey(ctx context.Context) (string, error) { return x.s.RecordedKey(ctx) }
