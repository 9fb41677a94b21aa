package mysql

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// TestPublishIfDue: the publisher signs the integrated tree once it has
// grown and an interval has passed since the last publication, and then
// at once, not at the next tick; it never signs an unchanged tree, and
// says how long to wait otherwise.
func TestPublishIfDue(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, mysqltest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := st.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	ago := func(d time.Duration) int64 { return time.Now().Add(-d).UnixMilli() }
	exec("REPLACE INTO `TreeState` (`id`, `size`, `root`) VALUES (0, 5, 'root-5')")
	exec("REPLACE INTO `Checkpoint` (`id`, `note`, `published_at`) VALUES (0, ?, ?)", "origin\n3\nroot-3\n\n— sig\n", ago(5*time.Second))
	var signed []string
	sign := func(_ context.Context, size uint64, root []byte) ([]byte, error) {
		signed = append(signed, fmt.Sprintf("%d:%s", size, root))
		return fmt.Appendf(nil, "origin\n%d\n%s\n\n— sig\n", size, root), nil
	}
	row := func() string {
		var note string
		if err := st.db.QueryRowContext(ctx, "SELECT `note` FROM `Checkpoint` WHERE `id` = 0").Scan(&note); err != nil {
			t.Fatal(err)
		}
		return note
	}
	const interval = time.Second
	step := func(want string, minWait, maxWait time.Duration) {
		t.Helper()
		wait, err := st.publishIfDue(ctx, interval, sign)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(signed) != want || wait < minWait || wait > maxWait {
			t.Fatalf("signed %v, wait %v; want %s, a wait in [%v, %v]", signed, wait, want, minWait, maxWait)
		}
	}
	// Grown, and due: published now, the next try an interval later.
	step("[5:root-5]", interval, interval+publishMargin)
	if row() != "origin\n5\nroot-5\n\n— sig\n" {
		t.Fatalf("published %q", row())
	}
	// Unchanged: nothing signed, look again soon.
	step("[5:root-5]", publishPoll, publishPoll)
	// Grown but not due: wait for the rest of the interval.
	exec("UPDATE `TreeState` SET `size` = 6, `root` = 'root-6' WHERE `id` = 0")
	step("[5:root-5]", 1, interval+publishMargin)
	// Due: published.
	exec("UPDATE `Checkpoint` SET `published_at` = ? WHERE `id` = 0", ago(interval))
	step("[5:root-5 6:root-6]", interval, interval+publishMargin)
}
