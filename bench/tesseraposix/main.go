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
)

func main() {
	dir := flag.String("dir", "", "the log directory to create")
	clients := flag.Int("clients", 512, "concurrent clients")
	duration := flag.Duration("duration", 20*time.Second, "how long to run (at most 5m)")
	size := flag.Int("entry-size", 437, "bytes per entry")
	flag.Parse()
	if *dir == "" || *clients < 1 || *duration <= 0 || *duration > 5*time.Minute || *size < 16 || *size > tlog.MaxEntrySize {
		fmt.Fprintln(os.Stderr, "usage: tesseraposix --dir DIR --clients N --duration D (at most 5m) --entry-size 16..MaxEntrySize")
		os.Exit(2)
	}
	klog.SetLogger(logr.Discard())
	if err := run(*dir, *clients, *duration, *size); err != nil {
		fmt.Fprintln(os.Stderr, "tesseraposix:", err)
		os.Exit(1)
	}
}

func run(dir string, clients int, d time.Duration, size int) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists", dir)
	}
	skey, _, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "bench.example/tessera-alone")
	if err != nil {
		return err
	}
	signer, err := signednote.ParseLogSigner(skey)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drv, err := posix.New(ctx, posix.Config{Path: dir})
	if err != nil {
		return err
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
		return err
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
		return fmt.Errorf("shutting the appender down: %v", err)
	}
	if len(lat) == 0 {
		return fmt.Errorf("no entry was published (%d failed)", failed)
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
	fmt.Println(r)
	return nil
}
