package tlog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
)

// TestRecordedKey: Init records the log's key where the storage keeps it;
// Key returns it when no key is given and the given key when it is the
// recorded one; another log's key is a *KeyMismatchError, and a storage
// that records none is ErrNoRecordedKey unless a key is given.
func TestRecordedKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	_, s := newLog(t, dir, testOnlyLogSeed)
	store := posix.New(dir)
	if data, err := os.ReadFile(filepath.Join(dir, posix.KeyFile)); err != nil || strings.TrimSuffix(string(data), "\n") != s.Verifier().String() {
		t.Fatalf("Init recorded %q, %v; want %s", data, err, s.Verifier())
	}
	if v, err := tlog.Key(ctx(t), store, nil); err != nil || v.String() != s.Verifier().String() {
		t.Fatalf("Key(nil): %v, %v", v, err)
	}
	if v, err := tlog.Key(ctx(t), store, s.Verifier()); err != nil || v.String() != s.Verifier().String() {
		t.Fatalf("Key(the log's key): %v, %v", v, err)
	}
	if err := tlog.CheckKey(ctx(t), store, s.Verifier()); err != nil {
		t.Fatalf("CheckKey(the log's key): %v", err)
	}
	_, other, _ := signednotetest.LogKey(t, testOnlyOtherLogSeed, testOrigin)
	var mismatch *tlog.KeyMismatchError
	if err := tlog.CheckKey(ctx(t), store, other); !errors.As(err, &mismatch) || mismatch.Where != dir || !strings.Contains(err.Error(), "is not the key of the log in "+dir) {
		t.Fatalf("CheckKey(another key): %v", err)
	}
	if _, err := tlog.Key(ctx(t), store, other); !errors.As(err, &mismatch) {
		t.Fatalf("Key(another key): %v", err)
	}

	// A log whose key is not recorded: nothing to check against, nothing
	// to return.
	if err := os.Remove(filepath.Join(dir, posix.KeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := tlog.Key(ctx(t), store, nil); !errors.Is(err, tlog.ErrNoRecordedKey) || err.Error() != dir+" has no recorded log key" {
		t.Fatalf("Key(nil) with no recorded key: %v", err)
	}
	if err := tlog.CheckKey(ctx(t), store, other); err != nil {
		t.Fatalf("CheckKey with no recorded key: %v", err)
	}

	// A recorded key that is not one line holding a key is an error, never
	// "no key".
	if err := os.WriteFile(filepath.Join(dir, posix.KeyFile), []byte("two words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tlog.Key(ctx(t), store, nil); err == nil || errors.Is(err, tlog.ErrNoRecordedKey) {
		t.Fatalf("Key(nil) with a corrupt recorded key: %v", err)
	}
	if err := tlog.CheckKey(ctx(t), store, s.Verifier()); err == nil {
		t.Fatal("CheckKey with a corrupt recorded key passed")
	}
}

// TestCreate: a log is created only in a missing or empty directory.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	if _, err := posix.Create(filepath.Join(dir, "new")); err != nil {
		t.Fatalf("a missing directory: %v", err)
	}
	if _, err := posix.Create(dir); err != nil {
		t.Fatalf("an empty directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := posix.Create(dir); !errors.Is(err, posix.ErrNotEmpty) {
		t.Fatalf("a directory with a file: %v", err)
	}
}
