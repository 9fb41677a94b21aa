//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A file created at the destination after the check and before the move
// (another process, here the link hook) is never replaced: the move is
// refused with fs.ErrExist, naming the destination, with hard links and
// without them (the check-then-rename fallback checks again), and the
// temporary file is removed. The control, with nothing created meanwhile,
// writes the file.
func TestWriteFileRaceCreated(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		name := map[bool]string{false: "hard link", true: "no hard links"}[fallback]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.json")
			race := true
			testOnlyLink = func(old, new string) error {
				if race {
					if err := os.WriteFile(new, []byte("theirs"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if fallback {
					return &os.LinkError{Op: "link", Old: old, New: new, Err: syscall.EPERM}
				}
				return os.Link(old, new)
			}
			t.Cleanup(func() { testOnlyLink = os.Link })
			err := WriteFile(path, []byte("ours"), 0o600, false)
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp-") {
				t.Fatalf("a file created meanwhile: %v, want fs.ErrExist naming %s", err, path)
			}
			assertFile(t, path, "theirs", 0o644)
			assertEntries(t, dir, "out.json")

			race = false
			other := filepath.Join(dir, "other.json")
			if err := WriteFile(other, []byte("ours"), 0o600, false); err != nil {
				t.Fatalf("control: %v", err)
			}
			assertFile(t, other, "ours", 0o600)
			assertEntries(t, dir, "other.json", "out.json")
		})
	}
}

// A destination whose temporary name is longer than the file system
// takes (ENAMETOOLONG) is refused before anything is written, and a name
// that is itself too long is refused by CheckTarget; neither is mistaken
// for a missing folder.
func TestWriteFileNameTooLong(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("n", 245)) // fits; ".<name>.tmp-<16 hex>" does not
	err := WriteFile(long, []byte("x"), 0o600, false)
	if !errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, ErrNoFolder) {
		t.Errorf("a temporary name too long: %v", err)
	}
	assertEntries(t, dir)
	tooLong := filepath.Join(dir, strings.Repeat("n", 300))
	if err := CheckTarget(tooLong, true); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("CheckTarget of a name too long: %v", err)
	}
	if err := WriteFileExclusive(tooLong, []byte("x"), 0o600); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("WriteFileExclusive of a name too long: %v", err)
	}
	if err := WriteFileExclusive(long, []byte("x"), 0o600); err != nil {
		t.Errorf("control, WriteFileExclusive of the name that fits: %v", err)
	}
}
