package main

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLILogMonitorFollow: without --once, 'log monitor --interval D'
// checks again every D, resuming from its state: an entry about a watched
// subject logged while it runs is alerted once, by the next check, and
// the checks after it raise nothing; SIGTERM stops it with exit 0. The
// test waits for what the monitor prints (each check's summary), never
// for a time: the deadline only ends a test that would otherwise hang.
func TestCLILogMonitorFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the monitor in follow mode; skipped in -short mode")
	}
	e := newLogEnv(t)
	dir := e.initLog("log")
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), exampleBundleFile(t, e.dir), "-o", e.p("b1.ref.json"))
	bin := buildBinary(t)
	cmd := exec.Command(bin, "log", "monitor", "--interval", "10ms", "--log", dir, "--log-key", e.p("log.vkey"), "--state", e.p("state"),
		"--watch", "ledger-notes-*", "--format", "text")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	summaries := make(chan string, 1000)
	alerts := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			summaries <- sc.Text()
		}
	}()
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			alerts <- sc.Text()
		}
		close(alerts)
	}()
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	deadline := time.After(2 * time.Minute)
	next := func(want string) string {
		t.Helper()
		for {
			select {
			case line := <-summaries:
				if strings.Contains(line, want) {
					return line
				}
				if !strings.Contains(line, "log monitor: ") {
					t.Fatalf("stderr: %q", line)
				}
			case err := <-exited:
				t.Fatalf("the monitor exited: %v", err)
			case <-deadline:
				t.Fatalf("no summary with %q", want)
			}
		}
	}
	// The first check alerts entry 0; then checks find nothing new.
	next("read 1 entries (1 watched); 1 alert(s)")
	next("read 0 entries (0 watched); 0 alert(s)")
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), variantBundleFile(t, e.dir), "-o", e.p("b2.ref.json"))
	next("read 1 entries (1 watched); 1 alert(s)")
	next("read 0 entries (0 watched); 0 alert(s)")
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("SIGTERM: %v", err)
		}
	case <-deadline:
		t.Fatal("the monitor did not stop on SIGTERM")
	}
	var got []string
	for a := range alerts {
		got = append(got, a)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "ALERT watched-entry: ") || !strings.Contains(got[0], "[entry 0 ") || !strings.Contains(got[1], "[entry 1 ") {
		t.Fatalf("alerts %q, want entry 0 then entry 1, once each", got)
	}
}
