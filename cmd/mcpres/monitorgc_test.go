package main

import (
	"runtime/debug"
	"testing"
)

func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1) // negative: read only
}

// TestMonitorGC: a monitor run collects at GOGC=400 under a 48 MiB soft
// limit and puts the previous settings back; GOGC or GOMEMLIMIT in the
// environment (the control) leave the collector as the user set it.
func TestMonitorGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p0, l0 := gcSettings()
	restore := monitorGC()
	if p, l := gcSettings(); p != monitorGCPercent || l != monitorMemoryLimit {
		t.Errorf("during a run: GOGC=%d, limit %d; want %d, %d", p, l, monitorGCPercent, monitorMemoryLimit)
	}
	restore()
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Errorf("after a run: GOGC=%d, limit %d; want %d, %d as before", p, l, p0, l0)
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "off")
			restore := monitorGC()
			defer restore()
			if p, l := gcSettings(); p != p0 || l != l0 {
				t.Errorf("with %s set: GOGC=%d, limit %d; want the settings left as they were (%d, %d)", env, p, l, p0, l0)
			}
		})
	}
}
