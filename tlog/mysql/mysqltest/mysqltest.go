// Package mysqltest gives tests a fresh MariaDB/MySQL database. The server
// is named by $MCPRES_TEST_MYSQL_DSN (a go-sql-driver/mysql DSN without a
// database name, e.g. "mcpres:pw@tcp(127.0.0.1:13306)/"), which .ci/run
// sets after starting mariadbd on 127.0.0.1; tests skip with a clear
// message where it is unset or the server does not answer.
package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DSNEnv names the environment variable holding the test server's DSN.
const DSNEnv = "MCPRES_TEST_MYSQL_DSN"

// NewDatabase creates a database with a random name on the test server,
// drops it when the test ends, and returns its DSN. It skips the test when
// no server is configured or reachable.
func NewDatabase(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		t.Skipf("MySQL tests need a MariaDB/MySQL server: $%s is not set (.ci/run starts one)", DSNEnv)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("$%s: %v", DSNEnv, err)
	}
	if h := cfg.Addr; cfg.Net != "tcp" || (len(h) < 10 || h[:10] != "127.0.0.1:") {
		t.Fatalf("$%s must name a server on tcp(127.0.0.1:PORT), not %s(%s)", DSNEnv, cfg.Net, h)
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		t.Skipf("MySQL tests: the server of $%s does not answer: %v", DSNEnv, err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "mcpres_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name)
		admin.Close()
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}
