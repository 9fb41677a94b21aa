//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// entries lists the names in dir, to check that no temporary file is left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func assertEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	got := entries(t, dir)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("directory holds %q, want %q", got, want)
	}
}

func assertFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		t.Fatalf("%s is %v, want a regular file", path, fi.Mode())
	}
	if mode != 0 && fi.Mode().Perm() != mode {
		t.Fatalf("%s has mode %v, want %v", path, fi.Mode().Perm(), mode)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != content {
		t.Fatalf("%s holds %q, want %q", path, got, content)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestWriteFileExclusive(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "signer.key")
	if err := WriteFileExclusive(key, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	assertFile(t, key, "secret", 0o600)

	// An existing file is refused and left as it is.
	if err := WriteFileExclusive(key, []byte("other"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteFileExclusive(existing) error = %v, want fs.ErrExist", err)
	}
	assertFile(t, key, "secret", 0o600)

	// A symbolic link is never followed, even a dangling one.
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileExclusive(link, []byte("through the link"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteFileExclusive(dangling symlink) error = %v, want fs.ErrExist", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the symlink target was created: %v", err)
	}

	// A missing directory is an error, and creates nothing.
	if err := WriteFileExclusive(filepath.Join(dir, "missing", "f"), nil, 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFileExclusive(missing dir) error = %v, want fs.ErrNotExist", err)
	}
	assertEntries(t, dir, "link", "signer.key")

	// Public files keep a wider mode (umask permitting).
	pub := filepath.Join(dir, "signer.pub")
	if err := WriteFileExclusive(pub, []byte("public"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(pub); fi.Mode().Perm()&^0o644 != 0 {
		t.Fatalf("mode %v exceeds 0644", fi.Mode().Perm())
	}
}

func TestWriteFileNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, overwrite := range []bool{false, true} {
		os.Remove(path)
		if err := WriteFile(path, []byte(`{"a":1}`), 0o600, overwrite); err != nil {
			t.Fatalf("WriteFile(overwrite=%v) = %v", overwrite, err)
		}
		assertFile(t, path, `{"a":1}`, 0o600)
		assertEntries(t, dir, "out.json")
	}
}

func TestWriteFileRefusesExisting(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		name := "hard link"
		if fallback {
			name = "no hard links"
		}
		t.Run(name, func(t *testing.T) {
			if fallback {
				testOnlyLink = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
				t.Cleanup(func() { testOnlyLink = os.Link })
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "out.json")
			if err := os.WriteFile(path, []byte("original"), 0o640); err != nil {
				t.Fatal(err)
			}
			ino := inode(t, path)
			err := WriteFile(path, []byte("replacement"), 0o600, false)
			if !errors.Is(err, fs.ErrExist) {
				t.Fatalf("WriteFile(existing, overwrite=false) error = %v, want fs.ErrExist", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the path", err)
			}
			// Untouched: same content, same mode, same inode; temp removed.
			assertFile(t, path, "original", 0o640)
			if inode(t, path) != ino {
				t.Fatal("the existing file was replaced")
			}
			assertEntries(t, dir, "out.json")

			// A new name works through the same path.
			if err := WriteFile(filepath.Join(dir, "new.json"), []byte("n"), 0o600, false); err != nil {
				t.Fatal(err)
			}
			assertFile(t, filepath.Join(dir, "new.json"), "n", 0o600)
			assertEntries(t, dir, "new.json", "out.json")
		})
	}
}

func TestWriteFileOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("original, longer than the new content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600, true); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "new", 0o600)
	assertEntries(t, dir, "out.json")
}

func TestWriteFileNeverFollowsSymlink(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		dir := t.TempDir()
		target := filepath.Join(dir, "target")
		if err := os.WriteFile(target, []byte("target content"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		dangling := filepath.Join(dir, "dangling")
		if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
			t.Fatal(err)
		}
		errLink := WriteFile(link, []byte("new"), 0o600, overwrite)
		errDangling := WriteFile(dangling, []byte("new"), 0o600, overwrite)
		// The target is never written, and no file appears where the
		// dangling link points.
		assertFile(t, target, "target content", 0o644)
		if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("overwrite=%v: a file was created through the dangling link", overwrite)
		}
		// Refused whatever overwrite says: a link is not a regular file.
		if !errors.Is(errLink, ErrNotRegular) || !errors.Is(errDangling, ErrNotRegular) {
			t.Fatalf("overwrite=%v: errors %v, %v; want ErrNotRegular", overwrite, errLink, errDangling)
		}
		if !errors.Is(errLink, fs.ErrExist) {
			t.Fatalf("overwrite=%v: error %v does not match fs.ErrExist", overwrite, errLink)
		}
		for _, l := range []string{link, dangling} {
			if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("overwrite=%v: the symlink %s was replaced", overwrite, l)
			}
		}
		assertEntries(t, dir, "dangling", "link", "target")
	}
}

// Failures remove the temporary file and leave the destination alone.
func TestWriteFileRemovesTempOnFailure(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "keep"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The final step fails (link for overwrite=false, rename(2) for
	// overwrite=true, both refuse a directory) after the temporary file
	// was written.
	for _, overwrite := range []bool{false, true} {
		err := WriteFile(sub, []byte("x"), 0o600, overwrite)
		if err == nil {
			t.Fatalf("WriteFile(directory, overwrite=%v) succeeded", overwrite)
		}
		if strings.Contains(err.Error(), ".tmp-") {
			t.Fatalf("error %q names the temporary file instead of the destination", err)
		}
		assertEntries(t, dir, "sub")
		assertEntries(t, sub, "keep")
	}
	// Creating the temporary file fails: nothing is created.
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600, true); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFile(missing dir) error = %v, want fs.ErrNotExist", err)
	}
	if err := WriteFile(dir+string(filepath.Separator), []byte("x"), 0o600, true); err == nil {
		t.Fatal("WriteFile(path ending in a separator) succeeded")
	}
	assertEntries(t, dir, "sub")
}

func TestWriteFileRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := WriteFile("rel.txt", []byte("r"), 0o600, false); err != nil {
		t.Fatal(err)
	}
	assertFile(t, filepath.Join(dir, "rel.txt"), "r", 0o600)
	assertEntries(t, dir, "rel.txt")
}

// Nothing that is not a regular file is ever replaced, not even with
// overwrite: a FIFO, a unix socket, a directory, a symbolic link (the
// /dev/null case: a device, checked by stat only). A regular file next to
// them is the control: it is replaced.
func TestWriteFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("regular", link); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{fifo: "a FIFO", sock: "a socket", sub: "a directory", link: "a symbolic link"}
	for path, kind := range cases {
		before, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, overwrite := range []bool{false, true} {
			err := WriteFile(path, []byte("new"), 0o644, overwrite)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kind) {
				t.Errorf("WriteFile(%s, overwrite=%v) = %v, want ErrNotRegular naming %s", kind, overwrite, err, kind)
			}
			if err := WriteFileExclusive(path, []byte("new"), 0o644); !errors.Is(err, ErrNotRegular) {
				t.Errorf("WriteFileExclusive(%s) = %v, want ErrNotRegular", kind, err)
			}
			if err := CheckTarget(path, overwrite); !errors.Is(err, ErrNotRegular) {
				t.Errorf("CheckTarget(%s) = %v", kind, err)
			}
		}
		after, err := os.Lstat(path)
		if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("%s was changed: %v -> %v (%v)", kind, before.Mode(), after, err)
		}
	}
	// /dev/null is a device: only check it.
	var nr *NotRegularError
	if err := CheckTarget("/dev/null", true); !errors.As(err, &nr) || nr.Kind != "a device" {
		t.Errorf("CheckTarget(/dev/null) = %v, want a device refused", err)
	}
	if err := WriteFile(regular, []byte("new"), 0o644, true); err != nil {
		t.Fatalf("control: replacing a regular file: %v", err)
	}
	assertFile(t, regular, "new", 0o644)
	assertEntries(t, dir, "fifo", "link", "regular", "sock", "sub")
	assertEntries(t, sub)
}

// A missing parent folder is named, not the temporary file.
func TestWriteFileNamesMissingFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nodir", "x.json")
	for name, err := range map[string]error{
		"WriteFile":          WriteFile(path, []byte("x"), 0o644, false),
		"WriteFile/force":    WriteFile(path, []byte("x"), 0o644, true),
		"WriteFileExclusive": WriteFileExclusive(path, []byte("x"), 0o644),
	} {
		if !errors.Is(err, ErrNoFolder) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: error %v, want ErrNoFolder", name, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, filepath.Join(dir, "nodir")+" does not exist") || strings.Contains(msg, ".tmp-") {
			t.Errorf("%s: error %q does not name the folder", name, msg)
		}
	}
	// Control: the parent exists but the file does not: no error.
	if err := CheckTarget(filepath.Join(dir, "x.json"), false); err != nil {
		t.Errorf("CheckTarget(new file in an existing folder) = %v", err)
	}
	assertEntries(t, dir)
}
