package mysql_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/posix/posixtest"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

var testOnlyLogSeed = bytes.Repeat([]byte{0x41}, 32)

func signer(t testing.TB) *signednote.LogSigner {
	skey, _, err := signednote.GenerateKey(bytes.NewReader(testOnlyLogSeed), signednote.TypeEd25519, "example.org/mcpres-mysql-test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := signednote.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMySQLSameAsPOSIX: the same entries give the same tree (root hash),
// the same tiles and the same proofs on MariaDB as in a POSIX directory;
// a duplicate is answered with its entry, also after reopening; the schema
// applies twice; cosignatures replace the checkpoint only if unchanged.
func TestMySQLSameAsPOSIX(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	s := signer(t)
	st, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	my := tlog.Open(st, s.Verifier())
	if _, err := my.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	pxDir := filepath.Join(t.TempDir(), "log")
	px := tlog.Open(posix.New(pxDir), s.Verifier())
	if _, err := px.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	var entries [][]byte
	for i := range 300 {
		entries = append(entries, fmt.Appendf(nil, "entry %d", i))
	}
	a, err := my.NewAppender(ctx, s, tlog.AppenderOptions{BatchSize: 128, BatchMaxAge: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			p, err := a.Add(ctx, e)
			if err != nil || p.Existing {
				t.Errorf("add %d: %+v %v", i, p, err)
			}
		})
	}
	wg.Wait()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// The POSIX log gets the same entries in the order MySQL gave them,
	// through Tessera directly (futures in order).
	inOrder := make([][]byte, len(entries))
	for i := range inOrder {
		p, err := my.Proof(ctx, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		inOrder[i] = p.Entry
	}
	posixtest.BulkAppend(t, context.Background(), pxDir, s, inOrder)
	cm, _ := my.Checkpoint(ctx)
	cp, _ := px.Checkpoint(ctx)
	if cm.Size != 300 || cp.Size != 300 || cm.Hash != cp.Hash {
		t.Fatalf("MySQL %d %x, POSIX %d %x", cm.Size, cm.Hash, cp.Size, cp.Hash)
	}
	// The same proof (entry, index, hashes) for entries at tile edges.
	for _, i := range []uint64{0, 255, 256, 299} {
		pm, err := my.Proof(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		pp, err := px.Proof(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pm.Entry, pp.Entry) || fmt.Sprint(pm.Hashes) != fmt.Sprint(pp.Hashes) {
			t.Errorf("proof %d differs", i)
		}
	}
	// Dedup, across a reopen (and the schema applied again).
	st2, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	want := uint64(slices.IndexFunc(inOrder, func(e []byte) bool { return string(e) == "entry 7" }))
	p, err := tlog.Open(st2, s.Verifier()).Add(ctx, s, []byte("entry 7"))
	if err != nil || p.Index != want || !p.Existing {
		t.Fatalf("duplicate after reopening: %+v %v", p, err)
	}
	p, err = tlog.Open(st2, s.Verifier()).Add(ctx, s, []byte("entry 300"))
	if err != nil || p.Index != 300 || p.Existing {
		t.Fatalf("a new entry: %+v %v", p, err)
	}
	// ReplaceCheckpoint: only over the current checkpoint.
	cur, _ := st2.ReadCheckpoint(ctx)
	if err := st2.ReplaceCheckpoint(ctx, []byte("not it"), cur); err == nil {
		t.Fatal("replaced a checkpoint that changed meanwhile")
	}
	if err := st2.ReplaceCheckpoint(ctx, cur, cur); err != nil {
		t.Fatal(err)
	}
}
