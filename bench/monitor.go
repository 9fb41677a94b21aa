package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Issue 36's bounds on the monitor's catch-up: at most 1.5 times the CPU
// of the floor (bench/monitorfloor) on the same tiles, and at most 64 MiB
// of memory, flat in the log's size.
const (
	monitorGoal    = 1.5
	monitorRSSGoal = 64 << 10 // KiB
)

// monitorLog writes (once per run of the bench) the log of n entries
// bench/monitorlog makes, and returns its directory and verifier key.
func (b *bench) monitorLog(n int) (dir, vkey string, err error) {
	dir, vkey = b.path(fmt.Sprintf("monitor-log-%d", n)), b.path(fmt.Sprintf("monitor-log-%d.vkey", n))
	if _, err := os.Stat(vkey); err == nil {
		return dir, vkey, nil
	}
	os.RemoveAll(dir)
	fmt.Fprintf(b.log, "bench: writing a log of %s entries (bench/monitorlog)\n", thousands(n))
	cmd := exec.Command(b.bin["monitorlog"], "--dir", dir, "--vkey", vkey+".tmp", "--entries", strconv.Itoa(n))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("monitorlog: %v\n%s", err, tail(string(out)))
	}
	return dir, vkey, os.Rename(vkey+".tmp", vkey)
}

// serveStatic serves dir over HTTP on 127.0.0.1 from this process (a
// static file server: what a tlog-tiles log on a bucket or a web server
// is to a monitor), until stop.
func serveStatic(dir string) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", func() { srv.Close() }, nil
}

// monitorArgs is the catch-up measured: --once from the state in state,
// decoding every entry and matching it against a watch rule that no
// subject of the bench's log matches (so nothing alerts).
func monitorArgs(url, vkey, state string) []string {
	return []string{"log", "monitor", "--log", url, "--log-key", vkey, "--state", state, "--once", "--watch", "io.github.nobody/*"}
}

// monitorState reads the next entry of the one state file in dir, and
// the count of entries read into it over all runs.
func monitorState(dir string) (next, entries uint64, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) != 1 {
		return 0, 0, fmt.Errorf("state directory %s: %d state files (%v)", dir, len(files), err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return 0, 0, err
	}
	var st struct {
		Next    uint64 `json:"next"`
		Entries uint64 `json:"entries"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return 0, 0, fmt.Errorf("state %s: %v", files[0], err)
	}
	return st.Next, st.Entries, nil
}

// monitorEntries is the log's size of the monitor workload.
func (b *bench) monitorEntries() int {
	if b.c.quick {
		return min(b.c.monitorN, 40_000) // two chunks of the monitor at least: the resumed catch-up is interrupted halfway
	}
	return b.c.monitorN
}

// monitor: `mcpres log monitor --once` catching up from an empty state on
// a log of N entries served over HTTP by a static file server, against
// bench/monitorfloor reading the same log from the same server (CPU;
// peak RSS); its peak RSS at N/10 and N; and an interrupted catch-up
// resumed from its state.
func (b *bench) monitor() error {
	n := b.monitorEntries()
	dir, vkey, err := b.monitorLog(n)
	if err != nil {
		return err
	}
	url, stop, err := serveStatic(dir)
	if err != nil {
		return err
	}
	defer stop()
	state := b.path("monitor-state")
	want := fmt.Sprintf("%d entries verified\n", n)
	runs := b.logRuns()
	catchUp := func(url, vkey string, n int) (sample, error) {
		os.RemoveAll(state)
		s, err := b.run("mcpres", monitorArgs(url, vkey, state))
		if err != nil {
			return s, err
		}
		if next, _, err := monitorState(state); err != nil || next != uint64(n) {
			return s, fmt.Errorf("log monitor stopped at entry %d of %d (%v)", next, n, err)
		}
		return s, nil
	}
	mc, fl, load, err := b.pair(runs, func() (sample, error) { return catchUp(url, vkey, n) }, func() (sample, error) {
		s, err := b.run("monitorfloor", []string{"--log", url, "--log-key", vkey})
		if err == nil && string(s.stdout) != want {
			err = fmt.Errorf("monitorfloor printed %q, want %q", s.stdout, want)
		}
		return s, err
	})
	if err != nil {
		return err
	}
	ratio, goal := cpuRatio(mc, fl, monitorGoal)
	okRSS := "met"
	if mc.maxRSS() > monitorRSSGoal {
		okRSS = "not met"
	}
	b.row(fmt.Sprintf("`mcpres log monitor --once`, catching up on %s entries from an empty state, over HTTP (static server on 127.0.0.1), CPU (user+sys); peak RSS. Its collector runs at GOGC=400 under a 48 MiB soft limit (its own setting, within the 64 MiB budget), the floor's at Go's default", thousands(n)),
		bestMedian(mc.cpus())+fmt.Sprintf(" (wall %s); %s", seconds(median(mc.walls())), mib(mc.maxRSS())),
		"`bench/monitorfloor` (same server: checkpoint signature, every entry bundle, RFC 6962 leaf hashes to the root; no decoding, no state): "+
			bestMedian(fl.cpus())+"; "+mib(fl.maxRSS()),
		ratio, fmt.Sprintf("%s; RSS ≤ %s (%s)", goal, mib(monitorRSSGoal), okRSS), load)

	// Memory at N/10 and N.
	small := n / 10
	sdir, svkey, err := b.monitorLog(small)
	if err != nil {
		return err
	}
	surl, sstop, err := serveStatic(sdir)
	if err != nil {
		return err
	}
	ss, _, sload, err := b.pair(1, func() (sample, error) { return catchUp(surl, svkey, small) }, nil)
	sstop()
	if err != nil {
		return err
	}
	os.RemoveAll(sdir)
	grow := float64(mc.maxRSS()) / float64(ss.maxRSS())
	ok := "met"
	if grow > 1.25 {
		ok = "not met"
	}
	b.row(fmt.Sprintf("same, peak RSS, %s and %s entries", thousands(small), thousands(n)),
		mib(ss.maxRSS())+"; "+mib(mc.maxRSS()), "–", fmt.Sprintf("%.2f× for %d× the entries", grow, n/small),
		fmt.Sprintf("flat: ≤ 1.25× (%s)", ok), sload)

	// An interrupted catch-up, resumed.
	return b.monitorResume(url, vkey, n, state, median(mc.walls()), median(mc.cpus()))
}

// monitorResume interrupts a catch-up (SIGTERM) after half the wall time
// a whole one took, checks that the state it saved is part of the way,
// runs the monitor again and checks that it reads only the rest (the
// state's count of entries read is N after both) and finishes.
func (b *bench) monitorResume(url, vkey string, n int, state string, wall, cpu time.Duration) error {
	os.RemoveAll(state)
	load := b.settledLoad()
	cmd := exec.Command(b.bin["mcpres"], monitorArgs(url, vkey, state)...)
	cmd.Dir = b.tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	// SIGTERM once the state records a third of the entries (a chunk
	// saved part of the way, however loaded the machine: a fixed delay
	// fell before the first chunk on a busy one), or at three times a
	// whole catch-up's wall time.
	start := time.Now()
	for time.Since(start) < 3*wall {
		if next, _, err := monitorState(state); err == nil && next >= uint64(n/3) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	after := time.Since(start)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return err
	}
	stopped, _, err := monitorState(state)
	if err != nil {
		return fmt.Errorf("interrupted log monitor (exit %d): %v\n%s", code, err, tail(stderr.String()))
	}
	if stopped == 0 || stopped >= uint64(n) {
		return fmt.Errorf("interrupted log monitor saved entry %d of %d: not part of the way (exit %d)\n%s", stopped, n, code, tail(stderr.String()))
	}
	s, err := b.run("mcpres", monitorArgs(url, vkey, state))
	if err != nil {
		return err
	}
	// Each entry read once over both runs: the second began where the
	// first stopped.
	next, entries, err := monitorState(state)
	if err != nil || next != uint64(n) || entries != uint64(n) {
		return fmt.Errorf("resumed log monitor stopped at entry %d of %d, %d entries read over both runs (%v)", next, n, entries, err)
	}
	note := "no alert"
	if code != 0 {
		note = fmt.Sprintf("exit %d, %d alert(s): %s", code, bytes.Count(stdout.Bytes(), []byte("\n")), alertKinds(stdout.Bytes()))
	}
	b.row(fmt.Sprintf("same, interrupted (SIGTERM after %s, once its state passed a third) and run again", seconds(after)),
		fmt.Sprintf("stopped at entry %s of %s (%s); the second run read the other %s in CPU %s (wall %s)",
			thousands(int(stopped)), thousands(n), note, thousands(n-int(stopped)), seconds(s.cpu), seconds(s.wall)),
		"a whole catch-up: CPU "+seconds(cpu),
		fmt.Sprintf("%.0f%% of it saved", 100*(1-float64(s.cpu)/float64(cpu))),
		"resumes where it stopped", load)
	return nil
}

// alertKinds lists the kind and message of the alerts (JSON lines) in out.
func alertKinds(out []byte) string {
	var kinds []string
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var a struct{ Kind, Message string }
		if json.Unmarshal(line, &a) != nil {
			kinds = append(kinds, "(not an alert)")
			continue
		}
		if len(a.Message) > 160 {
			a.Message = a.Message[:160] + "…"
		}
		kinds = append(kinds, fmt.Sprintf("%s: %q", a.Kind, a.Message))
	}
	return strings.Join(kinds, "; ")
}
