package mysql_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// Open refuses a DSN that does not parse and a server that does not
// answer, naming which; the control opens a test database.
func TestMySQLOpenRefuses(t *testing.T) {
	ctx := context.Background()
	if _, err := mysql.Open(ctx, "not a dsn@@"); err == nil || !strings.Contains(err.Error(), "the DSN") {
		t.Errorf("a malformed DSN: %v", err)
	}
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := mysql.Open(c, "u:p@tcp(127.0.0.1:1)/db"); err == nil || !strings.Contains(err.Error(), "connecting to 127.0.0.1:1") {
		t.Errorf("nothing listening: %v", err)
	}
	dsn := mysqltest.NewDatabase(t)
	st, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	defer st.Close()
	// An empty database has no checkpoint and no recorded key; a
	// replacement without a checkpoint is refused.
	if _, err := st.ReadCheckpoint(ctx); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no checkpoint: %v", err)
	}
	if k, err := st.RecordedKey(ctx); err != nil || k != "" {
		t.Errorf("no recorded key: %q, %v", k, err)
	}
	if err := st.ReplaceCheckpoint(ctx, nil, []byte("next")); err == nil || !strings.Contains(err.Error(), "reading the checkpoint") {
		t.Errorf("a replacement without a checkpoint: %v", err)
	}
}

// A checkpoint that changed since it was read is not replaced
// (tlog.ErrCheckpointChanged), and a key is recorded once: a second
// RecordKey is refused, the first kept. The controls replace the
// checkpoint that is there.
func TestMySQLReplaceAndRecordRefuse(t *testing.T) {
	ctx := context.Background()
	dsn := mysqltest.NewDatabase(t)
	st, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := signer(t)
	if _, err := tlog.Open(st, s.Verifier()).Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	cur, err := st.ReadCheckpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ReplaceCheckpoint(ctx, []byte("another checkpoint"), cur); !errors.Is(err, tlog.ErrCheckpointChanged) {
		t.Errorf("a stale prev: %v", err)
	}
	if err := st.ReplaceCheckpoint(ctx, cur, cur); err != nil {
		t.Errorf("control, the current prev: %v", err)
	}
	if got, err := st.ReadCheckpoint(ctx); err != nil || string(got) != string(cur) {
		t.Errorf("after the control: %q, %v", got, err)
	}
	if err := st.RecordKey(ctx, "another key"); err == nil {
		t.Error("a second RecordKey replaced the recorded key")
	}
	if k, err := st.RecordedKey(ctx); err != nil || k != s.Verifier().String() {
		t.Errorf("the recorded key: %q, %v", k, err)
	}
}

// OpenState refuses a database handle that cannot apply the schema (no
// multi-statement queries); the control, with them, keeps the state the
// way a Storage does: the recorded key, the shared index, the witnessing
// rounds (a round that already witnessed the size does not run again).
func TestMySQLState(t *testing.T) {
	ctx := context.Background()
	dsn := mysqltest.NewDatabase(t)
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements = false
	single := rawDB(t, cfg.FormatDSN())
	if _, err := mysql.OpenState(ctx, single); err == nil || !strings.Contains(err.Error(), "applying mcpres's schema") {
		t.Errorf("a handle without multi-statement queries: %v", err)
	}
	cfg.MultiStatements = true
	db := rawDB(t, cfg.FormatDSN())
	x, err := mysql.OpenState(ctx, db)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	if k, err := x.RecordedKey(ctx); err != nil || k != "" {
		t.Errorf("no key yet: %q, %v", k, err)
	}
	if err := x.RecordKey(ctx, "vkey"); err != nil {
		t.Fatal(err)
	}
	if err := x.RecordKey(ctx, "other"); err == nil {
		t.Error("a second key recorded")
	}
	if k, err := x.RecordedKey(ctx); err != nil || k != "vkey" {
		t.Errorf("the recorded key: %q, %v", k, err)
	}
	d, err := x.OpenDedup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := d.Next(ctx); err != nil || n != 0 {
		t.Errorf("Next of a new index: %d, %v", n, err)
	}
	d.Close()
	runs := 0
	round := func(context.Context) (uint64, error) { runs++; return 3, nil }
	if ran, err := x.WitnessRound(ctx, 3, time.Second, round); err != nil || !ran {
		t.Errorf("the first round: %t, %v", ran, err)
	}
	if ran, err := x.WitnessRound(ctx, 3, time.Second, round); err != nil || ran || runs != 1 {
		t.Errorf("a round of a size already witnessed ran: %t, %v, %d runs", ran, err, runs)
	}
}
