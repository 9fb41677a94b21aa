//go:build unix

package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(file, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("ReadFile at the limit = %q, %v", b, err)
	}
	if _, err := ReadFile(file, 9); !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotRegular) {
		t.Errorf("one byte over the limit: %v, want ErrTooLarge", err)
	}
	link := filepath.Join(dir, "link.pem")
	if err := os.Symlink("key.pem", link); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(link, 100); err != nil || string(b) != "0123456789" {
		t.Errorf("a link to a regular file (a mounted secret) = %q, %v", b, err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	if b, err := ReadFile(empty, 100); err != nil || len(b) != 0 {
		t.Errorf("empty file = %q, %v", b, err)
	}
	_, err := ReadFile(filepath.Join(dir, "missing"), 100)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" {
		t.Errorf("missing file: %v, want an open error matching fs.ErrNotExist", err)
	}
	if want := "cannot read " + filepath.Join(dir, "missing") + ": no such file"; err == nil || err.Error() != want {
		t.Errorf("missing file: %q, want %q", err, want)
	}
}

// AsReadError words the file system errors of reads, and only those.
func TestAsReadError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "lstat", Path: "a.json", Err: syscall.ENOENT}, "cannot read a.json: no such file"},
		{&fs.PathError{Op: "open", Path: "a.json", Err: syscall.EACCES}, "cannot read a.json: permission denied"},
		{&fs.PathError{Op: "read", Path: "d", Err: syscall.EISDIR}, "cannot read d: it is a directory"},
		{&fs.PathError{Op: "stat", Path: "f/x", Err: syscall.ENOTDIR}, "cannot read f/x: a part of the path is not a directory"},
		{&fs.PathError{Op: "open", Path: "a", Err: syscall.EIO}, "cannot read a: " + syscall.EIO.Error()},
		// Controls: a write, and an error that is not a path error, are unchanged.
		{&fs.PathError{Op: "write", Path: "a", Err: syscall.ENOSPC}, "write a: " + syscall.ENOSPC.Error()},
		{errors.New("lstat x: no"), "lstat x: no"},
	} {
		got := AsReadError(c.err)
		if got.Error() != c.want {
			t.Errorf("AsReadError(%q) = %q, want %q", c.err, got, c.want)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("AsReadError(%q) does not unwrap to it", c.err)
		}
	}
}

// A FIFO, a link to one, a directory and a device are refused at once
// (a FIFO with no writer would block open(2) forever without O_NONBLOCK).
func TestNotRegularRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	os.Symlink("fifo", fifoLink)
	for _, c := range []struct{ path, kind string }{
		{fifo, "a FIFO"},
		{fifoLink, "a FIFO"},
		{dir, "a directory"},
		{"/dev/null", "a device"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(c.path, 1<<20); done <- err }()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &nr) || nr.Kind != c.kind {
				t.Errorf("%s: %v, want %s refused", c.path, err, c.kind)
			}
			if err != nil && !strings.Contains(err.Error(), c.kind+", not a regular file") {
				t.Errorf("%s: message %q does not say what it is", c.path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ReadFile blocked", c.path)
		}
	}
	// Open refuses the same way, and hands back a regular file ready to read.
	if _, err := Open(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(fifo) = %v", err)
	}
	reg := filepath.Join(dir, "reg")
	os.WriteFile(reg, []byte("x"), 0o600)
	f, err := Open(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [4]byte
	if n, err := f.Read(b[:]); n != 1 || err != nil {
		t.Errorf("read after Open = %d, %v", n, err)
	}
}

// OpenIn refuses a FIFO inside an os.Root at once too, and opens a
// regular file there; the root's own rules still hold.
func TestOpenIn(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "reg"), []byte("x"), 0o600)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	done := make(chan error, 1)
	go func() { _, err := OpenIn(root, "fifo"); done <- err }()
	select {
	case err := <-done:
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Kind != "a FIFO" || nr.Path != "fifo" {
			t.Errorf("OpenIn(fifo) = %v, want a FIFO refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenIn(fifo) blocked")
	}
	f, err := OpenIn(root, "reg")
	if err != nil {
		t.Fatalf("OpenIn(reg) = %v", err)
	}
	f.Close()
	if _, err := OpenIn(root, "../escape"); err == nil || errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenIn(../escape) = %v, want os.Root's refusal", err)
	}
}
