package mysql_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
)

// TestResolveDSN: a DSN is taken as it is; env:NAME is the variable's
// value, and an unset or empty variable (or no name) is an error naming
// it, never an empty DSN.
func TestResolveDSN(t *testing.T) {
	t.Setenv("MCPRES_TEST_DSN_SET", "u:p@tcp(127.0.0.1:3306)/db")
	t.Setenv("MCPRES_TEST_DSN_EMPTY", "")
	if got, err := mysql.ResolveDSN("u@tcp(127.0.0.1:3306)/x"); err != nil || got != "u@tcp(127.0.0.1:3306)/x" {
		t.Errorf("a DSN: %q, %v", got, err)
	}
	if got, err := mysql.ResolveDSN("env:MCPRES_TEST_DSN_SET"); err != nil || got != "u:p@tcp(127.0.0.1:3306)/db" {
		t.Errorf("env:NAME: %q, %v", got, err)
	}
	for _, spec := range []string{"env:MCPRES_TEST_DSN_EMPTY", "env:MCPRES_TEST_DSN_UNSET", "env:"} {
		if got, err := mysql.ResolveDSN(spec); err == nil || got != "" || !strings.Contains(err.Error(), spec) {
			t.Errorf("%s: %q, %v", spec, got, err)
		}
	}
}

// TestOpenLog: Init records the log's key in the database; OpenLog returns
// it when no key is given, accepts the recorded key and refuses another
// log's (tlog.KeyMismatchError), closing the database.
func TestOpenLog(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	ctx := context.Background()
	s := signer(t)
	st, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tlog.Open(st, s.Verifier()).Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	st.Close()
	t.Setenv("MCPRES_TEST_LOG_DSN", dsn)
	st, v, err := mysql.OpenLog(ctx, "env:MCPRES_TEST_LOG_DSN", nil)
	if err != nil || v.String() != s.Verifier().String() {
		t.Fatalf("OpenLog(nil): %v, %v", v, err)
	}
	st.Close()
	st, _, err = mysql.OpenLog(ctx, dsn, s.Verifier())
	if err != nil {
		t.Fatalf("OpenLog(the recorded key): %v", err)
	}
	st.Close()
	skey, _, _ := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0x42}, 32)), signednote.TypeEd25519, "example.org/mcpres-mysql-test")
	other, _ := signednote.ParseLogSigner(skey)
	var mismatch *tlog.KeyMismatchError
	if _, _, err := mysql.OpenLog(ctx, dsn, other.Verifier()); !errors.As(err, &mismatch) || mismatch.Where != "the database" {
		t.Fatalf("OpenLog(another log's key): %v", err)
	}
}
