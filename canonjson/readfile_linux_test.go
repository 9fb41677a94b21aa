package canonjson

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFastReadFile: a regular file is read in full by the fast path, and
// everything else is left to the careful one (which words the errors,
// TestReadFileRules): a symbolic link to it, a directory, a FIFO (without
// blocking), a device, a missing file. A file over the limit is read one
// byte past it, never more.
func TestFastReadFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(regular, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, ok, err := fastReadFile(nil, regular); !ok || err != nil || string(data) != `{"a":1}` {
		t.Fatalf("regular file: %q %v %v", data, ok, err)
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink(regular, link)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, dir, fifo, "/dev/null", filepath.Join(dir, "missing.json")} {
		if _, ok, _ := fastReadFile(nil, p); ok {
			t.Errorf("%s: taken by the fast path", p)
		}
	}
	over := filepath.Join(dir, "over.json")
	if err := os.WriteFile(over, bytes.Repeat([]byte(" "), MaxInputBytes+4096), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, ok, err := fastReadFile(nil, over); !ok || err != nil || len(data) != MaxInputBytes+1 {
		t.Fatalf("file over the limit: %d bytes read, %v %v", len(data), ok, err)
	}
}
