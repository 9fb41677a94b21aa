package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Kind names every kind of file a refusal may meet.
func TestKind(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0o644:                             "a regular file",
		fs.ModeDir | 0o755:                "a directory",
		fs.ModeSymlink | 0o777:            "a symbolic link",
		fs.ModeNamedPipe | 0o644:          "a FIFO",
		fs.ModeSocket | 0o755:             "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a device",
		fs.ModeIrregular:                  "not a regular file (?",
	} {
		if got := Kind(m); !strings.HasPrefix(got, want) {
			t.Errorf("Kind(%v) = %q, want %q", m, got, want)
		}
	}
}

// A file over the limit is refused with a *TooLargeError naming the path
// and the limit; the control reads a file at the limit.
func TestTooLargeError(t *testing.T) {
	p := t.TempDir() + "/f"
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, 4)
	if !errors.Is(err, ErrTooLarge) || err.Error() != p+" is larger than 4 bytes, the limit for this input" {
		t.Errorf("over the limit: %v", err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("control: %q, %v", b, err)
	}
}

// A regular file whose read fails (Linux's /proc/self/mem at offset 0,
// which is not mapped) is a *ReadError naming the path and the cause, not
// data.
func TestReadFails(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/mem is Linux's")
	}
	const p = "/proc/self/mem"
	b, err := ReadFile(p, 16)
	var re *ReadError
	if !errors.As(err, &re) || b != nil || re.Err.Op != "read" || !strings.HasPrefix(err.Error(), "cannot read "+p+": ") {
		t.Errorf("a read that fails: %q, %v", b, err)
	}
}
