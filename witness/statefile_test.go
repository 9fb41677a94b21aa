//go:build unix

package witness_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
)

// A state file's lock excludes a second holder (ErrStateLocked after the
// wait), whose turn comes once the first unlocks; it reads what the first
// wrote. A missing state reads as nil; Read and Write need the lock.
func TestLockStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.state.json")
	a, err := witness.LockStateFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := a.Read(); s != nil || err != nil {
		t.Fatalf("a missing state: %v, %v; want nil, nil", s, err)
	}
	if _, err := os.Stat(path + witness.StateLockSuffix); err != nil {
		t.Fatalf("lock file: %v", err)
	}
	if b, err := witness.LockStateFile(path, 20*time.Millisecond); !errors.Is(err, witness.ErrStateLocked) || !strings.Contains(err.Error(), path) {
		if b != nil {
			b.Unlock()
		}
		t.Fatalf("a second lock of a held state: %v, want ErrStateLocked naming the file", err)
	}
	st := &witness.State{}
	st.Put(witness.LogState{Origin: testOrigin, Size: 7, Hash: signednote.Hash(bytes.Repeat([]byte{7}, 32))})
	if err := a.Write(st); err != nil {
		t.Fatal(err)
	}
	done := make(chan *witness.State, 1)
	go func() {
		b, err := witness.LockStateFile(path, time.Minute)
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		defer b.Unlock()
		s, err := b.Read()
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	time.Sleep(50 * time.Millisecond) // let the second holder wait
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if s := <-done; s == nil || s.Get(testOrigin) == nil || s.Get(testOrigin).Size != 7 {
		t.Fatalf("the second holder read %+v, want the state the first wrote", s)
	}
	if _, err := a.Read(); err == nil {
		t.Error("Read after Unlock succeeded")
	}
	if err := a.Write(st); err == nil {
		t.Error("Write after Unlock succeeded")
	}
	if err := a.Unlock(); err != nil {
		t.Errorf("second Unlock: %v", err)
	}
}

// A state file that is a FIFO (or a directory) is refused at once, not
// waited on; a malformed one names the file.
func TestStateFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.state.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "dir.state.json")
	os.Mkdir(sub, 0o755)
	bad := filepath.Join(dir, "bad.state.json")
	os.WriteFile(bad, []byte(`{"schemaVersion": "mcpres.witness-state/v1"}`), 0o644)
	for _, c := range []struct {
		path, want string
		notRegular bool
	}{
		{fifo, "is a FIFO", true},
		{sub, "is a directory", true},
		{bad, bad + `: witness state: member "logs" is missing`, false},
	} {
		done := make(chan error, 1)
		go func() {
			f, err := witness.LockStateFile(c.path, 0)
			if err != nil {
				done <- err
				return
			}
			defer f.Unlock()
			_, err = f.Read()
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, regularfile.ErrNotRegular) != c.notRegular {
				t.Errorf("%s: %v, want an error containing %q", c.path, err, c.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("reading %s blocked", c.path)
		}
	}
}
