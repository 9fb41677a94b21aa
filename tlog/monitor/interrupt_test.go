package monitor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpres/mcpres/tlog/monitor"
)

// failingBundles is a source whose entry bundle fail fails: after
// calling before (which may cancel the run's context), with err.
type failingBundles struct {
	monitor.Source
	fail   uint64
	before func()
	err    error
}

func (s failingBundles) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	if index == s.fail {
		s.before()
		return nil, &monitor.SourceError{Source: s.Name(), Resource: fmt.Sprintf("tile/entries/%03d", index), Err: s.err}
	}
	return s.Source.ReadEntryBundle(ctx, index, p)
}

// TestInterruptedCatchUpResumes: a catch-up interrupted in the middle of
// a chunk (SIGTERM cancels the context while a bundle is being read, and
// the read fails with the context's error) is no finding about the log:
// no alert, the state stays at the last chunk that verified, and the next
// run reads only the rest, alerting once for what it had not read. The
// control: the same read failing while the run goes on is a tiles alert.
func TestInterruptedCatchUpResumes(t *testing.T) {
	l := newLog(t, "log")
	var es [][]byte
	for i := range 600 {
		es = append(es, entry(t, fmt.Sprintf("acme/s%d", i), digest('1')))
	}
	l.add(t, es...)

	run := func(h *harness, ctx context.Context, src monitor.Source) (*monitor.Result, []*monitor.Alert) {
		t.Helper()
		var as []*monitor.Alert
		res, err := monitor.Run(ctx, h.cfg, []monitor.Source{src}, func(a *monitor.Alert) error {
			as = append(as, a)
			return nil
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return res, as
	}
	newH := func() *harness {
		h := newHarness(t, l.key)
		h.cfg.ChunkBundles = 1
		h.cfg.Watch = watch(t, "acme/s3", "acme/s300")
		return h
	}

	h := newH()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, as := run(h, ctx, failingBundles{Source: dir(t, l), fail: 1, before: cancel, err: context.Canceled})
	wantKinds(t, as, "watched-entry") // acme/s3, in the chunk that verified
	if res.Next != 256 || res.Entries != 256 {
		t.Fatalf("interrupted run: result %+v, want next 256 after 256 entries", res)
	}
	res, as = run(h, context.Background(), dir(t, l))
	wantKinds(t, as, "watched-entry") // acme/s300 only: acme/s3 is not alerted again
	if res.Next != 600 || res.Entries != 344 || as[0].Entry.Index != 300 {
		t.Fatalf("resumed run: result %+v, alert %+v", res, as[0].Entry)
	}

	// Control: the same failure without an interruption is a finding.
	h = newH()
	res, as = run(h, context.Background(), failingBundles{Source: dir(t, l), fail: 1, before: func() {}, err: errors.New("connection reset")})
	wantKinds(t, as, "watched-entry,tiles")
	if res.Next != 256 {
		t.Fatalf("failed run: result %+v, want next 256", res)
	}
}
