package monitor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpres/mcpres/tlog/monitor"
)

// TestFollow: the follow mode runs again after each interval, resuming
// from the state: an entry added between two runs is read (and alerts)
// by the next run only, once; it stops when the callback says so and when
// the context is done, by itself. Nothing here depends on how long a run
// takes: the runs are counted, not timed.
func TestFollow(t *testing.T) {
	l := newLog(t, "log")
	l.add(t, entry(t, "acme/server", digest('1')))
	h := newHarness(t, l.key)
	h.cfg.Watch = watch(t, "acme/*")
	h.cfg.Authoriser = byDigest{digest('1'): true}
	var alerts []*monitor.Alert
	emit := func(a *monitor.Alert) error { alerts = append(alerts, a); return nil }
	var results []monitor.Result
	err := monitor.Follow(context.Background(), h.cfg, []monitor.Source{dir(t, l)}, emit, time.Millisecond, func(r *monitor.Result) bool {
		results = append(results, *r)
		if len(results) == 2 {
			l.add(t, entry(t, "acme/server", digest('9')))
		}
		return len(results) < 4
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 4 {
		t.Fatalf("%d runs, want 4", len(results))
	}
	for i, want := range []struct {
		entries uint64
		alerts  int
	}{{1, 0}, {0, 0}, {1, 1}, {0, 0}} {
		if r := results[i]; r.Entries != want.entries || r.Alerts != want.alerts {
			t.Errorf("run %d: %+v, want %d entries, %d alerts", i+1, r, want.entries, want.alerts)
		}
	}
	wantKinds(t, alerts, "unauthorised-entry")

	// The context's end stops it (after the run in progress).
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	err = monitor.Follow(ctx, h.cfg, []monitor.Source{dir(t, l)}, emit, time.Hour, func(*monitor.Result) bool {
		runs++
		cancel()
		return true
	})
	if err != nil || runs != 1 {
		t.Fatalf("cancelled: %d runs, %v", runs, err)
	}

	// A run that cannot work ends it with its error; a bad interval is refused.
	bad := h.cfg
	bad.StateDir = ""
	if err := monitor.Follow(context.Background(), bad, []monitor.Source{dir(t, l)}, emit, time.Millisecond, func(*monitor.Result) bool { return true }); err == nil {
		t.Error("a run that cannot work: no error")
	}
	if err := monitor.Follow(context.Background(), h.cfg, []monitor.Source{dir(t, l)}, emit, 0, func(*monitor.Result) bool { return true }); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("interval 0: %v", err)
	}
}
