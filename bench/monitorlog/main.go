// Command monitorlog writes the log the bench's monitor workload catches
// up on: a Tessera POSIX log of N entries, each a valid
// mcpres.transparency-entry (three in four /v2 naming one signer, the
// rest /v1), every one about its own subject, appended in large batches
// in one process, signed with a throwaway log key made at start.
//
//	monitorlog --dir DIR --vkey FILE --entries N
//
// DIR must not exist; FILE receives the log's verifier key (what
// `mcpres log vkey` writes). It prints "N entries in Ts".
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
	"k8s.io/klog/v2"
)

// origin names the throwaway log: a test-only name.
const origin = "bench.example/monitor-log"

// batch is how many entries are queued before waiting for their indices:
// Tessera's batch size and its pushback bound.
const batch = 1 << 15

func main() {
	dir := flag.String("dir", "", "the log directory to create")
	vkey := flag.String("vkey", "", "where to write the log's verifier key")
	n := flag.Int("entries", 1_000_000, "entries to append")
	flag.Parse()
	if *dir == "" || *vkey == "" || *n < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: monitorlog --dir DIR --vkey FILE --entries N")
		os.Exit(2)
	}
	klog.SetLogger(logr.Discard())
	start := time.Now()
	if err := run(*dir, *vkey, uint64(*n)); err != nil {
		fmt.Fprintln(os.Stderr, "monitorlog:", err)
		os.Exit(1)
	}
	fmt.Printf("%d entries in %.1fs\n", *n, time.Since(start).Seconds())
}

func run(dir, vkeyPath string, n uint64) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists", dir)
	}
	skey, vkey, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, origin)
	if err != nil {
		return err
	}
	signer, err := signednote.ParseLogSigner(skey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(vkeyPath, []byte(vkey+"\n"), 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drv, err := posix.New(ctx, posix.Config{Path: dir})
	if err != nil {
		return err
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(batch, 50*time.Millisecond).
		WithPushback(2 * batch).
		WithCheckpointInterval(100 * time.Millisecond).
		WithCheckpointRepublishInterval(0)
	app, shutdown, reader, err := tessera.NewAppender(ctx, drv, opts)
	if err != nil {
		return err
	}
	futures := make([]tessera.IndexFuture, 0, batch)
	for i := uint64(0); i < n; {
		futures = futures[:0]
		for ; i < n && len(futures) < batch; i++ {
			data, err := entry(i)
			if err != nil {
				return err
			}
			futures = append(futures, app.Add(ctx, tessera.NewEntry(data)))
		}
		for _, f := range futures {
			idx, err := f()
			if err != nil {
				return fmt.Errorf("appending: %v", err)
			}
			if idx.IsDup {
				return fmt.Errorf("entry %d is a duplicate", idx.Index)
			}
		}
	}
	// Wait for a checkpoint that covers every entry.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		raw, err := reader.ReadCheckpoint(ctx)
		if err == nil {
			text, _, _ := bytes.Cut(raw, []byte("\n\n"))
			cp, err := signednote.ParseBody(append(text, '\n'))
			if err == nil && cp.Size == n {
				break
			}
		}
		if time.Now().After(deadline) {
			return errors.New("no checkpoint of every entry within 5 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	sctx, scancel := context.WithTimeout(context.Background(), time.Minute)
	defer scancel()
	if err := shutdown(sctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("shutting the appender down: %v", err)
	}
	return nil
}

// entry returns the canonical encoding of entry i, checked by
// offline.ParseEntry (what the monitor decodes it with) for a sample.
func entry(i uint64) ([]byte, error) {
	h := func(what string) string {
		s := sha256.Sum256(fmt.Appendf(nil, "%s %d", what, i))
		return fmt.Sprintf("%x", s)
	}
	e := offline.Entry{
		SchemaVersion:           offline.SchemaVersionEntry,
		Subject:                 offline.EntrySubject{Name: fmt.Sprintf("io.github.bench-%d/server-%d", i%1000, i), Sha256: h("subject")},
		EvidenceBundleDigest:    h("bundle"),
		ScenarioFingerprint:     h("scenario"),
		ExecutionInstanceDigest: h("execution"),
	}
	if i%4 != 0 {
		e.SchemaVersion = offline.SchemaVersionEntrySigned
		e.Signers = []offline.EntrySigner{{KeyFingerprint: h("key"), SignerIdentity: fmt.Sprintf("release@bench-%d.example", i%1000),
			SigningTime: time.Date(2026, 8, 27, 18, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")}}
	}
	data, err := e.Marshal()
	if err != nil {
		return nil, err
	}
	if i < 1024 || i%4099 == 0 {
		if _, err := offline.ParseEntry(data); err != nil {
			return nil, fmt.Errorf("entry %d: %v", i, err)
		}
	}
	return data, nil
}
