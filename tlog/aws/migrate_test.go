package aws_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/aws"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// interrupted is a source whose reads of entry bundle 1 interrupt the
// migration (as a kill would): they cancel its context.
type interrupted struct {
	tlog.Storage
	cancel context.CancelFunc
}

func (s interrupted) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	if index == 1 {
		s.cancel()
		return nil, errors.New("interrupted")
	}
	return s.Storage.ReadEntryBundle(ctx, index, p)
}

// TestMigrateFromMySQL: a log kept by the MySQL driver (300 entries: a
// full bundle and a partial one) moves to the bucket and a new database
// with the same origin, size and root hash, its checkpoint published as
// is. An interrupted migration leaves the destination refused by Open
// (no second log on it) and is finished by a second run; a third run
// changes nothing; the moved log then takes new entries and answers a
// duplicate with its entry. A destination holding another log is refused.
func TestMigrateFromMySQL(t *testing.T) {
	ctx := context.Background()
	s := signer(t, "example.org/mcpres-migrate-test")
	srcDSN := mysqltest.NewDatabase(t)
	src, err := mysql.Open(ctx, srcDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sl := tlog.Open(src, s.Verifier())
	if _, err := sl.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	a, err := sl.NewAppender(ctx, s, tlog.AppenderOptions{BatchSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Go(func() {
			if _, err := a.Add(ctx, fmt.Appendf(nil, "migrated entry %d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	a.Close(ctx)
	srcCP, err := sl.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srcRaw, _ := src.ReadCheckpoint(ctx)
	if srcCP.Size != 300 {
		t.Fatalf("source size %d", srcCP.Size)
	}

	cfg, _ := newConfig(t)
	plan, err := aws.PlanMigration(ctx, src, s.Verifier(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Origin != srcCP.Origin || plan.Size != 300 || plan.Root != srcCP.Hash || plan.Integrated != 0 || plan.Done || plan.Bundles != 2 {
		t.Fatalf("dry run: %+v", plan)
	}
	// Interrupted.
	ictx, cancel := context.WithCancel(ctx)
	if _, err := aws.Migrate(ictx, interrupted{src, cancel}, s.Verifier(), cfg); err == nil {
		t.Fatal("interrupted migration succeeded")
	}
	cancel()
	if _, err := aws.Open(ctx, cfg); !errors.Is(err, aws.ErrMigrating) {
		t.Fatalf("open during an unfinished migration: %v, want ErrMigrating", err)
	}
	// Another source into the same destination is refused.
	other := signer(t, "example.org/another-log")
	odsn := mysqltest.NewDatabase(t)
	osrc, err := mysql.Open(ctx, odsn)
	if err != nil {
		t.Fatal(err)
	}
	defer osrc.Close()
	if _, err := tlog.Open(osrc, other.Verifier()).Init(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := aws.Migrate(ctx, osrc, other.Verifier(), cfg); err == nil {
		t.Fatal("a second source migrated into a destination with a migration recorded")
	}
	// Resumed.
	plan, err = aws.Migrate(ctx, src, s.Verifier(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Done || plan.Integrated != 300 {
		t.Fatalf("after: %+v", plan)
	}
	if plan, err = aws.Migrate(ctx, src, s.Verifier(), cfg); err != nil || !plan.Done {
		t.Fatalf("third run: %+v %v", plan, err)
	}
	dst, v, err := aws.OpenLog(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if v.String() != s.Verifier().String() {
		t.Fatalf("recorded key %s", v)
	}
	dstRaw, err := dst.ReadCheckpoint(ctx)
	if err != nil || string(dstRaw) != string(srcRaw) {
		t.Fatalf("the bucket's checkpoint is not the source's: %v\n%s\n%s", err, dstRaw, srcRaw)
	}
	dl := tlog.Open(dst, s.Verifier())
	for _, i := range []uint64{0, 255, 256, 299} {
		p, err := dl.Proof(ctx, i)
		if err != nil || string(p.Entry) != fmt.Sprintf("migrated entry %d", indexOf(t, sl, i)) {
			t.Fatalf("entry %d after migration: %v", i, err)
		}
	}
	da, err := dl.NewAppender(ctx, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer da.Close(ctx)
	p, err := da.Add(ctx, []byte("migrated entry 7"))
	if err != nil || !p.Existing {
		t.Fatalf("a duplicate after migration: %+v %v", p, err)
	}
	p, err = da.Add(ctx, []byte("after the migration"))
	if err != nil || p.Existing || p.Index != 300 {
		t.Fatalf("a new entry after migration: %+v %v", p, err)
	}
	// A migration into a bucket that holds a log is refused.
	if _, err := aws.PlanMigration(ctx, osrc, other.Verifier(), cfg); err == nil {
		t.Fatal("a destination holding another log accepted")
	}
}

// indexOf returns the number in the entry at index i of the source.
func indexOf(t *testing.T, l *tlog.Log, i uint64) int {
	t.Helper()
	p, err := l.Proof(context.Background(), i)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscanf(string(p.Entry), "migrated entry %d", &n)
	return n
}
