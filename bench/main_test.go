package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

// TestParseConfigRefuses: each refused command line is a usage error
// (exit 2) that names what is wrong, before anything is built.
func TestParseConfigRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "batch,nope"}, `no workload "nope"`},
		{[]string{"--only", "batch,"}, `no workload ""`},
		{[]string{"--only", "Batch"}, `no workload "Batch"`},
		{[]string{"--runs", "0"}, "--runs, --duration and the client counts must be positive"},
		{[]string{"--files", "1"}, "--files at least 2"},
		{[]string{"--files", "-5"}, "--files at least 2"},
		{[]string{"--duration", "-1s"}, "must be positive"},
		{[]string{"--duration", "0s"}, "must be positive"},
		{[]string{"--posix-clients", "0"}, "must be positive"},
		{[]string{"--mysql-clients", "-1"}, "must be positive"},
		{[]string{"--settle", "-1s"}, "must be positive"},
		{[]string{"--monitor-entries", "9"}, "--monitor-entries at least 10"},
		{[]string{"--runs", "x"}, `invalid value "x" for flag -runs`},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
		{[]string{"batch"}, "no arguments are taken"},
		{[]string{"--quick", "--monitor-entries", "5"}, "--monitor-entries at least 10"},
	} {
		var stderr, stdout bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		var ue progexit.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error saying %q", c.args, err, c.want)
		}
		if stdout.Len() > 0 || strings.Contains(stderr.String(), "building") {
			t.Errorf("%q: ran: %s%s", c.args, stdout.String(), stderr.String())
		}
	}
	// -help is no error: main exits 0, the flags printed.
	var stderr bytes.Buffer
	if err := run([]string{"-help"}, &bytes.Buffer{}, &stderr); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "-only string") {
		t.Errorf("-help: %v, %q", err, stderr.String())
	}
}

// TestParseConfig: the flags taken, --quick's tiny sizes over the
// others, --only's set, the DSN from the environment by default.
func TestParseConfig(t *testing.T) {
	t.Setenv("MCPRES_TEST_MYSQL_DSN", "u:p@tcp(127.0.0.1:3306)/")
	c, err := parseConfig([]string{"--runs", "3", "--files", "50", "--duration", "5s", "--only", "batch,posix", "--keep", "--tmp", "/x", "--rekor-persistent-antispam=false"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.runs != 3 || c.files != 50 || c.duration != 5*time.Second || c.posixC != 512 || c.mysqlC != 1024 || c.settle != 90*time.Second ||
		!c.keep || c.tmp != "/x" || c.rekorAntispam || c.quick || c.monitorN != 1_000_000 || c.dsn != "u:p@tcp(127.0.0.1:3306)/" ||
		len(c.only) != 2 || !c.only["batch"] || !c.only["posix"] {
		t.Fatalf("%+v", c)
	}
	c, err = parseConfig([]string{"--quick", "--runs", "9", "--files", "500", "--mysql", ""}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.runs != 1 || c.files != 20 || c.duration != 2*time.Second || c.posixC != 16 || c.mysqlC != 16 || c.settle != 0 || c.only != nil || c.dsn != "" {
		t.Fatalf("--quick: %+v", c)
	}
	b := &bench{c: c}
	if b.monitorEntries() != 40_000 || b.logRuns() != 1 || b.batchRuns() != 1 {
		t.Fatalf("--quick: %d monitor entries, %d log runs, %d batch runs", b.monitorEntries(), b.logRuns(), b.batchRuns())
	}
	b.c.monitorN, b.c.runs, b.c.quick = 500, 5, false
	if b.monitorEntries() != 500 || b.logRuns() != 3 || b.batchRuns() != minBatchRuns {
		t.Fatalf("%d monitor entries, %d log runs, %d batch runs", b.monitorEntries(), b.logRuns(), b.batchRuns())
	}
	if b.c.runs = 20; b.batchRuns() != 20 {
		t.Fatalf("--runs 20: %d batch runs", b.batchRuns())
	}
	if !strings.HasPrefix(names(), "batch,memory,") || strings.Count(names(), ",") != len(workloads)-1 {
		t.Fatalf("names %q", names())
	}
}

// TestRunOutsideTheModule: the bench refuses to run outside a checkout
// (exit 1, not a usage error), saying how to run it.
func TestRunOutsideTheModule(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")
	err := run([]string{"--quick", "--only", "batch"}, &bytes.Buffer{}, &bytes.Buffer{})
	var ue progexit.UsageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "go run ./bench") {
		t.Fatalf("%v", err)
	}
}

// TestRow: a row is printed as measured; one measured above the cores
// is marked not valid and counted; --quick marks every row.
func TestRow(t *testing.T) {
	var out bytes.Buffer
	b := &bench{out: &out}
	b.row("w", "m", "f", "r", "g", 0)
	b.row("w", "m", "f", "r", "g", float64(cores())+0.5)
	b.c.quick = true
	b.row("w", "m", "f", "r", "g", 0.25)
	want := "| w | m | f | r | g | 0.0 |\n" +
		fmt.Sprintf("| w | m | f | r | g | **%.1f > %d cores: not valid** |\n", float64(cores())+0.5, cores()) +
		"| w | m | f | r | g | 0.2 (quick) |\n"
	if out.String() != want {
		t.Fatalf("rows:\n%s\nwant\n%s", out.String(), want)
	}
	if b.rows != 3 || b.invalid != 1 {
		t.Fatalf("%d rows, %d not valid", b.rows, b.invalid)
	}
	out.Reset()
	b.footer()
	if !strings.Contains(out.String(), "1 of 3 figures were measured at a load average above the") {
		t.Fatalf("footer %q", out.String())
	}
	// Controls: all valid; no row at all.
	out.Reset()
	b.invalid = 0
	b.footer()
	if !strings.Contains(out.String(), "Every figure was measured at a load average at or below") {
		t.Fatalf("footer %q", out.String())
	}
	out.Reset()
	b.rows = 0
	b.footer()
	if out.String() != "\n" {
		t.Fatalf("footer of no row %q", out.String())
	}
}

// TestHeader: the header says the mode, the machine and the columns.
func TestHeader(t *testing.T) {
	var out bytes.Buffer
	b := &bench{out: &out, root: t.TempDir(), c: config{runs: 4}}
	b.header()
	if !strings.Contains(out.String(), "commit unknown") || !strings.Contains(out.String(), "; 4 runs each, interleaved; load average now ") ||
		!strings.Contains(out.String(), "\n| workload | measured | floor / anchor (same run) | ratio | goal | load average |\n|---|---|---|---|---|---|\n") {
		t.Fatalf("%s", out.String())
	}
	out.Reset()
	b.c.quick = true
	b.header()
	if !strings.Contains(out.String(), "--quick: tiny sizes, one run each: a smoke check, these are not measurements") {
		t.Fatalf("%s", out.String())
	}
}

// TestUnavailable: a workload that cannot run is a row that says why,
// with no figure (a "|" in the reason would split the row), and a line
// on stderr.
func TestUnavailable(t *testing.T) {
	var out, log bytes.Buffer
	b := &bench{out: &out, log: &log}
	b.unavailable("w", "no a|b")
	if out.String() != "| w | unavailable: no a/b | – | – | – | – |\n" || log.String() != "bench: rekor: no a|b\n" || b.rows != 0 {
		t.Fatalf("%q %q", out.String(), log.String())
	}
}

// TestCPURatio: the ratio of the best runs' CPU, with the medians'; the
// goal is judged on the best runs, met at the bound and not above it.
func TestCPURatio(t *testing.T) {
	ms := func(ds ...int) series {
		var s series
		for _, d := range ds {
			s = append(s, sample{cpu: time.Duration(d) * time.Millisecond})
		}
		return s
	}
	ratio, goal := cpuRatio(ms(125, 300, 200), ms(100, 100, 100), 1.25)
	if ratio != "**1.25×** (median 2.00×)" || goal != "≤ 1.25× (met)" {
		t.Fatalf("%q %q", ratio, goal)
	}
	ratio, goal = cpuRatio(ms(126, 130, 128), ms(100, 100, 100), 1.25)
	if ratio != "**1.26×** (median 1.28×)" || goal != "≤ 1.25× (not met)" {
		t.Fatalf("%q %q", ratio, goal)
	}
	// The best runs: the floor's best is its smallest.
	ratio, goal = cpuRatio(ms(150), ms(300, 100), 1.5)
	if ratio != "**1.50×** (median 0.75×)" || goal != "≤ 1.50× (met)" {
		t.Fatalf("%q %q", ratio, goal)
	}
}

// TestSeries: the figures taken from the runs.
func TestSeries(t *testing.T) {
	s := series{{cpu: 3, wall: 30, rss: 700}, {cpu: 1, wall: 10, rss: 900}, {cpu: 2, wall: 20, rss: 800}}
	if c, w := s.cpus(), s.walls(); c[0] != 3 || c[1] != 1 || w[2] != 20 || len(w) != 3 {
		t.Fatalf("%v %v", c, w)
	}
	if s.maxRSS() != 900 || (series{}).maxRSS() != 0 {
		t.Fatal("maxRSS")
	}
	if median([]float64{3, 1, 2}) != 2 || median([]float64{4, 1, 3, 2}) != 2.5 {
		t.Fatal("median of rates")
	}
	if seconds(1500*time.Millisecond) != "1.50 s" || seconds(25*time.Millisecond) != "25 ms" || seconds(8300*time.Microsecond) != "8.3 ms" || seconds(time.Second) != "1.00 s" {
		t.Fatal(seconds(1500*time.Millisecond), seconds(25*time.Millisecond), seconds(8300*time.Microsecond))
	}
	if bestMedian([]time.Duration{42 * time.Millisecond}) != "42 ms" {
		t.Fatal(bestMedian([]time.Duration{42 * time.Millisecond}))
	}
	if mib(1536) != "1.5 MiB" || thousands(1_000_000) != "1,000,000" || thousands(0) != "0" {
		t.Fatal(mib(1536), thousands(1_000_000))
	}
}

// TestLoads: the best of the log runs is the fastest; the cell gives its
// latencies and every run's rate.
func TestLoads(t *testing.T) {
	ls := []load{{rate: 900.4, p50: 200 * time.Millisecond, p99: 400 * time.Millisecond}, {rate: 1234.5, p50: 150 * time.Millisecond, p99: 1500 * time.Millisecond}, {rate: 10}}
	if b := bestLoad(ls); b.rate != 1234.5 {
		t.Fatalf("%+v", b)
	}
	if got := loadText2(ls); got != "1,235/s, p50 150 ms, p99 1.50 s (runs: 900, 1,235, 10/s)" {
		t.Fatalf("%q", got)
	}
	if got := loadText2(ls[:1]); got != "900/s, p50 200 ms, p99 400 ms" {
		t.Fatalf("%q", got)
	}
	if rs := rates(ls); len(rs) != 3 || rs[2] != 10 {
		t.Fatalf("%v", rs)
	}
}

// TestTileQueries: the queries per tile read are those beyond the idle
// count, never negative; an unmeasured figure says so.
func TestTileQueries(t *testing.T) {
	q := tileQueries{reads: 4000, during: 130, idle: 50, elapsed: 2 * time.Second, measuredAtAll: true}
	if q.perRead() != 0.02 || q.String() != "0.020 measured (4,000 tile and bundle reads in 2.00 s: 130 queries; 50 in as long idle)" {
		t.Fatalf("%v %q", q.perRead(), q)
	}
	q.during = 40 // fewer than idle: none caused by the reads
	if q.perRead() != 0 {
		t.Fatal(q.perRead())
	}
	q.reads = 0
	if q.perRead() != 0 {
		t.Fatal(q.perRead())
	}
	if (tileQueries{}).String() != "not measured" {
		t.Fatal((tileQueries{}).String())
	}
}

// TestParseTimeRSS: the peak memory /usr/bin/time wrote, on its last
// line; anything else is refused.
func TestParseTimeRSS(t *testing.T) {
	for in, want := range map[string]int64{"25900\n": 25900, "Command exited with non-zero status 1\n18100\n": 18100, "Command terminated by signal 15\n7\n": 7} {
		if got, err := parseTimeRSS([]byte(in)); err != nil || got != want {
			t.Errorf("%q: %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "\n", "25900 KiB\n", "-3\n", "0\n", "1.5\n", "99999999999999999999\n"} {
		if got, err := parseTimeRSS([]byte(in)); err == nil {
			t.Errorf("%q: taken as %d", in, got)
		}
	}
}

// TestParseLoadavg: /proc/loadavg's first three fields; what cannot be
// read is 0 and "unknown", never a load that would mark figures.
func TestParseLoadavg(t *testing.T) {
	for in, want := range map[string]struct {
		one  float64
		text string
	}{
		"0.52 0.58 0.59 1/467 12345\n": {0.52, "0.52, 0.58, 0.59"},
		"14.65 7.75 5.05 3/900 1\n":    {14.65, "14.65, 7.75, 5.05"},
		"":                             {0, "unknown"},
		"2.5\n":                        {2.5, "unknown"},
		"x 1 2\n":                      {0, "unknown"},
		"1 x 2\n":                      {1, "unknown"},
		"NaN 1 2\n":                    {0, "unknown"},
		"-1 1 2\n":                     {0, "unknown"},
		"1 2 +Inf\n":                   {1, "unknown"},
	} {
		one, text := parseLoadavg([]byte(in))
		if one != want.one || text != want.text {
			t.Errorf("%q: %v %q, want %v %q", in, one, text, want.one, want.text)
		}
	}
	if _, err := os.Stat("/proc/loadavg"); err == nil && loadText() == "unknown" {
		t.Error("this machine's /proc/loadavg not read")
	}
}

// FuzzParseTimeRSS and FuzzParseLoadavg: any input is read or refused,
// never a panic, and a peak memory taken is positive.
func FuzzParseTimeRSS(f *testing.F) {
	f.Add([]byte("25900\n"))
	f.Add([]byte("Command exited with non-zero status 1\n18100\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, err := parseTimeRSS(data); err == nil && v <= 0 {
			t.Fatalf("%q: %d", data, v)
		}
	})
}

func FuzzParseLoadavg(f *testing.F) {
	f.Add([]byte("0.52 0.58 0.59 1/467 12345\n"))
	f.Add([]byte("NaN 1 2"))
	f.Fuzz(func(t *testing.T, data []byte) {
		one, text := parseLoadavg(data)
		if one < 0 || one != one || text == "" {
			t.Fatalf("%q: %v %q", data, one, text)
		}
	})
}

// TestFindProgram: a program is found on PATH, in $GOBIN or in
// $GOPATH/bin, only when it is an executable file.
func TestFindProgram(t *testing.T) {
	dir := t.TempDir()
	gobin, gopath := filepath.Join(dir, "gobin"), filepath.Join(dir, "gopath")
	for _, d := range []string{gobin, filepath.Join(gopath, "bin"), filepath.Join(gobin, "isdir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(gobin, "a"), 0o755)
	write(filepath.Join(gopath, "bin", "b"), 0o755)
	write(filepath.Join(gobin, "c"), 0o644)
	t.Setenv("PATH", filepath.Join(dir, "empty"))
	t.Setenv("GOBIN", gobin)
	t.Setenv("GOPATH", gopath)
	if p, ok := findProgram("a"); !ok || p != filepath.Join(gobin, "a") {
		t.Errorf("in $GOBIN: %q %v", p, ok)
	}
	if p, ok := findProgram("b"); !ok || p != filepath.Join(gopath, "bin", "b") {
		t.Errorf("in $GOPATH/bin: %q %v", p, ok)
	}
	for _, name := range []string{"c", "isdir", "missing"} {
		if p, ok := findProgram(name); ok {
			t.Errorf("%s: found %q", name, p)
		}
	}
	t.Setenv("PATH", gobin)
	if p, ok := findProgram("a"); !ok || p != filepath.Join(gobin, "a") {
		t.Errorf("on PATH: %q %v", p, ok)
	}
	// No GOPATH: the default ~/go/bin.
	t.Setenv("GOPATH", "")
	t.Setenv("HOME", gopath[:len(gopath)-len("gopath")]+"home")
	if err := os.MkdirAll(filepath.Join(dir, "home", "go", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, "home", "go", "bin", "d"), 0o755)
	if p, ok := findProgram("d"); !ok || p != filepath.Join(dir, "home", "go", "bin", "d") {
		t.Errorf("in ~/go/bin: %q %v", p, ok)
	}
}
