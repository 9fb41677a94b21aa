package mysql_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// The deduplication index's Put is atomic on its position: a Put from
// another position than Next (another process recorded those entries
// meanwhile, or a stale caller) changes nothing and says where the index
// is; the control records at Next, which moves on.
func TestMySQLDedupPutRefusesStalePosition(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	st, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := st.OpenDedup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h := func(s string) []byte { sum := sha256.Sum256([]byte(s)); return sum[:] }
	if err := d.Put(ctx, 0, [][]byte{h("a"), h("b")}); err != nil {
		t.Fatalf("control, Put at 0: %v", err)
	}
	for _, tc := range []struct {
		from uint64
		says string
	}{
		{0, "it is at 2, not 0"},
		{5, "it is at 2, not 5"},
	} {
		if err := d.Put(ctx, tc.from, [][]byte{h("c")}); !errors.Is(err, tlog.ErrIndexMoved) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Put at %d: %v, want %q", tc.from, err, tc.says)
		}
	}
	if next, err := d.Next(ctx); err != nil || next != 2 {
		t.Fatalf("Next after the refused Puts: %d, %v; want 2", next, err)
	}
	if _, ok, err := d.Lookup(ctx, h("c")); err != nil || ok {
		t.Fatalf("a refused Put recorded its hash: %v, %v", ok, err)
	}
}
