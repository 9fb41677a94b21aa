package aws_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/aws"
	"github.com/mcpres/mcpres/tlog/aws/awstest"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
	"github.com/mcpres/mcpres/tlog/posix"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

var testOnlyLogSeed = bytes.Repeat([]byte{0x42}, 32)

func signer(t testing.TB, origin string) *signednote.LogSigner {
	skey, _, err := signednote.GenerateKey(bytes.NewReader(testOnlyLogSeed), signednote.TypeEd25519, origin)
	if err != nil {
		t.Fatal(err)
	}
	s, err := signednote.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newConfig starts a gateway, makes a bucket and a database, and returns
// their configuration (credentials in the environment).
func newConfig(t *testing.T) (*aws.Config, *awstest.Server) {
	t.Helper()
	dsn := mysqltest.NewDatabase(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	return &aws.Config{Endpoint: srv.Endpoint, Region: awstest.Region, Bucket: srv.Bucket(t), PathStyle: true, Database: dsn}, srv
}

// TestProbeConditionalWrites: the gateway enforces If-None-Match: * (the
// probe passes, three races out of three); a stand-in that accepts every
// PUT fails it, naming the problem.
func TestProbeConditionalWrites(t *testing.T) {
	cfg, _ := newConfig(t)
	ctx := context.Background()
	st, err := aws.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.ProbeConditionalWrites(ctx); err != nil {
		t.Fatalf("the gateway: %v", err)
	}

	// The control: an object store that ignores the header (stores
	// every PUT). Only this test uses a stand-in.
	var mu sync.Mutex
	objects := map[string][]byte{}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			objects[r.URL.Path] = b
			w.Header().Set("ETag", `"x"`)
		case http.MethodGet, http.MethodHead:
			b, ok := objects[r.URL.Path]
			if !ok {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>no</Message></Error>`)
				return
			}
			w.Write(b)
		case http.MethodDelete:
			delete(objects, r.URL.Path)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer fake.Close()
	fcfg := *cfg
	fcfg.Endpoint = fake.URL
	fst, err := aws.Open(ctx, &fcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer fst.Close()
	if err := fst.ProbeConditionalWrites(ctx); !errors.Is(err, aws.ErrNoConditionalWrites) {
		t.Fatalf("a store that ignores If-None-Match: got %v, want ErrNoConditionalWrites", err)
	}
}

// TestS3SameAsPOSIX: the same entries give the same tree on the bucket as
// in a POSIX directory; reads come from the bucket; a duplicate is
// answered with its entry after reopening; cosignatures replace the
// checkpoint only if unchanged; a log of another origin is refused.
func TestS3SameAsPOSIX(t *testing.T) {
	cfg, srv := newConfig(t)
	ctx := context.Background()
	s := signer(t, "example.org/mcpres-s3-test")
	st, err := aws.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lg := tlog.Open(st, s.Verifier())
	if _, err := lg.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Init(ctx, s); !errors.Is(err, tlog.ErrExists) {
		t.Fatalf("second init: %v, want ErrExists", err)
	}
	px := tlog.Open(posix.New(filepath.Join(t.TempDir(), "log")), s.Verifier())
	if _, err := px.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	a, err := lg.NewAppender(ctx, s, tlog.AppenderOptions{BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	var entries [][]byte
	for i := range 40 {
		entries = append(entries, fmt.Appendf(nil, "entry %d", i))
	}
	idx := make([]uint64, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			p, err := a.Add(ctx, e)
			if err != nil {
				t.Errorf("add %d: %v", i, err)
				return
			}
			idx[i] = p.Index
		})
	}
	wg.Wait()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	// The same entries in the same order in a POSIX log.
	ordered := make([][]byte, len(entries))
	for i, e := range entries {
		ordered[idx[i]] = e
	}
	pa, err := px.NewAppender(ctx, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ordered {
		if _, err := pa.Add(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	pa.Close(ctx)
	cs, err := lg.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := px.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Size != uint64(len(entries)) || cs.Size != cp.Size || cs.Hash != cp.Hash {
		t.Fatalf("bucket tree %d %x, POSIX tree %d %x", cs.Size, cs.Hash, cp.Size, cp.Hash)
	}
	// The checkpoint is the object in the gateway's folder: reads come
	// from the bucket.
	onDisk, err := os.ReadFile(filepath.Join(srv.Dir, cfg.Bucket, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := signednote.Open(onDisk, s.Verifier()); err != nil {
		t.Fatalf("the bucket's checkpoint: %v", err)
	}
	// Reopened: a duplicate is answered with its entry; proofs verify.
	st2, err := aws.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	lg2 := tlog.Open(st2, s.Verifier())
	a2, err := lg2.NewAppender(ctx, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a2.Add(ctx, entries[7])
	if err != nil || !p.Existing || p.Index != idx[7] {
		t.Fatalf("duplicate: %+v %v, want existing entry %d", p, err, idx[7])
	}
	a2.Close(ctx)
	for i := range entries {
		p, err := lg2.Proof(ctx, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Verify(); err != nil || !bytes.Equal(p.Entry, ordered[i]) {
			t.Fatalf("proof %d: %v", i, err)
		}
	}
	// Cosignatures: replaced only while the checkpoint is unchanged.
	cur, _ := st2.ReadCheckpoint(ctx)
	if err := st2.ReplaceCheckpoint(ctx, append([]byte("x"), cur...), cur); !errors.Is(err, tlog.ErrCheckpointChanged) {
		t.Fatalf("ReplaceCheckpoint with a stale prev: %v", err)
	}
	if err := st2.ReplaceCheckpoint(ctx, cur, cur); err != nil {
		t.Fatal(err)
	}
	// Another log's key is refused (the recorded key), and a bucket that
	// holds a log is refused by a database that does not know it.
	other := signer(t, "example.org/another-log")
	if _, _, err := aws.OpenLog(ctx, cfg, other.Verifier()); err == nil {
		t.Fatal("another log's key accepted")
	}
	fresh := *cfg
	fresh.Database = mysqltest.NewDatabase(t)
	if _, err := aws.Open(ctx, &fresh); !errors.Is(err, aws.ErrMismatch) {
		t.Fatalf("a bucket with a log beside an empty database: %v, want ErrMismatch", err)
	}
	// Control: the same empty database beside a new bucket opens.
	fresh.Bucket = srv.Bucket(t)
	st3, err := aws.Open(ctx, &fresh)
	if err != nil {
		t.Fatalf("an empty bucket and database: %v", err)
	}
	st3.Close()
	// And the database with a log beside an empty bucket is refused.
	wrong := *cfg
	wrong.Bucket = fresh.Bucket
	if _, err := aws.Open(ctx, &wrong); !errors.Is(err, aws.ErrMismatch) {
		t.Fatalf("a database with a log beside an empty bucket: %v, want ErrMismatch", err)
	}

}
