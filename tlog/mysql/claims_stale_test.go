package mysql_test

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// TestMySQLStaleOwnClaim: a claim whose release failed (the database was
// unreachable, as when it is killed in the middle of a submission) is
// taken over by its own process when the entry comes again, instead of
// being "held" by it until the process restarts (every retry of that
// bundle answered 503, as 'log serve --s3' did once its database came
// back: TestCLILogServeDatabaseKillS3), once it is ownStaleClaimAge old.
// Controls: younger, it is held; a claim of this process that an append
// still holds stays held, for it and for another process.
func TestMySQLStaleOwnClaim(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	stA, stB := openTwice(t, dsn)
	open := func(st *mysql.Storage) tlog.SharedDedupIndex {
		d, err := st.OpenDedup(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d.(tlog.SharedDedupIndex)
	}
	a, b := open(stA), open(stB)
	h := func(s string) []byte { sum := sha256.Sum256([]byte(s)); return sum[:] }
	claim := func(d tlog.SharedDedupIndex, e string, want tlog.Claim) {
		t.Helper()
		got, _, err := d.Claim(ctx, h(e))
		if err != nil || got != want {
			t.Fatalf("Claim(%s) = %v, %v; want %v", e, got, err, want)
		}
	}
	claim(a, "lost", tlog.ClaimNew)
	claim(a, "held", tlog.ClaimNew)
	// The release fails: the claim stays in the database.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.Unclaim(gone, h("lost")); err == nil {
		t.Fatal("Unclaim with a cancelled context succeeded")
	}
	var n int
	if err := rawDB(t, dsn).QueryRow("SELECT COUNT(*) FROM `mcpresClaim` WHERE `h` = ?", h("lost")).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d claims of the entry after a failed release (%v), want 1", n, err)
	}
	claim(b, "lost", tlog.ClaimHeld) // its owner lives
	// Fresh, it is held: an entry Tessera sequenced before the database
	// went is integrated first, and found by the takeover.
	claim(a, "lost", tlog.ClaimHeld)
	if _, err := rawDB(t, dsn).Exec("UPDATE `mcpresClaim` SET `at` = NOW() - INTERVAL 1 MINUTE WHERE `h` = ?", h("lost")); err != nil {
		t.Fatal(err)
	}
	claim(a, "lost", tlog.ClaimTakenOver) // no append of a holds it
	claim(a, "lost", tlog.ClaimHeld)      // now one does
	claim(a, "held", tlog.ClaimHeld)
	claim(b, "held", tlog.ClaimHeld)
	// Released, it is free again.
	if err := a.Unclaim(ctx, h("lost")); err != nil {
		t.Fatal(err)
	}
	claim(b, "lost", tlog.ClaimNew)
}
