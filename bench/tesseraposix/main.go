// Command tesseraposix is the anchor of log serve --dir: Tessera's POSIX
// driver alone, with the batching and checkpoint interval log serve uses,
// appending entries of one size from concurrent clients, each waiting for
// a published checkpoint that covers its entry before it appends the
// next. No HTTP, no admission, no proofs, no deduplication: what a log on
// one directory costs before anything mcpres adds.
//
//	tesseraposix --dir DIR --clients N --duration D --entry-size BYTES
//
// DIR must not exist. It prints what mcpres-loadgen prints:
// "N submissions in Ts: R/s; time to reference p50 …, p99 …, max …;
// failed map[]".
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/loadgen"
	"github.com/mcpres/mcpres/tlog/server"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
	"k8s.io/klog/v2"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

func main() {
	klog.SetLogger(logr.Discard())
	os.Exit(progexit.Code("tesseraposix", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run parses args (flag's messages to stderr), appends for the duration
// asked and prints the result line on stdout.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tesseraposix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "the log directory to create")
	clients := fs.Int("clients", 512, "concurrent clients")
	duration := fs.Duration("duration", 20*time.Second, "how long to run (at most 5m)")
	size := fs.Int("entry-size", 437, "bytes per entry")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return progexit.UsageError{Msg: err.Error(), Said: true}
	}
	if *dir == "" || fs.NArg() > 0 || *clients < 1 || *duration <= 0 || *duration > 5*time.Minute || *size < 16 || *size > tlog.MaxEntrySize {
		return progexit.UsageError{Msg: "usage: tesseraposix --dir DIR --clients N --duration D (at most 5m) --entry-size 16..MaxEntrySize"}
	}
	r, err := appendFor(*dir, *clients, *duration, *size)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, r)
	return err
}

// appendFor appends from clients for d, each waiting for its entry's
// checkpoint, on a new log in dir.
func appendFor(dir string, clients int, d time.Duration, size int) (loadgen.Result, error) {
	if _, err := os.Stat(dir); err == nil {
		return loadgen.Result{}, fmt.Errorf("%s exists", dir)
	}
	skey, _, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "bench.example/tessera-alone")
	if err != nil {
		return loadgen.Result{}, err
	}
	signer, err := signednote.ParseLogSigner(skey)
	if err != nil {
		return loadgen.Result{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drv, err := posix.New(ctx, posix.Config{Path: dir})
	if err != nil {
		return loadgen.Result{}, err
	}
	// log serve's tuning (tlog/server and tlog's appender options).
	tuning := server.AppenderOptions()
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(tuning.BatchSize, tuning.BatchMaxAge).
		WithCheckpointInterval(tlog.CheckpointInterval).
		WithCheckpointRepublishInterval(0).
		WithGarbageCollectionInterval(tuning.GCInterval)
	app, shutdown, reader, err := tessera.NewAppender(ctx, drv, opts)
	if err != nil {
		return loadgen.Result{}, err
	}
	awaiter := tessera.NewPublicationAwaiter(ctx, reader.ReadCheckpoint, tlog.PollInterval)
	rctx, rcancel := context.WithTimeout(ctx, d)
	defer rcancel()
	var (
		next   atomic.Int64
		mu     sync.Mutex
		lat    []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	start := time.Now()
	for range clients {
		wg.Go(func() {
			entry := make([]byte, size)
			for rctx.Err() == nil {
				i := next.Add(1)
				// Distinct entries: a counter in front of random bytes.
				rand.Read(entry)
				copy(entry, fmt.Sprintf("%020d", i))
				t := time.Now()
				_, _, err := awaiter.Await(rctx, app.Add(rctx, tessera.NewEntry(slices.Clone(entry))))
				took := time.Since(t)
				if rctx.Err() != nil && err != nil {
					return // cut off by the end of the run
				}
				mu.Lock()
				if err != nil {
					failed++
				} else {
					lat = append(lat, took)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	sctx, scancel := context.WithTimeout(context.Background(), time.Minute)
	defer scancel()
	if err := shutdown(sctx); err != nil && !errors.Is(err, context.Canceled) {
		return loadgen.Result{}, fmt.Errorf("shutting the appender down: %v", err)
	}
	if len(lat) == 0 {
		return loadgen.Result{}, fmt.Errorf("no entry was published (%d failed)", failed)
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		i := int(p*float64(len(lat))+0.5) - 1
		return lat[min(max(i, 0), len(lat)-1)]
	}
	r := loadgen.Result{OK: len(lat), Failed: map[int]int{}, Elapsed: elapsed, Rate: float64(len(lat)) / elapsed.Seconds(),
		P50: q(0.5), P99: q(0.99), Max: lat[len(lat)-1]}
	if failed > 0 {
		r.Failed[0] = failed
	}
	return r, nil
}
