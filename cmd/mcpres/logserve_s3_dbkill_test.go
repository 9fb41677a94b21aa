//go:build mcpres_s3

package main

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/aws/awstest"
	"github.com/mcpres/mcpres/tlog/monitor"
)

// bucketTiles is the log in a bucket of srv read straight from the
// folder the gateway keeps it in: no S3 request, no database.
func bucketTiles(t *testing.T, srv *awstest.Server, bucket string) tilesLog {
	t.Helper()
	src, err := monitor.NewDirSource(filepath.Join(srv.Dir, bucket))
	if err != nil {
		t.Fatal(err)
	}
	return tilesLog{src}
}

// TestCLILogServeDatabaseKillS3: the database of a log on object storage
// (a MariaDB server this test starts for itself, on its own port and data
// directory) is killed with SIGKILL in the middle of a burst of
// submissions to 'log serve --s3', then started again. The frontend
// either recovers (it answers the submissions that failed and the rest)
// or exits with an error naming the database (and a new one is started).
// Every acknowledged reference then verifies offline, the log proves each
// acknowledged entry again at its index from tiles read straight from the
// bucket's folder, acknowledged bundles sent again are answered with
// their entry, the log holds each bundle exactly once, every checkpoint
// served is consistent with the final one, and Tessera's fsck passes.
func TestCLILogServeDatabaseKillS3(t *testing.T) {
	db := awstest.StartMariaDB(t)
	srv := awstest.Start(t)
	srv.SetEnv(t)
	bin := buildBinary(t)
	e := newLogEnv(t)
	conf, cfg := writeS3Config(t, e, srv, db.DSN, "s3.json")
	e.run("log", "init", "--s3", conf, "--key", e.p("log.key"))
	args := []string{"--s3", conf, "--key", e.p("log.key")}
	fe := startServe(t, bin, args...)
	v, err := signednote.ParseLogVerifier(e.vkey("log"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 3 * time.Minute}
	bodies := distinctBundles(t, 200)
	var (
		mu          sync.Mutex
		acks        = map[int]ack{}
		failed      []int
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
	readCheckpoint := func(url string) {
		resp, err := hc.Get(url + "/checkpoint")
		if err != nil {
			return
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			mu.Lock()
			checkpoints = append(checkpoints, data)
			mu.Unlock()
		}
	}

	// 1. The burst: the database is killed once 60 submissions are
	// acknowledged; the clients stop once 16 have failed since.
	var next atomic.Int32
	var killed atomic.Bool
	var failedSince atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for !killed.Load() || failedSince.Load() < 16 {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				a, err := postBundle(hc, fe.url, bodies[i])
				if err != nil || a.status != http.StatusOK {
					if !killed.Load() {
						t.Errorf("bundle %d before the database was killed: %d %v", i, a.status, err)
						return
					}
					failedSince.Add(1)
					mu.Lock()
					failed = append(failed, i)
					mu.Unlock()
					continue
				}
				record(i, a)
				mu.Lock()
				n := len(acks)
				mu.Unlock()
				if n == 60 && killed.CompareAndSwap(false, true) {
					readCheckpoint(fe.url)
					db.Kill() // SIGKILL, mid-burst
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if !killed.Load() {
		t.Fatal("the database was never killed")
	}
	mu.Lock()
	t.Logf("%d acknowledged, %d failed while the database was down, %d not sent yet", len(acks), len(failed), max(0, len(bodies)-int(next.Load())))
	mu.Unlock()
	readCheckpoint(fe.url)

	// 2. The database is back: the frontend recovers or has exited
	// naming the database.
	db.Start()
	select {
	case <-fe.exited:
		if fe.cmd.ProcessState.Success() || !strings.Contains(fe.log(), "database") {
			t.Fatalf("the frontend exited after the database was killed (%v) without saying why:\n%s", fe.cmd.ProcessState, fe.log())
		}
		t.Logf("the frontend exited: %v\n%s", fe.cmd.ProcessState, fe.log())
		fe = startServe(t, bin, args...)
	default:
		t.Logf("the frontend is still running")
	}
	var rest []int
	mu.Lock()
	rest = append(rest, failed...)
	mu.Unlock()
	for i := int(next.Load()); i < len(bodies); i++ {
		rest = append(rest, i)
	}
	// A frontend that recovers may refuse while its connections to the
	// database come back, and pushes back (503, Retry-After) while the
	// integration of what was held catches up: a client retries 5xx
	// answers (log add --server does), a bounded number of times.
	post := func(i int) (frontendAnswer, error) {
		var a frontendAnswer
		var err error
		for range 5 {
			if a, err = postBundle(hc, fe.url, bodies[i]); err == nil && a.status == http.StatusOK {
				break
			}
			select {
			case <-fe.exited:
				return a, fmt.Errorf("the frontend exited after the database came back:\n%s", fe.log())
			case <-time.After(time.Second):
			}
		}
		return a, err
	}
	work := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range work {
				a, err := post(i)
				if err != nil || a.status != http.StatusOK {
					t.Errorf("bundle %d after the database came back: %d %v", i, a.status, err)
					continue
				}
				record(i, a)
			}
		})
	}
	for _, i := range rest {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Acknowledged bundles sent again (before the kill or after): the
	// same entry.
	n := 0
	for i, prev := range acks {
		if n++; n > 20 {
			break
		}
		a, err := post(i)
		if err != nil || a.status != http.StatusOK || a.index != prev.index || !a.existing {
			t.Fatalf("bundle %d (entry %s) sent again: %d, entry %s, existing %v, %v\n%s", i, prev.index, a.status, a.index, a.existing, err, fe.log())
		}
	}
	readCheckpoint(fe.url)
	if err := fe.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, fe.log())
	}
	if len(acks) != len(bodies) {
		t.Fatalf("%d of %d bundles acknowledged", len(acks), len(bodies))
	}
	final := checkLogHolds(t, bucketTiles(t, srv, cfg.Bucket), v, slices.Collect(maps.Values(acks)), checkpoints)
	if final.Size != uint64(len(bodies)) {
		t.Fatalf("log size %d for %d distinct bundles: a bundle was appended twice, or an entry was lost", final.Size, len(bodies))
	}
}
