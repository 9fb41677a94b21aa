package posix

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
)

// The recorded key: RecordKey never replaces one (the second is
// refused), and RecordedKey refuses a key file that is not one line
// holding one key, or not a regular file; none recorded is "" (the
// control records and reads one).
func TestRecordedKeyRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(dir)
	if k, err := s.RecordedKey(ctx); err != nil || k != "" {
		t.Fatalf("no key recorded: %q, %v", k, err)
	}
	_, vkey, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "example.org/log")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RecordKey(ctx, vkey); err != nil {
		t.Fatalf("control, RecordKey: %v", err)
	}
	if k, err := s.RecordedKey(ctx); err != nil || k != vkey {
		t.Fatalf("control, RecordedKey: %q, %v", k, err)
	}
	if err := s.RecordKey(ctx, vkey+"x"); err == nil {
		t.Error("a second RecordKey replaced the recorded key")
	}
	if k, _ := s.RecordedKey(ctx); k != vkey {
		t.Errorf("after a refused RecordKey: %q", k)
	}
	p := filepath.Join(dir, KeyFile)
	for name, data := range map[string]string{
		"empty":     "",
		"two lines": vkey + "\n" + vkey + "\n",
		"a space":   vkey + " x\n",
		"too large": strings.Repeat("k", maxKeyFileBytes+1),
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if k, err := s.RecordedKey(ctx); err == nil || k != "" {
			t.Errorf("%s: %q, %v", name, k, err)
		}
	}
	os.Remove(p)
	os.Mkdir(p, 0o755)
	if k, err := s.RecordedKey(ctx); err == nil || k != "" {
		t.Errorf("a directory: %q, %v", k, err)
	}
	// RecordKey where the key's directory cannot be made.
	blocked := New(filepath.Join(t.TempDir(), "log"))
	os.MkdirAll(blocked.Dir(), 0o755)
	os.WriteFile(filepath.Join(blocked.Dir(), ".mcpres"), nil, 0o644)
	if err := blocked.RecordKey(ctx, vkey); err == nil {
		t.Error("RecordKey with a file where its directory goes")
	}
	if s.String() != dir {
		t.Errorf("String %q", s.String())
	}
}

// Create refuses a path it cannot read as a directory (a file) and a
// directory with files; the control is a missing directory.
func TestCreateRefusesFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if s, err := Create(f); err == nil || s != nil || errors.Is(err, ErrNotEmpty) {
		t.Errorf("Create on a file: %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	if _, err := Create(dir); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("Create in a directory with a file: %v", err)
	}
	if _, err := Create(filepath.Join(dir, "new")); err != nil {
		t.Errorf("control, a missing directory: %v", err)
	}
}

// The index refuses an identity hash that is not 32 bytes, in Lookup and
// in Put (which then records nothing); the control looks up what Put
// recorded.
func TestDedupRefusesHashSize(t *testing.T) {
	ctx := context.Background()
	d, err := New(t.TempDir()).OpenDedup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, _, err := d.Lookup(ctx, make([]byte, 31)); err == nil {
		t.Error("Lookup of a 31-byte hash")
	}
	if err := d.Put(ctx, 0, [][]byte{hashOf("a"), make([]byte, 33)}); err == nil {
		t.Error("Put of a 33-byte hash")
	}
	if n, _ := d.Next(ctx); n != 0 {
		t.Errorf("after a refused Put, Next = %d", n)
	}
	if err := d.Put(ctx, 0, [][]byte{hashOf("a")}); err != nil {
		t.Fatal(err)
	}
	if i, ok, err := d.Lookup(ctx, hashOf("a")); err != nil || !ok || i != 0 {
		t.Errorf("control: %d %t %v", i, ok, err)
	}
}

// OpenDedup refuses a log directory where its state directory cannot be
// made, and an index file it cannot open (a directory in its place).
func TestOpenDedupRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".state"), nil, 0o644)
	if _, err := New(dir).OpenDedup(ctx); err == nil {
		t.Error("OpenDedup with a file where .state goes")
	}
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, dedupFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dir).OpenDedup(ctx); err == nil || !strings.Contains(err.Error(), "deduplication index") {
		t.Errorf("OpenDedup with a directory for the index: %v", err)
	}
	// The lock was released: the control opens once the index is a file.
	os.Remove(filepath.Join(dir, dedupFile))
	d, err := New(dir).OpenDedup(ctx)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	d.Close()
}

// ReplaceCheckpoint refuses when there is no checkpoint to replace, and
// when the publish lock cannot be opened; WaitGC waits for no one here.
func TestReplaceCheckpointRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(dir)
	os.MkdirAll(filepath.Join(dir, ".state"), 0o755)
	if err := s.ReplaceCheckpoint(ctx, []byte("old\n"), []byte("new\n")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no checkpoint: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a checkpoint was written where there was none")
	}
	if err := s.WaitGC(ctx); err != nil {
		t.Errorf("WaitGC: %v", err)
	}
	noState := New(filepath.Join(t.TempDir(), "none"))
	if err := noState.ReplaceCheckpoint(ctx, nil, []byte("new\n")); err == nil || !strings.Contains(err.Error(), "locking") {
		t.Errorf("no state directory: %v", err)
	}
	if err := noState.WaitGC(ctx); err == nil {
		t.Error("WaitGC without a state directory")
	}
	if !s.ExcludesOwnPublisher() {
		t.Error("Linux storage does not exclude its own publisher")
	}
	var _ tlog.Storage = s
}

// Through tlog, the storage lays out a log and reads it back: the tile and
// entry bundle of its one entry; a bundle past it is fs.ErrNotExist, not
// data.
func TestStorageReads(t *testing.T) {
	ctx := context.Background()
	skey, vkey, err := signednote.GenerateKey(rand.Reader, signednote.TypeEd25519, "example.org/log")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signednote.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseLogVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	s := New(filepath.Join(t.TempDir(), "log"))
	l := tlog.Open(s, v)
	if _, err := l.Init(ctx, signer); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(ctx, signer, []byte("entry 0")); err != nil {
		t.Fatal(err)
	}
	if b, err := s.ReadEntryBundle(ctx, 0, 1); err != nil || !strings.Contains(string(b), "entry 0") {
		t.Errorf("the entry bundle: %q, %v", b, err)
	}
	if b, err := s.ReadTile(ctx, 0, 0, 1); err != nil || len(b) != 32 {
		t.Errorf("the tile: %d bytes, %v", len(b), err)
	}
	if _, err := s.ReadEntryBundle(ctx, 1, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a bundle past the log: %v", err)
	}
	if k, err := s.RecordedKey(ctx); err != nil || k != vkey {
		t.Errorf("Init recorded %q, %v", k, err)
	}
}
