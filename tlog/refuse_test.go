package tlog_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
)

// impostor is a note.Signer with the log key's name and hash that signs
// with sign: another private key, or one that fails.
type impostor struct {
	note.Signer
	sign func([]byte) ([]byte, error)
}

func (i impostor) Sign(msg []byte) ([]byte, error) { return i.sign(msg) }

// checkSigner refuses, before anything is written, a signer with the log
// key's name and hash whose private key is another (ErrWrongKey: "does not
// match"), and one that fails to sign (its error); the control is the log
// key itself.
func TestSignerProbeRefuses(t *testing.T) {
	c := ctx(t)
	s, v, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	other, _, _ := signednotetest.LogKey(t, testOnlyOtherLogSeed, testOrigin)
	errSign := errors.New("the token is unplugged")
	for _, c2 := range []struct {
		name   string
		signer note.Signer
		is     error
		has    string
	}{
		{"another private key", impostor{s, other.Sign}, tlog.ErrWrongKey, "does not match the verifier key"},
		{"a signer that fails", impostor{s, func([]byte) ([]byte, error) { return nil, errSign }}, errSign, "signing with the log key"},
	} {
		dir := filepath.Join(t.TempDir(), "log")
		l := tlog.Open(posix.New(dir), v)
		if _, err := l.Init(c, c2.signer); !errors.Is(err, c2.is) || !strings.Contains(err.Error(), c2.has) {
			t.Errorf("Init with %s: %v, want %v (%q)", c2.name, err, c2.is, c2.has)
		}
		if _, err := l.Checkpoint(c); !errors.Is(err, tlog.ErrNoLog) {
			t.Errorf("after Init with %s: %v, want no log", c2.name, err)
		}
		if _, err := l.Init(c, s); err != nil {
			t.Fatalf("control: %v", err)
		}
		if _, err := l.NewAppender(c, c2.signer, tlog.AppenderOptions{}); !errors.Is(err, c2.is) {
			t.Errorf("NewAppender with %s: %v, want %v", c2.name, err, c2.is)
		}
	}
}

// faultyStore is a POSIX log whose ReadCheckpoint, Driver or key record
// fails as told.
type faultyStore struct {
	tlog.Storage
	readErr, driverErr error
}

func (f faultyStore) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	if f.readErr != nil {
		return nil, f.readErr
	}
	return f.Storage.ReadCheckpoint(ctx)
}

func (f faultyStore) Driver(ctx context.Context) (tessera.Driver, error) {
	if f.driverErr != nil {
		return nil, f.driverErr
	}
	return f.Storage.Driver(ctx)
}

// recordingStore is a faultyStore that is a KeyRecorder failing with
// recordErr, named in messages.
type recordingStore struct {
	faultyStore
	recordErr error
	recorded  string
}

func (r *recordingStore) RecordKey(_ context.Context, vkey string) error {
	if r.recordErr != nil {
		return r.recordErr
	}
	r.recorded = vkey
	return nil
}
func (r *recordingStore) RecordedKey(context.Context) (string, error) { return r.recorded, nil }
func (r *recordingStore) String() string                              { return "the test store" }

// Init refuses when the checkpoint cannot be read (other than "none
// there"), the storage cannot be opened, or the key cannot be recorded
// (naming the storage); the control records the key.
func TestInitStorageRefuses(t *testing.T) {
	c := ctx(t)
	s, v, vkey := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	errRead := errors.New("permission denied")
	errDriver := errors.New("no space left")
	errRecord := errors.New("key table read-only")
	for _, c2 := range []struct {
		name  string
		store func(dir string) tlog.Storage
		is    error
		has   string
	}{
		{"unreadable checkpoint", func(dir string) tlog.Storage {
			return faultyStore{Storage: posix.New(dir), readErr: errRead}
		}, errRead, "reading the checkpoint"},
		{"storage that cannot open", func(dir string) tlog.Storage {
			return faultyStore{Storage: posix.New(dir), driverErr: errDriver}
		}, errDriver, "opening the storage"},
		{"key not recorded", func(dir string) tlog.Storage {
			return &recordingStore{faultyStore: faultyStore{Storage: posix.New(dir)}, recordErr: errRecord}
		}, errRecord, "recording the log key in the test store"},
	} {
		l := tlog.Open(c2.store(filepath.Join(t.TempDir(), "log")), v)
		if _, err := l.Init(c, s); !errors.Is(err, c2.is) || !strings.Contains(err.Error(), c2.has) {
			t.Errorf("Init, %s: %v, want %v (%q)", c2.name, err, c2.is, c2.has)
		}
	}
	rs := &recordingStore{faultyStore: faultyStore{Storage: posix.New(filepath.Join(t.TempDir(), "log"))}}
	if _, err := tlog.Open(rs, v).Init(c, s); err != nil || rs.recorded != vkey {
		t.Errorf("control: %v, recorded %q", err, rs.recorded)
	}
	if got, err := tlog.Key(c, rs, nil); err != nil || got.String() != vkey {
		t.Errorf("control, Key: %v, %v", got, err)
	}

	// NewAppender refuses a storage it cannot open, and releases the
	// Log's lock: the control opens after it.
	dir := filepath.Join(t.TempDir(), "log")
	newLog(t, dir, testOnlyLogSeed)
	fst := &faultyStore{Storage: posix.New(dir), driverErr: errDriver}
	l := tlog.Open(fst, v)
	if _, err := l.NewAppender(c, s, tlog.AppenderOptions{}); !errors.Is(err, errDriver) || !strings.Contains(err.Error(), "opening the storage") {
		t.Errorf("NewAppender, a storage that cannot open: %v", err)
	}
	fst.driverErr = nil
	a, err := l.NewAppender(c, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	a.Close(c)
	// A log with no checkpoint refuses an appender (it would create one).
	empty := tlog.Open(posix.New(filepath.Join(t.TempDir(), "none")), v)
	if _, err := empty.NewAppender(c, s, tlog.AppenderOptions{}); !errors.Is(err, tlog.ErrNoLog) {
		t.Errorf("NewAppender without a log: %v, want ErrNoLog", err)
	}
}

// keyTextStore records text as the log key, or fails to read it.
type keyTextStore struct {
	tlog.Storage
	text string
	err  error
}

func (k keyTextStore) RecordKey(context.Context, string) error     { return errors.New("read-only") }
func (k keyTextStore) RecordedKey(context.Context) (string, error) { return k.text, k.err }
func (k keyTextStore) String() string                              { return "store K" }

// A recorded key that cannot be read or parsed is refused, naming the
// storage; the control reads a recorded key.
func TestRecordedKeyRefuses(t *testing.T) {
	c := ctx(t)
	_, v, vkey := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	errRead := errors.New("disk error")
	if _, err := tlog.Key(c, keyTextStore{text: "", err: errRead}, nil); !errors.Is(err, errRead) || !strings.Contains(err.Error(), "store K: reading the recorded log key") {
		t.Errorf("an unreadable recorded key: %v", err)
	}
	if _, err := tlog.Key(c, keyTextStore{text: "not a key"}, nil); err == nil || !strings.Contains(err.Error(), "store K: the recorded log key") {
		t.Errorf("a malformed recorded key: %v", err)
	}
	if err := tlog.CheckKey(c, keyTextStore{text: vkey}, v); err != nil {
		t.Errorf("control: %v", err)
	}
}

// Appender.Add refuses an empty and an oversized entry before Tessera
// sees it; Appender.Proof refuses an index past the checkpoint and proves
// one inside it; UpdateCheckpoint through an appender refuses a storage
// whose replacement is not excluded against this process's publisher.
func TestAppenderRefuses(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	l, s := newLog(t, dir, testOnlyLogSeed)
	a, err := l.NewAppender(c, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(c)
	if _, err := a.Add(c, nil); err == nil || !strings.Contains(err.Error(), "got 0") {
		t.Errorf("an empty entry: %v", err)
	}
	if _, err := a.Add(c, make([]byte, tlog.MaxEntrySize+1)); err == nil || !strings.Contains(err.Error(), fmt.Sprint(tlog.MaxEntrySize+1)) {
		t.Errorf("an oversized entry: %v", err)
	}
	p, err := a.Add(c, []byte("entry 0"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Proof(c, 1); !errors.Is(err, tlog.ErrIndex) {
		t.Errorf("Proof past the checkpoint: %v, want ErrIndex", err)
	}
	q, err := a.Proof(c, 0)
	if err != nil || q.Verify() != nil || string(q.Entry) != "entry 0" {
		t.Fatalf("control, Proof(0): %v", err)
	}
	if ref := q.Reference(); ref == nil || l.Origin() != testOrigin || q.EntryID() != "0" {
		t.Errorf("Reference %v, origin %q", ref, l.Origin())
	}

	// A proof hash of the wrong length is refused by Verify, naming it.
	bad := *p
	bad.Hashes = [][]byte{make([]byte, 31)}
	if err := bad.Verify(); err == nil || !strings.Contains(err.Error(), "proof hash 0 is 31 bytes") {
		t.Errorf("a 31-byte proof hash: %v", err)
	}
	if _, err := a.UpdateCheckpoint(c, func(cp *signednote.Checkpoint) ([]byte, error) { return cp.Note, nil }); err != nil {
		t.Errorf("control, UpdateCheckpoint on a POSIX log: %v", err)
	}
}

// noExclusion is a POSIX log that says its checkpoint replacement is not
// excluded against this process's publisher.
type noExclusion struct{ tlog.Storage }

func (noExclusion) ExcludesOwnPublisher() bool { return false }

func TestAppenderUpdateCheckpointUnexcluded(t *testing.T) {
	c := ctx(t)
	dir := filepath.Join(t.TempDir(), "log")
	_, s := newLog(t, dir, testOnlyLogSeed)
	_, v, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	a, err := tlog.Open(noExclusion{posix.New(dir)}, v).NewAppender(c, s, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(c)
	called := false
	_, err = a.UpdateCheckpoint(c, func(cp *signednote.Checkpoint) ([]byte, error) { called = true; return cp.Note, nil })
	if err == nil || !strings.Contains(err.Error(), "open-file-description locks") || called {
		t.Errorf("UpdateCheckpoint without exclusion: %v (update called: %t)", err, called)
	}
}
