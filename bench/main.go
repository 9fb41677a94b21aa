// Command bench measures mcpres as its users run it — whole processes,
// built from this checkout — and prints each figure beside its floor or
// anchor, measured in the same run, as the README's performance table:
//
//	go run ./bench                 # every workload (a few minutes)
//	go run ./bench --quick         # tiny sizes, one run each (CI's smoke check)
//	go run ./bench --only batch,validate
//
// A workload and its floor are run as pairs, interleaved (workload, floor,
// workload, floor, …, --runs times; the batch rows at least 15 times, a
// pair costing a few seconds), and reported as the best and the median of
// the runs. CPU time is user + system of the process and its
// threads (the garbage collector's included), which a shared machine
// disturbs far less than wall time; peak memory is the process's maximum
// resident set (through /usr/bin/time when present: a child's own rusage
// on Linux includes its parent's peak). The log workloads run the server,
// the load generator (mcpres-loadgen) and, for MySQL, MariaDB on the same
// machine.
//
// The machine's load average is printed with every figure. Before each
// run the bench waits (at most --settle, 90 s) for the 1-minute load
// average to fall to the number of cores, since its own runs raise it. A
// figure measured while the load average (before any of its runs) was
// still above the number of cores is marked "not valid": other work
// shared the CPUs, and the figure says more about it than about mcpres.
//
// The workloads: batch verification (attest verify of a directory of
// witnessed bundles) against the floor program (bench/floor: read,
// json.Valid, 4× SHA-256, 2× Ed25519 per file); its peak memory at two
// sizes; validate of a small bundle and of the limit-sized one; attest
// verify of one witnessed bundle; report of the limit-sized bundle; log
// serve --dir against Tessera's POSIX driver alone with the same entries
// and concurrency (bench/tesseraposix), and the same server without
// admission (bench/noadmit) against both; log serve --dir beside Rekor v2
// (rekor-tiles' POSIX server, built by the bench, bench/rekorv2.go) with
// the same load generator and clients; log serve --dir with its key in
// a SoftHSM2 token against a key file (when SoftHSM2 is installed); log
// serve --mysql when $MCPRES_TEST_MYSQL_DSN names a MariaDB/MySQL server;
// witness serve's cosignatures per second; keyless verification (a
// fixture signed with a real Fulcio and timestamp authority, one bundle
// beside a key-file verify of it, and a batch against bench/floor
// --keyless, when Fulcio and timestamp-server are installed); log monitor
// --once catching up on a log of --monitor-entries (bench/monitorlog)
// served by a static file server, against bench/monitorfloor, its memory
// at a tenth of the size, and a catch-up interrupted and resumed. Every server listens on 127.0.0.1 (checked
// in /proc before it is stopped: listen.go) and every run is bounded in time.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

// config is the command line.
type config struct {
	runs     int
	files    int
	duration time.Duration
	posixC   int // log serve --dir clients
	mysqlC   int // log serve --mysql clients
	quick    bool
	only     map[string]bool
	dsn      string
	keep     bool
	tmp      string        // where the temporary directory is made ("": the system's)
	settle   time.Duration // how long to wait for the load average to fall
	monitorN int           // entries of the monitor workload's log
	// rekorAntispam runs Rekor v2 with its persistent antispam (the
	// rekor workload).
	rekorAntispam bool
}

// workloads, in the order they run and print.
var workloads = []struct {
	name string
	run  func(*bench) error
}{
	{"batch", (*bench).batch},
	{"memory", (*bench).batchMemory},
	{"validate", (*bench).validate},
	{"verify", (*bench).verifyOne},
	{"keyless", (*bench).keyless},
	{"report", (*bench).report},
	{"posix", (*bench).logPOSIX},
	{"rekor", (*bench).logRekor},
	{"token", (*bench).logToken},
	{"mysql", (*bench).logMySQL},
	{"s3", (*bench).logS3},
	{"witness", (*bench).witness},
	{"monitor", (*bench).monitor},
}

func main() {
	os.Exit(progexit.Code("bench", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run is the bench: it parses args, builds the programs, runs the
// workloads asked, prints the table on stdout and what it does on stderr,
// and removes its temporary directory (unless --keep). A workload that
// fails is reported on stderr as it fails, the others still run, and run
// then returns an error naming the failed ones.
func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	b, err := newBench(c, stdout, stderr)
	if err != nil {
		return err
	}
	defer b.close()
	b.header()
	var failed []string
	for _, w := range workloads {
		if c.only != nil && !c.only[w.name] {
			continue
		}
		if err := w.run(b); err != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", w.name, err)
			failed = append(failed, w.name)
		}
	}
	b.footer()
	fmt.Fprintf(stderr, "bench: %d server(s) found listening on 127.0.0.1 only, then stopped\n", b.servers)
	if len(failed) > 0 {
		return fmt.Errorf("%d workload(s) failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// parseConfig parses the command line; flag's messages and -help go to
// stderr. A refused line is a usageError.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	var only string
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.runs, "runs", 5, "runs of each workload and of its floor, interleaved (the batch rows: at least 15)")
	fs.IntVar(&c.files, "files", 1000, "witnessed bundles in the batch")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "how long each log service run lasts")
	fs.IntVar(&c.posixC, "posix-clients", 512, "concurrent clients of log serve --dir (and of Tessera alone)")
	fs.IntVar(&c.mysqlC, "mysql-clients", 1024, "concurrent clients of log serve --mysql")
	fs.BoolVar(&c.quick, "quick", false, "tiny sizes and one run of each: a smoke check, not a measurement")
	fs.StringVar(&only, "only", "", "run only these workloads (comma-separated: "+names()+")")
	fs.StringVar(&c.dsn, "mysql", os.Getenv("MCPRES_TEST_MYSQL_DSN"), "a MariaDB/MySQL server (DSN without a database, on 127.0.0.1) for log serve --mysql; default $MCPRES_TEST_MYSQL_DSN")
	fs.DurationVar(&c.settle, "settle", 90*time.Second, "before each run, wait at most this long for the 1-minute load average to fall to the number of cores (the bench's own runs raise it)")
	fs.BoolVar(&c.rekorAntispam, "rekor-persistent-antispam", true, "run Rekor v2 with its persistent antispam (deduplication that outlives the process, as log serve's index)")
	fs.IntVar(&c.monitorN, "monitor-entries", 1_000_000, "entries of the log the monitor catches up on (--quick: at most 40,000)")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (binaries, fixtures, logs)")
	fs.StringVar(&c.tmp, "tmp", "", "make the temporary directory in this directory (default: the system's, $TMPDIR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, progexit.UsageError{Msg: err.Error(), Said: true}
	}
	if fs.NArg() > 0 {
		return config{}, progexit.UsageError{Msg: "no arguments are taken; see -help"}
	}
	if c.quick {
		c.runs, c.files, c.duration, c.posixC, c.mysqlC, c.settle = 1, 20, 2*time.Second, 16, 16, 0
	}
	if c.runs < 1 || c.files < 2 || c.monitorN < 10 || c.duration <= 0 || c.settle < 0 || c.posixC < 1 || c.mysqlC < 1 {
		return config{}, progexit.UsageError{Msg: "--runs, --duration and the client counts must be positive, --files at least 2, --monitor-entries at least 10"}
	}
	if only != "" {
		c.only = map[string]bool{}
		for _, n := range strings.Split(only, ",") {
			if !slices.Contains(strings.Split(names(), ","), n) {
				return config{}, progexit.UsageError{Msg: fmt.Sprintf("no workload %q (%s)", n, names())}
			}
			c.only[n] = true
		}
	}
	return c, nil
}

func names() string {
	var ns []string
	for _, w := range workloads {
		ns = append(ns, w.name)
	}
	return strings.Join(ns, ",")
}

// cores is the number of CPUs the figures are judged against.
func cores() int { return runtime.NumCPU() }
