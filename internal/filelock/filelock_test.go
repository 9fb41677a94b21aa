//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package filelock

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second Acquire of a held lock fails (at once with no wait, after the
// wait otherwise), succeeds once the lock is released, and a waiting
// Acquire gets the lock when the holder releases it during the wait.
func TestAcquireExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	l, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, %v (want mode 0600)", st, err)
	}
	for _, wait := range []time.Duration{0, 30 * time.Millisecond} {
		_, err := Acquire(path, wait)
		var le *LockedError
		if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.Path != path || le.Wait != wait {
			t.Fatalf("second Acquire (wait %v) of a held lock: %v, want a LockedError", wait, err)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	l2, err := Acquire(path, 0)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		l2.Release()
	}()
	l3, err := Acquire(path, time.Minute)
	if err != nil {
		t.Fatalf("Acquire waiting for a release: %v", err)
	}
	l3.Release()
}

// A lock file that is a symbolic link, a FIFO or a directory is refused at
// once and left as it was.
func TestAcquireRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.lock")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct{ path, want string }{
		{link, "is a symbolic link"},
		{fifo, "is not a regular file"},
		{dir, "is a directory"},
	} {
		done := make(chan error, 1)
		go func() {
			l, err := Acquire(c.path, 0)
			l.Release()
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrLocked) {
				t.Errorf("Acquire(%s) = %v, want an error containing %q", c.path, err, c.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("Acquire(%s) blocked", c.path)
		}
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}
}

const helperEnv = "MCPRES_FILELOCK_TEST_HOLD"

// TestMain lets the test binary act as another process holding a lock:
// with helperEnv set it takes that lock, says "locked" and holds it until
// its standard input ends or it is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		l, err := Acquire(path, 0)
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		io.Copy(io.Discard, os.Stdin)
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Another process's lock excludes this one, and the kernel releases it
// when that process is killed (SIGKILL: no chance to release it itself).
func TestAcquireExcludesOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper: %q, %v", line, err)
	}
	if l, err := Acquire(path, 20*time.Millisecond); !errors.Is(err, ErrLocked) {
		l.Release()
		t.Errorf("Acquire while another process holds the lock: %v, want ErrLocked", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Acquire(path, time.Minute)
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	l.Release()
}
