package mysql_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// openTwice opens the database of dsn as two processes would: two
// Storages, each with its own connections.
func openTwice(t *testing.T, dsn string) (*mysql.Storage, *mysql.Storage) {
	t.Helper()
	ctx := context.Background()
	var out [2]*mysql.Storage
	for i := range out {
		st, err := mysql.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out[i] = st
	}
	return out[0], out[1]
}

// TestMySQLSharedDedup: the same entries sent to two appenders on one
// database at the same time (two frontends) are appended once each, and
// both are answered with that entry; the log holds each entry once.
func TestMySQLSharedDedup(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	s := signer(t)
	stA, stB := openTwice(t, dsn)
	if _, err := tlog.Open(stA, s.Verifier()).Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	opts := tlog.AppenderOptions{BatchSize: 64, BatchMaxAge: 20 * time.Millisecond}
	var aps [2]*tlog.Appender
	for i, st := range []*mysql.Storage{stA, stB} {
		a, err := tlog.Open(st, s.Verifier()).NewAppender(ctx, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		aps[i] = a
	}
	const n = 40
	idx := make([][2]uint64, n)
	var wg sync.WaitGroup
	for i := range n {
		e := fmt.Appendf(nil, "shared entry %d", i)
		for j, a := range aps {
			wg.Go(func() {
				p, err := a.Add(ctx, e)
				if err != nil {
					t.Errorf("entry %d through appender %d: %v", i, j, err)
					return
				}
				idx[i][j] = p.Index
			})
		}
	}
	wg.Wait()
	for _, a := range aps {
		if err := a.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	lg := tlog.Open(stA, s.Verifier())
	cp, err := lg.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if idx[i][0] != idx[i][1] {
			t.Errorf("entry %d: index %d through one appender, %d through the other", i, idx[i][0], idx[i][1])
		}
	}
	if cp.Size != n {
		t.Fatalf("log size %d after %d distinct entries sent to two appenders: some were appended twice", cp.Size, n)
	}
	// Every claim is resolved once the appenders are closed.
	db := rawDB(t, dsn)
	var claims int
	if err := db.QueryRow("SELECT COUNT(*) FROM `mcpresClaim`").Scan(&claims); err != nil || claims != 0 {
		t.Errorf("%d claims left after closing (%v)", claims, err)
	}
}

func rawDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMySQLClaims: a claim is new, then held while its owner lives (for
// the owner too), taken over once its owner is gone or it is too old, and
// gone once released.
func TestMySQLClaims(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	stA, stB := openTwice(t, dsn)
	open := func(st *mysql.Storage) tlog.SharedDedupIndex {
		d, err := st.OpenDedup(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return d.(tlog.SharedDedupIndex)
	}
	a, b := open(stA), open(stB)
	defer b.Close()
	h := func(s string) []byte { sum := sha256.Sum256([]byte(s)); return sum[:] }
	claim := func(d tlog.SharedDedupIndex, e string, want tlog.Claim) {
		t.Helper()
		got, _, err := d.Claim(ctx, h(e))
		if err != nil || got != want {
			t.Fatalf("Claim(%s) = %v, %v; want %v", e, got, err, want)
		}
	}
	claim(a, "one", tlog.ClaimNew)
	claim(a, "one", tlog.ClaimHeld) // its own claim: the entry is in flight
	claim(b, "one", tlog.ClaimHeld)
	claim(a, "two", tlog.ClaimNew)
	if err := a.Unclaim(ctx, h("two")); err != nil {
		t.Fatal(err)
	}
	claim(b, "two", tlog.ClaimNew)
	// A claim held too long by a live owner is taken over.
	claim(a, "three", tlog.ClaimNew)
	db := rawDB(t, dsn)
	if _, err := db.Exec("UPDATE `mcpresClaim` SET `at` = NOW() - INTERVAL 1 HOUR WHERE `h` = ?", h("three")); err != nil {
		t.Fatal(err)
	}
	claim(b, "three", tlog.ClaimTakenOver)
	claim(a, "three", tlog.ClaimHeld)
	// Its owner gone (the lock released with its connection), a claim is
	// taken over at once.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	claim(b, "one", tlog.ClaimTakenOver)
	claim(b, "one", tlog.ClaimHeld)
	// Put removes the claims of what it records.
	if err := b.Put(ctx, 0, [][]byte{h("one"), h("two")}); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.QueryRow("SELECT COUNT(*) FROM `mcpresClaim`").Scan(&left); err != nil || left != 1 {
		t.Fatalf("%d claims left after Put, want 1 (three's) (%v)", left, err)
	}
	// An indexed entry is answered with its index, and leaves no claim.
	if c, i, err := b.Claim(ctx, h("two")); err != nil || c != tlog.ClaimIndexed || i != 1 {
		t.Fatalf("Claim of an indexed entry = %v %d %v", c, i, err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM `mcpresClaim`").Scan(&left); err != nil || left != 1 {
		t.Fatalf("%d claims left after claiming an indexed entry, want 1 (%v)", left, err)
	}
}

// TestMySQLWitnessRounds: a round runs once per checkpoint size across
// the processes of a database, and a process waits for another's round
// rather than running its own beside it.
func TestMySQLWitnessRounds(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	stA, stB := openTwice(t, dsn)
	var mu sync.Mutex
	var ran []string
	round := func(who string, size uint64, release chan struct{}) func(context.Context) (uint64, error) {
		return func(context.Context) (uint64, error) {
			mu.Lock()
			ran = append(ran, fmt.Sprintf("%s@%d", who, size))
			mu.Unlock()
			if release != nil {
				<-release
			}
			return size, nil
		}
	}
	release := make(chan struct{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	var ranA bool
	wg.Go(func() {
		var err error
		ranA, err = stA.WitnessRound(ctx, 5, time.Minute, func(ctx context.Context) (uint64, error) {
			close(started)
			return round("A", 5, release)(ctx)
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-started
	var ranB bool
	wg.Go(func() {
		var err error
		ranB, err = stB.WitnessRound(ctx, 5, time.Minute, round("B", 5, nil))
		if err != nil {
			t.Error(err)
		}
	})
	// B waits for the lock while A's round runs.
	db := rawDB(t, dsn)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE `INFO` LIKE 'SELECT GET_LOCK(%' AND `DB` = DATABASE()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("B never waited for the witnessing lock")
		}
	}
	close(release)
	wg.Wait()
	if !ranA || ranB {
		t.Fatalf("the round for size 5 ran in A %v, in B %v; want A only", ranA, ranB)
	}
	// A larger checkpoint gets its round, in whichever process asks.
	if r, err := stB.WitnessRound(ctx, 7, time.Minute, round("B", 7, nil)); err != nil || !r {
		t.Fatalf("round for size 7: %v, %v", r, err)
	}
	if r, err := stA.WitnessRound(ctx, 6, time.Minute, round("A", 6, nil)); err != nil || r {
		t.Fatalf("round for size 6 after one for 7: %v, %v", r, err)
	}
	// A failed round counts as run (its witnesses were asked).
	if r, err := stA.WitnessRound(ctx, 8, time.Minute, func(context.Context) (uint64, error) { return 8, errors.New("no witness answered") }); err == nil || !r {
		t.Fatalf("failing round: %v, %v", r, err)
	}
	if r, _ := stB.WitnessRound(ctx, 8, time.Minute, round("B", 8, nil)); r {
		t.Fatal("size 8 was witnessed twice")
	}
	if fmt.Sprint(ran) != "[A@5 B@7]" {
		t.Fatalf("rounds %v", ran)
	}
}
