package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// serverEnv makes the test binary a stand-in server (TestMain): "listen"
// listens on 127.0.0.1 and says so as log serve does, then stops on
// SIGTERM; "silent" says so without listening; "exit" says so and exits
// 3; "burst" does the same after 60 KB of other lines; "early" exits 1
// before saying anything.
const serverEnv = "MCPRES_BENCH_TEST_SERVER"

func TestMain(m *testing.M) {
	mode := os.Getenv(serverEnv)
	if mode == "" {
		os.Exit(m.Run())
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	addr := "127.0.0.1:9"
	switch mode {
	case "listen":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer ln.Close()
		addr = ln.Addr().String()
	case "burst":
		for range 1000 {
			fmt.Fprintln(os.Stderr, strings.Repeat("-", 59))
		}
		mode = "exit"
	case "early":
		fmt.Fprintln(os.Stderr, "stand-in: cannot start")
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "stand-in: serving log bench.example/stand-in on http://%s\n", addr)
	if mode == "exit" {
		os.Exit(3)
	}
	<-term
}

func standIn(t *testing.T) *bench {
	return &bench{tmp: t.TempDir(), bin: map[string]string{"stand-in": os.Args[0], "missing": filepath.Join(t.TempDir(), "missing")}}
}

// TestServerStop: a server is stopped after /proc shows it listens on
// 127.0.0.1 only, and counted; one that listens nowhere is refused for
// that reason, one that exited on its own for its exit.
func TestServerStop(t *testing.T) {
	b := standIn(t)
	srv, err := b.start("stand-in", nil, []string{serverEnv + "=listen"}, servingLine)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.url, "http://127.0.0.1:") || !strings.Contains(srv.log(), "serving log") {
		t.Fatalf("url %q, log %q", srv.url, srv.log())
	}
	if err := srv.stop(); err != nil || b.servers != 1 {
		t.Fatalf("stop: %v; %d servers checked", err, b.servers)
	}
	_ = srv.cpu()

	srv, err = b.start("stand-in", nil, []string{serverEnv + "=silent"}, servingLine)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.stop(); err == nil || !strings.Contains(err.Error(), "listens on no TCP address") || b.servers != 1 {
		t.Fatalf("a server listening nowhere: %v; %d servers checked", err, b.servers)
	}

	srv, err = b.start("stand-in", nil, []string{serverEnv + "=exit"}, servingLine)
	if err != nil {
		t.Fatal(err)
	}
	<-srv.exited
	if err := srv.stop(); err == nil || !strings.Contains(err.Error(), "exit status 3") || strings.Contains(err.Error(), "listens") || b.servers != 1 {
		t.Fatalf("a server that exited: %v; %d servers checked", err, b.servers)
	}
}

// TestServerReadyThenExit: the ready line a server wrote just before it
// exited is read, however much it wrote before (the pipe is read to its
// end before the exit is noticed), and the exit is reported by stop.
func TestServerReadyThenExit(t *testing.T) {
	b := standIn(t)
	for range 20 {
		srv, err := b.start("stand-in", nil, []string{serverEnv + "=burst"}, servingLine)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.stop(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
			t.Fatalf("a server that exited: %v", err)
		}
	}
}

// TestServerStartFails: a server that exits before its ready line, or
// that cannot be run, is an error that says so.
func TestServerStartFails(t *testing.T) {
	b := standIn(t)
	if _, err := b.start("stand-in", nil, []string{serverEnv + "=early"}, servingLine); err == nil || !strings.Contains(err.Error(), "stand-in exited: stand-in: cannot start") {
		t.Fatalf("%v", err)
	}
	if _, err := b.start("missing", nil, nil, servingLine); err == nil {
		t.Fatal("a missing program started")
	}
}

// TestRunMeasures: a program is run to completion and measured; an exit
// code the caller allows is no error, another one is, with its stderr.
func TestRunMeasures(t *testing.T) {
	b := standIn(t)
	b.bin["sh"] = "/bin/sh"
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		b.timeBin = "/usr/bin/time"
	}
	s, err := b.run("sh", []string{"-c", "echo out"})
	if err != nil || string(s.stdout) != "out\n" || s.rss <= 0 || s.wall <= 0 {
		t.Fatalf("%+v %v", s, err)
	}
	if _, err := b.run("sh", []string{"-c", "echo why >&2; exit 3"}, 3); err != nil {
		t.Fatalf("an allowed exit: %v", err)
	}
	if _, err := b.run("sh", []string{"-c", "echo why >&2; exit 4"}, 3); err == nil || !strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "why") {
		t.Fatalf("another exit: %v", err)
	}
	b.timeBin = ""
	if s, err := b.run("sh", []string{"-c", "true"}); err != nil || s.rss <= 0 {
		t.Fatalf("without /usr/bin/time: %+v %v", s, err)
	}
	if tail(strings.Repeat("x", 2001)) != "…"+strings.Repeat("x", 2000) || tail("short") != "short" {
		t.Fatal("tail")
	}
}
