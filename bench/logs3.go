package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/go-sql-driver/mysql"
	"github.com/transparency-dev/tessera/api/layout"
)

// Test-only credentials of the S3 gateway the s3 workload starts.
const (
	benchS3Access = "mcpres-bench-access"
	benchS3Secret = "mcpres-bench-only-secret"
)

// logS3: log serve --s3 (Tessera's AWS driver) at the MySQL clients, on
// Versity's S3 gateway (versitygw, on PATH or in $GOPATH/bin; .ci/run
// installs it) serving a temporary folder on 127.0.0.1 and a new database
// of the server $MCPRES_TEST_MYSQL_DSN names, beside the --mysql row and
// with its goal.
func (b *bench) logS3() error {
	if b.c.dsn == "" {
		fmt.Fprintln(b.log, "bench: s3: skipped: no MariaDB/MySQL server ($MCPRES_TEST_MYSQL_DSN or --mysql)")
		return nil
	}
	gw, ok := findProgram("versitygw")
	if !ok {
		fmt.Fprintln(b.log, "bench: s3: skipped: versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)")
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
	key, err := b.logKeys()
	if err != nil {
		return err
	}
	var runs []load
	var tq tileQueries
	loadMax := 0.0
	for range b.logRuns() {
		var rb [6]byte
		rand.Read(rb[:])
		name := "mcpres_bench_" + hex.EncodeToString(rb[:])
		if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
			return err
		}
		l, q, err := b.s3Run(gw, cfg, name, key, &loadMax, admin)
		admin.Exec("DROP DATABASE " + name)
		if err != nil {
			return err
		}
		runs = append(runs, l)
		tq = q
	}
	bl := bestLoad(runs)
	ok = bl.rate >= mysqlGoalRPS && bl.p99 <= mysqlGoalP99
	verdict := "met"
	if !ok {
		verdict = "not met"
	}
	b.row(fmt.Sprintf("`mcpres log serve --s3` (versitygw v1.8.0 + the same MariaDB), %d clients, %v", b.c.mysqlC, b.c.duration),
		loadText2(runs), "–", "–", fmt.Sprintf("≥ %d/s with p99 ≤ %s (%s); 0 database queries per tile read: %s", mysqlGoalRPS, seconds(mysqlGoalP99), verdict, tq), loadMax)
	return nil
}

// s3Run starts a gateway on a new folder, creates the log, and measures
// log serve --s3 on it: the load, then the database queries per tile read
// (admin reads the server's counters).
func (b *bench) s3Run(gw string, cfg *mysql.Config, dbName, key string, loadMax *float64, admin *sql.DB) (load, tileQueries, error) {
	dir, err := os.MkdirTemp(b.tmp, "s3-")
	if err != nil {
		return load{}, tileQueries{}, err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return load{}, tileQueries{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return load{}, tileQueries{}, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(gw, "--port", addr, "posix", data)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+benchS3Access, "ROOT_SECRET_KEY="+benchS3Secret)
	if err := cmd.Start(); err != nil {
		return load{}, tileQueries{}, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	endpoint := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			return load{}, tileQueries{}, fmt.Errorf("versitygw did not answer on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cl := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: sdkaws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(benchS3Access, benchS3Secret, "")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: sdkaws.String("mcpres-bench")}); err != nil {
		return load{}, tileQueries{}, fmt.Errorf("creating the bucket: %v", err)
	}
	c := *cfg
	c.DBName = dbName
	conf, _ := json.Marshal(map[string]any{"endpoint": endpoint, "region": "us-east-1", "bucket": "mcpres-bench", "pathStyle": true, "database": "env:MCPRES_BENCH_DSN"})
	confFile := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(confFile, conf, 0o600); err != nil {
		return load{}, tileQueries{}, err
	}
	env := []string{"MCPRES_BENCH_DSN=" + c.FormatDSN(), "AWS_ACCESS_KEY_ID=" + benchS3Access, "AWS_SECRET_ACCESS_KEY=" + benchS3Secret,
		"AWS_REGION=us-east-1", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull}
	*loadMax = max(*loadMax, b.settledLoad())
	ini := exec.Command(b.bin["mcpres-s3"], "log", "init", "--s3", confFile, "--key", key)
	ini.Env = append(os.Environ(), env...)
	if out, err := ini.CombinedOutput(); err != nil {
		return load{}, tileQueries{}, fmt.Errorf("log init --s3: %v\n%s", err, out)
	}
	serve := []string{"log", "serve", "--s3", confFile, "--key", key, "--listen", "127.0.0.1:0"}
	l, err := b.serveLoad("mcpres-s3", serve, env, b.c.mysqlC, mysqlPrepare)
	if err != nil {
		return load{}, tileQueries{}, fmt.Errorf("log serve --s3: %v", err)
	}
	srv, err := b.start("mcpres-s3", serve, env, servingLine)
	if err != nil {
		return load{}, tileQueries{}, fmt.Errorf("log serve --s3 for the tile reads: %v", err)
	}
	q, err := measureTileQueries(srv.url, admin)
	if serr := srv.stop(); err == nil && serr != nil {
		err = serr
	}
	if err == nil {
		if err = onLoopback(cmd.Process.Pid); err != nil {
			return load{}, tileQueries{}, fmt.Errorf("versitygw: %v", err)
		}
		b.servers++
	}
	if err != nil {
		return load{}, tileQueries{}, fmt.Errorf("log serve --s3, tile reads: %v", err)
	}
	return l, q, nil
}

// tileQueries is what MariaDB counted (Questions) while log serve --s3
// answered tile reads, and in as long with no request.
type tileQueries struct {
	reads         int
	during, idle  uint64
	elapsed       time.Duration
	measuredAtAll bool
}

// perRead is the queries per tile read: those counted during the reads
// beyond those counted in as long idle (Tessera's integration and
// publication loops and the deduplication follower poll the database
// whatever the reads).
func (q tileQueries) perRead() float64 {
	if q.reads == 0 || q.during <= q.idle {
		return 0
	}
	return float64(q.during-q.idle) / float64(q.reads)
}

func (q tileQueries) String() string {
	if !q.measuredAtAll {
		return "not measured"
	}
	return fmt.Sprintf("%.3f measured (%s tile and bundle reads in %s: %d queries; %d in as long idle)",
		q.perRead(), thousands(q.reads), seconds(q.elapsed), q.during, q.idle)
}

// tileReads is how many tile and entry-bundle reads measureTileQueries
// makes.
const tileReads = 4000

// measureTileQueries reads every hash tile and entry bundle of the
// checkpoint log serve at url serves, over and over, tileReads times,
// and counts the database's Questions meanwhile, then as long with no
// request.
func measureTileQueries(url string, admin *sql.DB) (tileQueries, error) {
	get := func(p string) error {
		resp, err := http.Get(url + "/" + p)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", p, resp.Status)
		}
		return nil
	}
	resp, err := http.Get(url + "/checkpoint")
	if err != nil {
		return tileQueries{}, err
	}
	cp, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.SplitN(string(cp), "\n", 3)
	if len(lines) < 3 {
		return tileQueries{}, fmt.Errorf("checkpoint %q", cp)
	}
	size, err := strconv.ParseUint(lines[1], 10, 64)
	if err != nil || size == 0 {
		return tileQueries{}, fmt.Errorf("checkpoint size %q", lines[1])
	}
	var paths []string
	for n := uint64(0); n*layout.TileWidth < size; n++ {
		p := layout.PartialTileSize(0, n, size)
		paths = append(paths, layout.TilePath(0, n, p), layout.EntriesPath(n, p))
	}
	questions := func() (uint64, error) {
		var name string
		var v uint64
		err := admin.QueryRow("SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &v)
		return v, err
	}
	q := tileQueries{measuredAtAll: true}
	before, err := questions()
	if err != nil {
		return tileQueries{}, err
	}
	start := time.Now()
	for q.reads < tileReads {
		for _, p := range paths {
			if err := get(p); err != nil {
				return tileQueries{}, err
			}
			q.reads++
		}
	}
	q.elapsed = time.Since(start)
	after, err := questions()
	if err != nil {
		return tileQueries{}, err
	}
	time.Sleep(q.elapsed)
	idle, err := questions()
	if err != nil {
		return tileQueries{}, err
	}
	q.during, q.idle = after-before, idle-after
	return q, nil
}

// findProgram is a program on PATH or in $GOBIN or $GOPATH/bin.
func findProgram(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	dirs := []string{os.Getenv("GOBIN")}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, d := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
