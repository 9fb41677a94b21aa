package main

import (
	"os"
	"runtime/debug"
)

// Garbage collection of a `log monitor` run. A catch-up streams the log
// through a few MB of live memory (one entry bundle, one chunk's alerts)
// while it allocates each bundle it reads; at Go's default (GOGC=100, a
// 4 MB minimum heap) it collects every few MB read, which on a million
// entries was a third of its CPU. The budget is 64 MiB of memory,
// flat in the log's size, so the run lets the heap grow to five times
// what is live (GOGC=400), under a soft limit of monitorMemoryLimit that
// makes the collector work harder before the budget is reached. GOGC or
// GOMEMLIMIT in the environment are the user's and win. The bench
// (README, Performance) runs its floor at Go's defaults and says so.
const (
	monitorGCPercent   = 400
	monitorMemoryLimit = 48 << 20
)

// monitorGC sets the collector for a monitor run and returns what puts
// the previous settings back (the commands also run in process, in tests).
func monitorGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	pct := debug.SetGCPercent(monitorGCPercent)
	limit := debug.SetMemoryLimit(monitorMemoryLimit)
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}
