//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog/server"
)

// peakRSS returns the peak resident set (VmHWM) of the running process
// pid, in bytes. After exec a process has a fresh address space, so this
// is the server's own high-water mark, not its parent's.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q", v)
			}
			return kib << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// servedMemoryBound is the documented bound of 'log serve' (README,
// docs/transparency.md, --help): the submissions' budget (--max-memory)
// plus the headroom the Go runtime's memory limit adds.
const servedMemoryBound = server.DefaultMaxMemory + serveMemoryHeadroom

// TestCLILogServeMemoryBounded: 32 submissions of 16 MiB at once (half of
// them a valid bundle padded with white space, half fifteen strings of a
// million characters each, the costliest large bodies to admit) keep a
// default 'log serve' under its documented bound (--max-memory + 128 MiB,
// 384 MiB: before the memory budget they took 1.1 GiB), and honest small
// submissions ('log add --server', which retries a 503) succeed
// meanwhile. It sends 512 MiB over loopback; -short skips it.
func TestCLILogServeMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: sends 32 bodies of 16 MiB to a log server")
	}
	bin := buildBinary(t)
	e := newLogEnv(t)
	dir := e.initLog("log")
	srv := startServe(t, bin, "--dir", dir, "--key", e.p("log.key"))

	ex := mustRead(t, exampleBundleFile(t, e.dir))
	padded := append(bytes.Repeat([]byte(" "), server.DefaultMaxBody-len(ex)), ex...)
	long := []byte("[" + strings.Repeat(`"`+strings.Repeat("a", canonjson.MaxStringCodePoints-1)+`",`, 15) + "1]")
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		status = map[string]int{}
	)
	for i := range 32 {
		body := padded
		if i%2 == 1 {
			body = long
		}
		wg.Go(func() {
			what := "error"
			resp, err := http.Post(srv.url+"/add", "application/json", bytes.NewReader(body))
			if err == nil {
				resp.Body.Close()
				what = strconv.Itoa(resp.StatusCode)
			}
			mu.Lock()
			status[what]++
			mu.Unlock()
		})
	}
	for i, os := range []string{"haiku", "plan9", "illumos"} {
		f := osVariantBundleFile(t, e.dir, os)
		e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), f, "-o", e.p(fmt.Sprintf("honest-%d.json", i)))
	}
	wg.Wait()
	peak := peakRSS(t, srv.cmd.Process.Pid)
	t.Logf("32 x 16 MiB: answers %v; peak RSS %.1f MiB (bound %d MiB)", status, float64(peak)/(1<<20), servedMemoryBound>>20)
	if peak > servedMemoryBound {
		t.Errorf("peak RSS %.1f MiB, more than the documented %d MiB", float64(peak)/(1<<20), servedMemoryBound>>20)
	}
	for what := range status {
		if what != "200" && what != "422" && what != "503" && what != "error" {
			t.Errorf("answers %v: want only 200, 422 and 503", status)
		}
	}
}
