package aws_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/aws"
	"github.com/mcpres/mcpres/tlog/aws/awstest"
	"github.com/transparency-dev/tessera/api/layout"
)

// TestReadsNeverQueryTheDatabase: the read path of a log on object
// storage (the checkpoint, full and partial hash tiles, entry bundles, and
// the inclusion proofs built from them, which is what 'log serve --s3'
// answers GET /checkpoint, /tile/... and proofs with) makes no database
// query: MariaDB's Questions counter, on a server this test has to
// itself, moves by exactly the statement that reads it across hundreds of
// reads. Control: a read of mcpres's state in the database (the recorded
// key) is counted, so the counter sees this storage's queries.
func TestReadsNeverQueryTheDatabase(t *testing.T) {
	db := awstest.StartMariaDB(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	cfg := &aws.Config{Endpoint: srv.Endpoint, Region: awstest.Region, Bucket: srv.Bucket(t), PathStyle: true, Database: db.DSN}
	ctx := context.Background()
	st, err := aws.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := signer(t, "example.org/mcpres-s3-reads")
	lg := tlog.Open(st, s.Verifier())
	if _, err := lg.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	a, err := lg.NewAppender(ctx, s, tlog.AppenderOptions{BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300 // a full tile and bundle, and a partial one
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := a.Add(ctx, fmt.Appendf(nil, "entry %d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	counter, err := sql.Open("mysql", db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer counter.Close()
	counter.SetMaxOpenConns(1)
	questions := func() uint64 {
		t.Helper()
		var name string
		var v uint64
		if err := counter.QueryRow("SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	probe := questions()
	probe = questions() - probe // the statement reading it
	partial := layout.PartialTileSize(0, 1, n)
	before := questions()
	reads := 0
	for i := range 100 {
		if _, err := st.ReadCheckpoint(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ReadTile(ctx, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ReadTile(ctx, 0, 1, partial); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ReadTile(ctx, 1, 0, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ReadEntryBundle(ctx, 0, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ReadEntryBundle(ctx, 1, partial); err != nil {
			t.Fatal(err)
		}
		if _, err := lg.Proof(ctx, uint64(i*3)); err != nil {
			t.Fatal(err)
		}
		reads += 7
	}
	if got := questions() - before; got != probe {
		t.Fatalf("%d reads of the log made %d database queries, want 0", reads, got-probe)
	}
	t.Logf("%d reads (checkpoint, tiles, bundles, proofs): 0 database queries", reads)
	before = questions()
	if _, err := st.RecordedKey(ctx); err != nil {
		t.Fatal(err)
	}
	if got := questions() - before; got <= probe {
		t.Fatalf("reading the recorded key counted %d queries: the counter does not see this storage's", got-probe)
	}
}
