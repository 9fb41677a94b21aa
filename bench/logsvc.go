package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
)

// The log service's goals (issue 26): log serve --dir keeps at least 0.9
// of Tessera's POSIX driver alone, and the MySQL log at 1,024 clients
// takes at least 600 submissions a second with p99 at most 3 s.
const (
	posixGoal    = 0.9
	mysqlGoalRPS = 600
	mysqlGoalP99 = 3 * time.Second
)

// loadBundle is what mcpres-loadgen submits variants of.
const loadBundle = "testdata/bundles/example.json"

// Submissions a second of each log run that mcpres-loadgen makes before
// the run (more than either log takes on two cores), and the most in all
// (16 KB each: 800 MB).
const (
	posixPrepare = 2500
	mysqlPrepare = 1200
	maxPrepare   = 50_000
)

// A server is a long-running process the bench started.
type server struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
	// checked counts the servers stop found listening on 127.0.0.1 only
	// (the bench's count).
	checked *int
}

// start runs name with args and waits (at most a minute) until a line of
// its standard error matches ready, whose first group is the URL.
func (b *bench) start(name string, args []string, env []string, ready *regexp.Regexp) (*server, error) {
	s := &server{cmd: exec.Command(b.bin[name], args...), exited: make(chan struct{}), checked: &b.servers}
	s.cmd.Dir = b.tmp
	s.cmd.Env = append(os.Environ(), env...)
	pr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			if s.stderr.Len() < 1<<20 {
				s.stderr.WriteString(sc.Text() + "\n")
			}
			s.mu.Unlock()
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
		// Wait closes the pipe: only after everything the server wrote
		// was read, or its last lines (the ready one among them) are lost.
		s.cmd.Wait()
		close(s.exited)
	}()
	select {
	case s.url = <-urlc:
		return s, nil
	case <-s.exited:
		// A server that said it was ready and then exited is started;
		// stop reports its exit.
		select {
		case s.url = <-urlc:
			return s, nil
		default:
		}
		return nil, fmt.Errorf("%s exited: %s", name, tail(s.log()))
	case <-time.After(time.Minute):
		s.kill()
		return nil, fmt.Errorf("%s did not start: %s", name, tail(s.log()))
	}
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop checks that the server listens on 127.0.0.1 only (onLoopback),
// sends SIGTERM and waits (at most two minutes).
func (s *server) stop() error {
	var lerr error
	select {
	case <-s.exited:
	default:
		if lerr = onLoopback(s.cmd.Process.Pid); lerr == nil {
			*s.checked++
		}
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(2 * time.Minute):
		s.kill()
		return errors.Join(lerr, errors.New("did not stop after SIGTERM"))
	}
	if !s.cmd.ProcessState.Success() {
		return errors.Join(lerr, fmt.Errorf("exit %v: %s", s.cmd.ProcessState, tail(s.log())))
	}
	return lerr
}

func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.exited
}

// cpu is the CPU time the server used, once it has exited.
func (s *server) cpu() time.Duration {
	if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return 0
}

var (
	servingLine   = regexp.MustCompile(`serving log \S+ on (http://127\.0\.0\.1:\d+)`)
	witnessLine   = regexp.MustCompile(`serving \d+ log\(s\) at (http://127\.0\.0\.1:\d+)/ \(POST /add-checkpoint\)`)
	loadgenResult = regexp.MustCompile(`(\d+) submissions in ([\d.]+)s: (\d+)/s; time to reference p50 (\S+), p99 (\S+), max (\S+); failed (map\[[^\]]*\])`)
)

// A load is one load-generator run (mcpres-loadgen's or Tessera alone's
// result line).
type load struct {
	ok       int
	rate     float64
	p50, p99 time.Duration
	failed   string
}

func parseLoad(out []byte) (load, error) {
	m := loadgenResult.FindSubmatch(out)
	if m == nil {
		return load{}, fmt.Errorf("no result line in %q", tail(string(out)))
	}
	var l load
	l.ok, _ = strconv.Atoi(string(m[1]))
	l.rate, _ = strconv.ParseFloat(string(m[3]), 64)
	var err1, err2 error
	l.p50, err1 = time.ParseDuration(string(m[4]))
	l.p99, err2 = time.ParseDuration(string(m[5]))
	l.failed = string(m[7])
	if err := errors.Join(err1, err2); err != nil {
		return load{}, err
	}
	if l.ok == 0 {
		return l, fmt.Errorf("no submission succeeded (failed %s)", l.failed)
	}
	return l, nil
}

// logKeys writes a log key pair once and returns the private key's path.
func (b *bench) logKeys() (string, error) {
	key := b.path("log.key")
	if _, err := os.Stat(key); err == nil {
		return key, nil
	}
	if _, err := b.run("mcpres", []string{"log", "keygen", "--origin", "bench.example/mcpres-log", "--out-base", b.path("log")}); err != nil {
		return "", err
	}
	return key, nil
}

// loadgen drives the server at url with clients for the run's duration,
// with up to perSecond submissions a second of the run made beforehand
// (mcpres-loadgen --prepare: the run then measures the server, not the
// making of bundles on the same cores).
func (b *bench) loadgen(url string, clients, perSecond int) (load, error) {
	prepare := min(int(b.c.duration.Seconds()*float64(perSecond)), maxPrepare)
	s, err := b.run("mcpres-loadgen", []string{"--url", url, "--bundle", b.src(loadBundle), "--clients", strconv.Itoa(clients),
		"--duration", b.c.duration.String(), "--prepare", strconv.Itoa(prepare)})
	if err != nil {
		return load{}, err
	}
	return parseLoad(s.stdout)
}

// entrySize is the size of the log entry of the load bundle's variants
// (a transparency entry: digests and the subject, the same length for
// every variant).
func (b *bench) entrySize() (int, error) {
	_, doc, err := canonjson.ReadFile(b.src(loadBundle))
	if err != nil {
		return 0, err
	}
	e, err := offline.EntryFor(doc).Marshal()
	return len(e), err
}

// logRuns is how many runs of each log workload (each lasts --duration).
func (b *bench) logRuns() int { return min(b.c.runs, 3) }

// logPOSIX: log serve --dir against Tessera's POSIX driver alone with the
// same entries, concurrency and duration, and between them the same
// server without admission (bench/noadmit): what HTTP, proofs and the
// load generator cost on these cores.
func (b *bench) logPOSIX() error {
	key, err := b.logKeys()
	if err != nil {
		return err
	}
	size, err := b.entrySize()
	if err != nil {
		return err
	}
	var serve, bare, alone []load
	loadMax := 0.0
	for n := range b.logRuns() {
		dir := b.path(fmt.Sprintf("posix-%d", n))
		loadMax = max(loadMax, b.settledLoad())
		if _, err := b.run("mcpres", []string{"log", "init", "--dir", dir, "--key", key}); err != nil {
			return err
		}
		l, err := b.serveLoad("mcpres", []string{"log", "serve", "--dir", dir, "--key", key, "--listen", "127.0.0.1:0"}, nil, b.c.posixC, posixPrepare)
		if err != nil {
			return fmt.Errorf("log serve: %v", err)
		}
		serve = append(serve, l)
		os.RemoveAll(dir)

		loadMax = max(loadMax, b.settledLoad())
		ndir := b.path(fmt.Sprintf("noadmit-%d", n))
		l, err = b.serveLoad("noadmit", []string{"--dir", ndir, "--entry-size", strconv.Itoa(size)}, nil, b.c.posixC, posixPrepare)
		if err != nil {
			return fmt.Errorf("noadmit: %v", err)
		}
		bare = append(bare, l)
		os.RemoveAll(ndir)

		loadMax = max(loadMax, b.settledLoad())
		adir := b.path(fmt.Sprintf("tessera-%d", n))
		s, err := b.run("tesseraposix", []string{"--dir", adir, "--clients", strconv.Itoa(b.c.posixC), "--duration", b.c.duration.String(), "--entry-size", strconv.Itoa(size)})
		if err != nil {
			return err
		}
		a, err := parseLoad(s.stdout)
		if err != nil {
			return err
		}
		alone = append(alone, a)
		os.RemoveAll(adir)
	}
	bs, bb, ba := bestLoad(serve), bestLoad(bare), bestLoad(alone)
	ratio := bs.rate / ba.rate
	ok := "met"
	if ratio < posixGoal {
		ok = "not met"
	}
	anchor := fmt.Sprintf("Tessera's POSIX driver alone (`bench/tesseraposix`), %d in flight, the same entries: %s", b.c.posixC, loadText2(alone))
	b.row(fmt.Sprintf("`mcpres log serve --dir`, %d clients, %v, 16 KB bundles (entries of %d B)", b.c.posixC, b.c.duration, size),
		loadText2(serve), anchor, fmt.Sprintf("**%.2f×**", ratio), fmt.Sprintf("≥ %.1f× (%s)", posixGoal, ok), loadMax)
	b.row(fmt.Sprintf("the same server without admission (`bench/noadmit`: the body's hash as its entry), %d clients, %v", b.c.posixC, b.c.duration),
		loadText2(bare), "the same Tessera runs", fmt.Sprintf("%.2f× (log serve: %.2f× of it)", bb.rate/ba.rate, bs.rate/bb.rate), "–", loadMax)
	return nil
}

// serveLoad starts a log server (name with args, env added to the
// environment), drives it with the load generator (loadgen's clients and
// perSecond) and stops it.
func (b *bench) serveLoad(name string, args, env []string, clients, perSecond int) (load, error) {
	srv, err := b.start(name, args, env, servingLine)
	if err != nil {
		return load{}, err
	}
	l, err := b.loadgen(srv.url, clients, perSecond)
	if serr := srv.stop(); err == nil && serr != nil {
		err = serr
	}
	return l, err
}

// bestLoad is the run with the highest rate.
func bestLoad(ls []load) load {
	return slices.MaxFunc(ls, func(a, b load) int {
		switch {
		case a.rate < b.rate:
			return -1
		case a.rate > b.rate:
			return 1
		}
		return 0
	})
}

// loadText2 says what the runs measured: the best run's rate and
// latencies, and the others' rates.
func loadText2(ls []load) string {
	b := bestLoad(ls)
	s := fmt.Sprintf("%s/s, p50 %s, p99 %s", thousands(int(b.rate+0.5)), seconds(b.p50), seconds(b.p99))
	if len(ls) > 1 {
		var rs []string
		for _, l := range ls {
			rs = append(rs, thousands(int(l.rate+0.5)))
		}
		s += " (runs: " + strings.Join(rs, ", ") + "/s)"
	}
	return s
}

// logMySQL: log serve --mysql at the MySQL clients, each run on a new
// database of the server $MCPRES_TEST_MYSQL_DSN names.
func (b *bench) logMySQL() error {
	if b.c.dsn == "" {
		fmt.Fprintln(b.log, "bench: mysql: skipped: no MariaDB/MySQL server ($MCPRES_TEST_MYSQL_DSN or --mysql)")
		return nil
	}
	cfg, err := mysql.ParseDSN(b.c.dsn)
	if err != nil {
		return fmt.Errorf("the DSN: %v", err)
	}
	if !strings.HasPrefix(cfg.Addr, "127.0.0.1:") {
		return fmt.Errorf("the MySQL server must be on 127.0.0.1, not %s", cfg.Addr)
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var version string
	if err := admin.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return fmt.Errorf("the MySQL server: %v", err)
	}
	key, err := b.logKeys()
	if err != nil {
		return err
	}
	var runs []load
	loadMax := 0.0
	for range b.logRuns() {
		var rb [6]byte
		rand.Read(rb[:])
		name := "mcpres_bench_" + hex.EncodeToString(rb[:])
		if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
			return err
		}
		l, err := b.mysqlRun(cfg, name, key, &loadMax)
		admin.Exec("DROP DATABASE " + name)
		if err != nil {
			return err
		}
		runs = append(runs, l)
	}
	bl := bestLoad(runs)
	ok := "met"
	if bl.rate < mysqlGoalRPS || bl.p99 > mysqlGoalP99 {
		ok = "not met"
	}
	b.row(fmt.Sprintf("`mcpres log serve --mysql` (%s), %d clients, %v", version, b.c.mysqlC, b.c.duration),
		loadText2(runs), "–", "–", fmt.Sprintf("≥ %d/s with p99 ≤ %s (%s)", mysqlGoalRPS, seconds(mysqlGoalP99), ok), loadMax)
	return nil
}

func (b *bench) mysqlRun(cfg *mysql.Config, name, key string, loadMax *float64) (load, error) {
	c := *cfg
	c.DBName = name
	env := []string{"MCPRES_BENCH_DSN=" + c.FormatDSN()}
	*loadMax = max(*loadMax, b.settledLoad())
	cmd := exec.Command(b.bin["mcpres"], "log", "init", "--mysql", "env:MCPRES_BENCH_DSN", "--key", key)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return load{}, fmt.Errorf("log init --mysql: %v\n%s", err, out)
	}
	l, err := b.serveLoad("mcpres", []string{"log", "serve", "--mysql", "env:MCPRES_BENCH_DSN", "--key", key, "--listen", "127.0.0.1:0"}, env, b.c.mysqlC, mysqlPrepare)
	if err != nil {
		return load{}, fmt.Errorf("log serve --mysql: %v", err)
	}
	return l, nil
}
