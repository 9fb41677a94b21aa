package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/go-sql-driver/mysql"
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
		fmt.Fprintln(os.Stderr, "bench: s3: skipped: no MariaDB/MySQL server ($MCPRES_TEST_MYSQL_DSN or --mysql)")
		return nil
	}
	gw, ok := findProgram("versitygw")
	if !ok {
		fmt.Fprintln(os.Stderr, "bench: s3: skipped: versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)")
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
	loadMax := 0.0
	for range b.logRuns() {
		var rb [6]byte
		rand.Read(rb[:])
		name := "mcpres_bench_" + hex.EncodeToString(rb[:])
		if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
			return err
		}
		l, err := b.s3Run(gw, cfg, name, key, &loadMax)
		admin.Exec("DROP DATABASE " + name)
		if err != nil {
			return err
		}
		runs = append(runs, l)
	}
	bl := bestLoad(runs)
	ok = bl.rate >= mysqlGoalRPS && bl.p99 <= mysqlGoalP99
	verdict := "met"
	if !ok {
		verdict = "not met"
	}
	b.row(fmt.Sprintf("`mcpres log serve --s3` (versitygw v1.8.0 + the same MariaDB), %d clients, %v", b.c.mysqlC, b.c.duration),
		loadText2(runs), "–", "–", fmt.Sprintf("≥ %d/s with p99 ≤ %s (%s); tile reads go to the bucket, never the database", mysqlGoalRPS, seconds(mysqlGoalP99), verdict), loadMax)
	return nil
}

// s3Run starts a gateway on a new folder, creates the log, and measures
// log serve --s3 on it.
func (b *bench) s3Run(gw string, cfg *mysql.Config, dbName, key string, loadMax *float64) (load, error) {
	dir, err := os.MkdirTemp(b.tmp, "s3-")
	if err != nil {
		return load{}, err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return load{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return load{}, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(gw, "--port", addr, "posix", data)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+benchS3Access, "ROOT_SECRET_KEY="+benchS3Secret)
	if err := cmd.Start(); err != nil {
		return load{}, err
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
			return load{}, fmt.Errorf("versitygw did not answer on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cl := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: sdkaws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(benchS3Access, benchS3Secret, "")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: sdkaws.String("mcpres-bench")}); err != nil {
		return load{}, fmt.Errorf("creating the bucket: %v", err)
	}
	c := *cfg
	c.DBName = dbName
	conf, _ := json.Marshal(map[string]any{"endpoint": endpoint, "region": "us-east-1", "bucket": "mcpres-bench", "pathStyle": true, "database": "env:MCPRES_BENCH_DSN"})
	confFile := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(confFile, conf, 0o600); err != nil {
		return load{}, err
	}
	env := []string{"MCPRES_BENCH_DSN=" + c.FormatDSN(), "AWS_ACCESS_KEY_ID=" + benchS3Access, "AWS_SECRET_ACCESS_KEY=" + benchS3Secret,
		"AWS_REGION=us-east-1", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull}
	*loadMax = max(*loadMax, b.settledLoad())
	ini := exec.Command(b.bin["mcpres-s3"], "log", "init", "--s3", confFile, "--key", key)
	ini.Env = append(os.Environ(), env...)
	if out, err := ini.CombinedOutput(); err != nil {
		return load{}, fmt.Errorf("log init --s3: %v\n%s", err, out)
	}
	l, err := b.serveLoad("mcpres-s3", []string{"log", "serve", "--s3", confFile, "--key", key, "--listen", "127.0.0.1:0"}, env, b.c.mysqlC, mysqlPrepare)
	if err != nil {
		return load{}, fmt.Errorf("log serve --s3: %v", err)
	}
	return l, nil
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
