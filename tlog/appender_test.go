package tlog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/transparency-dev/tessera"
)

// cosignHook returns an OnCheckpoint hook that cosigns each new checkpoint
// with w and attaches the cosignature through the appender it is given,
// and the sizes it was called for.
func cosignHook(t *testing.T, lv *signednote.Verifier, w *signednote.WitnessSigner, wv *signednote.Verifier) (func(context.Context, *tlog.Appender, *signednote.Checkpoint), func() []uint64) {
	var mu sync.Mutex
	var sizes []uint64
	hook := func(ctx context.Context, ap *tlog.Appender, cp *signednote.Checkpoint) {
		mu.Lock()
		sizes = append(sizes, cp.Size)
		mu.Unlock()
		c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp.Note}, lv, w, nil, testNow)
		if err != nil {
			t.Errorf("cosigning size %d: %v", cp.Size, err)
			return
		}
		_, err = ap.UpdateCheckpoint(ctx, func(cur *signednote.Checkpoint) ([]byte, error) {
			a, err := witness.Attach(cur.Note, lv, []*signednote.Verifier{wv}, []witness.CosignatureInput{{Source: "w1", Data: c.Line}})
			if err != nil {
				return nil, err
			}
			return a.Checkpoint, nil
		})
		if err != nil {
			t.Logf("attaching to size %d: %v (a newer checkpoint is expected to win)", cp.Size, err)
		}
	}
	return hook, func() []uint64 {
		mu.Lock()
		defer mu.Unlock()
		return append([]uint64(nil), sizes...)
	}
}

// TestAppenderUpdateCheckpoint: while an appender is open, its hook
// attaches cosignatures through Appender.UpdateCheckpoint (no deadlock on
// the Log's lock), each tree is hooked once (the cosigned replacement is
// not a new checkpoint), and with AwaitHook every proof Add returns
// carries the cosignature. Concurrent Adds never see the published
// checkpoint go back (a replacement racing Tessera's publisher would
// publish an older tree over a newer one).
func TestAppenderUpdateCheckpoint(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	_, lv, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	w, wv, _ := signednotetest.WitnessKey(t, testOnlyWitness1Seed, "example.org/witness-1")
	hook, sizes := cosignHook(t, lv, w, wv)
	ap, err := l.NewAppender(c, s, tlog.AppenderOptions{BatchSize: 4, BatchMaxAge: 10 * time.Millisecond, OnCheckpoint: hook, AwaitHook: true})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var seen []uint64
	var watch sync.WaitGroup
	watch.Go(func() {
		for {
			if cp, err := ap.Checkpoint(c); err == nil && (len(seen) == 0 || seen[len(seen)-1] != cp.Size) {
				seen = append(seen, cp.Size)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	const n = 24
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p, err := ap.Add(c, fmt.Appendf(nil, "cosigned entry %d", i))
			if err != nil {
				t.Error(err)
				return
			}
			cs, err := witness.Cosigners(p.Checkpoint.Note, lv, []*signednote.Verifier{wv})
			if err != nil || len(cs) != 1 {
				t.Errorf("entry %d: proof against size %d has cosigners %v (%v), want the witness's", p.Index, p.Checkpoint.Size, cs, err)
			}
		})
	}
	wg.Wait()
	close(stop)
	watch.Wait()
	if err := ap.Close(c); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("the published checkpoint went back: sizes seen %v", seen)
		}
	}
	got := sizes()
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("hook called twice for a tree or out of order: %v", got)
		}
	}
	cp, err := l.Checkpoint(c)
	if err != nil || cp.Size != n {
		t.Fatalf("final checkpoint %v, %v; want size %d", cp, err, n)
	}
	// Control: the Log's own UpdateCheckpoint works again after Close.
	if _, err := l.UpdateCheckpoint(c, func(cur *signednote.Checkpoint) ([]byte, error) { return cur.Note, nil }); err != nil {
		t.Fatal(err)
	}
}

// TestAppenderAwaitHookBounded: an Add whose hook never returns is bounded
// by its context (the server's per-submission timeout); without AwaitHook
// the same hook does not delay Add.
func TestAppenderAwaitHookBounded(t *testing.T) {
	for _, await := range []bool{true, false} {
		t.Run(fmt.Sprint("await=", await), func(t *testing.T) {
			c := ctx(t)
			l, s := newLog(t, filepath.Join(t.TempDir(), "log"), testOnlyLogSeed)
			release := make(chan struct{})
			ap, err := l.NewAppender(c, s, tlog.AppenderOptions{AwaitHook: await, OnCheckpoint: func(ctx context.Context, _ *tlog.Appender, cp *signednote.Checkpoint) {
				if cp.Size > 0 {
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer ap.Close(c)
			defer close(release)
			actx, cancel := context.WithTimeout(c, 2*time.Second)
			defer cancel()
			_, err = ap.Add(actx, []byte("entry"))
			if await && (err == nil || actx.Err() == nil) {
				t.Fatalf("await: %v, want the context's deadline", err)
			}
			if !await && err != nil {
				t.Fatalf("no await: %v", err)
			}
		})
	}
}

// publishingStore is a log directory that says it publishes its own
// checkpoints (tlog.CheckpointPublisher) and records how it was run.
type publishingStore struct {
	*posix.Storage
	started, stopped chan struct{}
	interval         time.Duration
}

func (p *publishingStore) PublishCheckpoints(ctx context.Context, opts *tessera.AppendOptions) {
	p.interval = opts.CheckpointInterval()
	close(p.started)
	<-ctx.Done()
	close(p.stopped)
}

// TestAppenderRunsCheckpointPublisher: an appender on storage that
// publishes its own checkpoints runs its publisher, with the appender's
// options (their checkpoint interval), until Close.
func TestAppenderRunsCheckpointPublisher(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	newLog(t, dir, testOnlyLogSeed)
	s, v, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	st := &publishingStore{Storage: posix.New(dir), started: make(chan struct{}), stopped: make(chan struct{})}
	ap, err := tlog.Open(st, v).NewAppender(c, s, tlog.AppenderOptions{CheckpointInterval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-st.started:
	case <-c.Done():
		t.Fatal("the storage's publisher was not run")
	}
	if err := ap.Close(c); err != nil {
		t.Fatal(err)
	}
	select {
	case <-st.stopped:
	default:
		t.Fatal("Close returned while the publisher still ran")
	}
	if st.interval != 300*time.Millisecond {
		t.Fatalf("publisher run with interval %v", st.interval)
	}
}
