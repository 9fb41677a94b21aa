package awstest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// A MariaDB is a MariaDB server that a test started for itself, on its own
// port of 127.0.0.1 and its own data directory in the test's temporary
// directory, so that the test may kill it (a shared server, as
// $MCPRES_TEST_MYSQL_DSN names, must never be killed by one test).
type MariaDB struct {
	// DSN is the DSN of database "mcpres" on it, for a user with every
	// privilege on it (tcp(127.0.0.1:PORT), test-only password).
	DSN string

	t    testing.TB
	bin  string
	args []string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	out  *bytes.Buffer
	sock string
}

// StartMariaDB initialises a data directory with mariadb-install-db and
// starts mariadbd on it, on 127.0.0.1 only, stopped when the test ends.
// It skips the test when the programs are absent.
func StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	bin, ok := findSbin("mariadbd")
	install, ok2 := findSbin("mariadb-install-db")
	if !ok || !ok2 {
		t.Skip("mariadbd and mariadb-install-db are not on PATH nor in /usr/sbin: the test starts its own MariaDB server (Debian: apt-get install mariadb-server)")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	args := []string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	sock := filepath.Join(dir, "sock")
	m := &MariaDB{t: t, bin: bin, sock: sock, args: []string{
		"--no-defaults", "--datadir=" + data, "--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--socket=" + sock, "--pid-file=" + filepath.Join(dir, "pid"), "--skip-log-bin", "--skip-name-resolve",
	}}
	if os.Geteuid() == 0 {
		m.args = append(m.args, "--user=root")
	}
	t.Cleanup(m.stop)
	m.Start()
	// The test's user and database, through the root account on the
	// socket.
	db, err := sql.Open("mysql", m.rootDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE USER 'mcpres'@'127.0.0.1' IDENTIFIED BY 'test-only-password'",
		"GRANT ALL PRIVILEGES ON *.* TO 'mcpres'@'127.0.0.1'",
		"CREATE DATABASE mcpres",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v\n%s", q, err, m.log())
		}
	}
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "mcpres", "test-only-password", "tcp", fmt.Sprintf("127.0.0.1:%d", port), "mcpres"
	m.DSN = cfg.FormatDSN()
	return m
}

// Start starts the server (again, after Kill) and waits until it answers
// on its socket.
func (m *MariaDB) Start() {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil {
		m.t.Fatal("mariadbd is running already")
	}
	m.out = &bytes.Buffer{}
	cmd := exec.Command(m.bin, m.args...)
	cmd.Stdout, cmd.Stderr = m.out, m.out
	if err := cmd.Start(); err != nil {
		m.t.Fatalf("starting mariadbd: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	m.cmd, m.done = cmd, done
	db, err := sql.Open("mysql", m.rootDSN())
	if err != nil {
		m.t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			return
		}
		select {
		case <-done:
			m.t.Fatalf("mariadbd exited before serving:\n%s", m.out)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("mariadbd did not answer within 2 minutes: %v\n%s", err, m.out)
		}
	}
}

// Kill kills the server with SIGKILL, as a crash would, and waits until it
// is gone.
func (m *MariaDB) Kill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return
	}
	m.cmd.Process.Kill()
	<-m.done
	m.cmd = nil
}

// Running reports whether the server runs (it was not killed, or was
// started again).
func (m *MariaDB) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cmd != nil
}

func (m *MariaDB) log() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.out == nil {
		return ""
	}
	return m.out.String()
}

// rootDSN is the DSN of the root account on the server's socket.
func (m *MariaDB) rootDSN() string {
	root := gomysql.NewConfig()
	root.User, root.Net, root.Addr = "root", "unix", m.sock
	return root.FormatDSN()
}

// stop ends the server at the end of the test.
func (m *MariaDB) stop() { m.Kill() }

// findSbin finds a program on PATH or in /usr/sbin and /usr/local/sbin
// (where Debian installs MariaDB's server).
func findSbin(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, d := range []string{"/usr/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
