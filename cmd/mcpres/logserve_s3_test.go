//go:build mcpres_s3

package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	tlogaws "github.com/mcpres/mcpres/tlog/aws"
	"github.com/mcpres/mcpres/tlog/aws/awstest"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// writeS3Config writes an --s3 config file for a new bucket on srv and
// the database dsn (kept in $MCPRES_TEST_S3_DSN, as an operator keeps the
// password out of the file), and returns its path and the config.
func writeS3Config(t *testing.T, e *logEnv, srv *awstest.Server, dsn, name string) (string, *tlogaws.Config) {
	t.Helper()
	t.Setenv("MCPRES_TEST_S3_DSN", dsn)
	cfg := &tlogaws.Config{Endpoint: srv.Endpoint, Region: awstest.Region, Bucket: srv.Bucket(t), PathStyle: true, Database: "env:MCPRES_TEST_S3_DSN"}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := e.p(name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, cfg
}

// TestCLILogServeFrontendsS3: two 'log serve --s3' processes on one bucket
// (Versity's gateway) and one MariaDB database serve one log. The same
// bundle sent to both at once gets one entry; then frontend A is killed
// with SIGKILL in the middle of a burst, what it did not answer is sent to
// B, and at the end every acknowledged reference verifies offline and
// against a fresh proof built from tiles read from the bucket's folder, the log
// holds each bundle exactly once, every served checkpoint is consistent
// with the final one, and Tessera's fsck finds nothing wrong; 'log proof
// --s3' writes a reference for an entry.
func TestCLILogServeFrontendsS3(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	bin := buildBinary(t)
	e := newLogEnv(t)
	p := e.p
	conf, cfg := writeS3Config(t, e, srv, dsn, "s3.json")
	out, stderr := e.run("log", "init", "--s3", conf, "--key", p("log.key"))
	if strings.TrimSpace(out) != e.vkey("log") || strings.Contains(stderr, awstest.SecretKey) {
		t.Fatalf("log init --s3: stdout %q, stderr %q", out, stderr)
	}
	// A second init on the same bucket and database is refused.
	e.fail(2, "a log already exists there", "log", "init", "--s3", conf, "--key", p("log.key"))
	args := []string{"--s3", conf, "--key", p("log.key")}
	fa, fb := startServe(t, bin, args...), startServe(t, bin, args...)
	urls := []string{fa.url, fb.url}
	v, err := signednote.ParseLogVerifier(e.vkey("log"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: time.Minute}
	bodies := distinctBundles(t, 120)
	var (
		mu          sync.Mutex
		acks        = map[int]ack{}
		checkpoints [][]byte
	)
	record := func(i int, a frontendAnswer) {
		mu.Lock()
		defer mu.Unlock()
		if prev, ok := acks[i]; ok && prev.index != a.index {
			t.Errorf("bundle %d answered as entry %s and as entry %s", i, prev.index, a.index)
		}
		acks[i] = ack{bodies[i], a.index, a.proof}
	}

	// 1. The same bundle to both frontends at once: one entry.
	for i := range 10 {
		var answers [2]frontendAnswer
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j, u := range urls {
			wg.Go(func() {
				<-start
				a, err := postBundle(hc, u, bodies[i])
				if err != nil || a.status != http.StatusOK {
					t.Errorf("bundle %d to frontend %d: %d %v", i, j, a.status, err)
				}
				answers[j] = a
			})
		}
		close(start)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		if answers[0].index != answers[1].index || answers[0].existing == answers[1].existing {
			t.Fatalf("bundle %d sent to both frontends at once: entries %s (existing %v) and %s (existing %v); want one entry, new for one answer only",
				i, answers[0].index, answers[0].existing, answers[1].index, answers[1].existing)
		}
		record(i, answers[0])
		record(i, answers[1])
	}

	// 2. A burst across both; frontend A is killed mid-burst. What A did
	// not answer is sent to B, as a load balancer's retry would.
	var next atomic.Int32
	next.Store(10)
	var killed atomic.Bool
	var unanswered []int
	var wg sync.WaitGroup
	for c := range 32 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				j := (i + c) % 2
				if killed.Load() {
					j = 1
				}
				a, err := postBundle(hc, urls[j], bodies[i])
				if j == 0 && (err != nil || a.status != http.StatusOK) && killed.Load() {
					mu.Lock()
					unanswered = append(unanswered, i)
					mu.Unlock()
					continue
				}
				if err != nil || a.status != http.StatusOK {
					t.Errorf("bundle %d to frontend %d: %d %v", i, j, a.status, err)
					return
				}
				record(i, a)
				mu.Lock()
				n := len(acks)
				mu.Unlock()
				if n == 50 && killed.CompareAndSwap(false, true) {
					fa.cmd.Process.Kill() // SIGKILL, mid-burst
				}
			}
		})
	}
	wg.Wait()
	<-fa.exited
	if !killed.Load() {
		t.Fatal("frontend A was never killed")
	}
	for _, i := range unanswered {
		a, err := postBundle(hc, fb.url, bodies[i])
		if err != nil || a.status != http.StatusOK {
			t.Fatalf("bundle %d, unanswered by the killed frontend, to the other: %d %v", i, a.status, err)
		}
		record(i, a)
	}
	if t.Failed() {
		t.FailNow()
	}
	resp, err := http.Get(fb.url + "/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkpoints = append(checkpoints, served)
	if err := fb.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("frontend B after the burst: %v\n%s", err, fb.log())
	}
	t.Logf("%d unanswered by the killed frontend, resent to the other", len(unanswered))
	if len(acks) != len(bodies) {
		t.Fatalf("%d of %d bundles acknowledged", len(acks), len(bodies))
	}
	// Read straight from the bucket's folder (never through a frontend,
	// the S3 API or the database).
	final := checkLogHolds(t, bucketTiles(t, srv, cfg.Bucket), v, slices.Collect(maps.Values(acks)), checkpoints)
	if final.Size != uint64(len(bodies)) {
		t.Fatalf("log size %d for %d distinct bundles: a bundle was appended twice, or an entry was lost", final.Size, len(bodies))
	}
	// log proof --s3: a fresh reference, from the bucket's tiles.
	e.run("log", "proof", "--s3", conf, "--index", "3", "-o", p("three.ref.json"))
	if ref := mustReadString(t, p("three.ref.json")); !strings.Contains(ref, `"entryUuid":"3"`) && !strings.Contains(ref, `"entryUuid": "3"`) {
		t.Fatalf("log proof --s3: %s", ref)
	}
}

// TestCLILogS3Refusals: an object store that ignores If-None-Match is
// refused before anything is written, naming the problem (the honest
// gateway passes the same probe in TestCLILogServeFrontendsS3); a config
// with a credential in it, or a plain http endpoint on another host, is a
// usage error; --mysql warns that it is deprecated.
func TestCLILogS3Refusals(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	e := newLogEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "mcpres-test-access")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "mcpres-test-only-secret")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	var mu sync.Mutex
	objects := map[string][]byte{}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodPut: // ignores If-None-Match
			b, _ := io.ReadAll(r.Body)
			objects[r.URL.Path] = b
		case http.MethodGet:
			b, ok := objects[r.URL.Path]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code></Error>`)
				return
			}
			w.Write(b)
		case http.MethodDelete:
			delete(objects, r.URL.Path)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer fake.Close()
	t.Setenv("MCPRES_TEST_S3_DSN", dsn)
	write := func(name, doc string) string {
		if err := os.WriteFile(e.p(name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return e.p(name)
	}
	conf := write("fake.json", `{"endpoint": "`+fake.URL+`", "region": "us-east-1", "bucket": "mcpres-log", "pathStyle": true, "database": "env:MCPRES_TEST_S3_DSN"}`)
	stderr := e.fail(2, "does not enforce conditional writes", "log", "init", "--s3", conf, "--key", e.p("log.key"))
	if strings.Contains(stderr, "mcpres-test-only-secret") {
		t.Fatalf("a credential printed: %s", stderr)
	}
	mu.Lock()
	for k := range objects {
		if !strings.Contains(k, ".mcpres/probe/") {
			t.Errorf("the refused store was written %s", k)
		}
	}
	mu.Unlock()
	e.fail(2, "credentials are never in the configuration", "log", "init", "--s3",
		write("cred.json", `{"region": "us-east-1", "bucket": "mcpres-log", "database": "env:X", "secretAccessKey": "s"}`), "--key", e.p("log.key"))
	e.fail(2, "plain http only to a loopback host", "log", "serve", "--s3",
		write("http.json", `{"endpoint": "http://s3.example.org", "region": "us-east-1", "bucket": "mcpres-log", "database": "env:X"}`), "--key", e.p("log.key"))
	e.fail(2, "give one of --dir, --s3 and --mysql", "log", "proof", "--s3", conf, "--dir", e.p("d"), "--index", "0")
	t.Setenv("MCPRES_TEST_MYSQL_LOG_DSN", mysqltest.NewDatabase(t))
	_, stderr = e.run("log", "init", "--mysql", "env:MCPRES_TEST_MYSQL_LOG_DSN", "--key", e.p("log.key"))
	if !strings.Contains(stderr, "--mysql (Tessera's MySQL driver) is deprecated") || !strings.Contains(stderr, "log migrate") {
		t.Fatalf("--mysql without a deprecation warning: %s", stderr)
	}
}

// TestCLILogMigrate: a log made with 'log init --mysql' (entries appended
// through the MySQL driver) moves to object storage with 'log migrate':
// the dry run writes nothing; the migration keeps origin, size and root
// hash (the bucket's checkpoint is the source's, byte for byte); a second
// run says it is migrated already; 'log proof --s3' proves an entry from
// the bucket; 'log init --s3' on the destination is refused.
func TestCLILogMigrate(t *testing.T) {
	ctx := context.Background()
	srcDSN := mysqltest.NewDatabase(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	e := newLogEnv(t)
	t.Setenv("MCPRES_TEST_SRC_DSN", srcDSN)
	e.run("log", "init", "--mysql", "env:MCPRES_TEST_SRC_DSN", "--key", e.p("log.key"))
	v, err := signednote.ParseLogVerifier(e.vkey("log"))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signednote.ParseLogSigner(mustReadString(t, e.p("log.key")))
	if err != nil {
		t.Fatal(err)
	}
	src, err := mysql.Open(ctx, srcDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	a, err := tlog.Open(src, v).NewAppender(ctx, signer, tlog.AppenderOptions{BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, body := range distinctBundles(t, 270) {
		doc, err := canonjson.Parse(body)
		if err != nil {
			t.Fatal(err)
		}
		entry, err := offline.EntryFor(doc).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if _, err := a.Add(ctx, entry); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	a.Close(ctx)
	before, err := src.ReadCheckpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conf, cfg := writeS3Config(t, e, srv, mysqltest.NewDatabase(t), "s3.json")
	_, stderr := e.run("log", "migrate", "--from-mysql", "env:MCPRES_TEST_SRC_DSN", "--to-s3", conf, "--dry-run")
	if !strings.Contains(stderr, "would migrate log "+v.Name()+" (size 270") {
		t.Fatalf("dry run: %s", stderr)
	}
	if entries, _ := os.ReadDir(srv.Dir + "/" + cfg.Bucket); len(entries) != 0 {
		t.Fatalf("the dry run wrote %d objects", len(entries))
	}
	_, stderr = e.run("log", "migrate", "--from-mysql", "env:MCPRES_TEST_SRC_DSN", "--to-s3", conf)
	if !strings.Contains(stderr, "migrated log "+v.Name()+" (size 270") {
		t.Fatalf("migrate: %s", stderr)
	}
	after, err := os.ReadFile(srv.Dir + "/" + cfg.Bucket + "/checkpoint")
	if err != nil || string(after) != string(before) {
		t.Fatalf("the bucket's checkpoint is not the source's (%v):\n%s\n%s", err, after, before)
	}
	_, stderr = e.run("log", "migrate", "--from-mysql", "env:MCPRES_TEST_SRC_DSN", "--to-s3", conf, "--dry-run")
	if !strings.Contains(stderr, "already migrated") {
		t.Fatalf("dry run after: %s", stderr)
	}
	e.run("log", "proof", "--s3", conf, "--index", "269", "-o", e.p("last.ref.json"))
	e.fail(2, "a log already exists there", "log", "init", "--s3", conf, "--key", e.p("log.key"))
	e.fail(2, "--from-mysql and --to-s3 are required", "log", "migrate", "--to-s3", conf)
}
