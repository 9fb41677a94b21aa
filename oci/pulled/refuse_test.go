package pulled_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/oci/pulled"
)

// Read refuses a folder without an index, and an index of more lines than
// MaxEntries; IsFolder says no for a file and a folder without an index.
// The referrer that was not pulled refuses to give a bundle or Sigstore
// material, with the pull's reason; the control reads the pulled one.
func TestReadRefusesMore(t *testing.T) {
	dir := write(t, []byte(`{"a":1}`))
	f, err := pulled.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := len(f.Entries) - 1
	if f.Entries[last].Err == "" {
		t.Fatal("the fixture's last referrer was pulled")
	}
	if _, err := f.Bundle(last); err == nil || err.Error() != "too large" {
		t.Errorf("Bundle of a referrer not pulled: %v", err)
	}
	if _, err := f.Sigstore(last); err == nil || err.Error() != "too large" {
		t.Errorf("Sigstore of a referrer not pulled: %v", err)
	}
	if b, err := f.Bundle(0); err != nil || string(b) != `{"a":1}` {
		t.Errorf("control: %q, %v", b, err)
	}
	if m, err := f.Sigstore(0); err != nil || len(m) != 0 {
		t.Errorf("control, no material: %v, %v", m, err)
	}

	empty := t.TempDir()
	var fe *pulled.FolderError
	if _, err := pulled.Read(empty); !errors.As(err, &fe) || !strings.Contains(err.Error(), "index") {
		t.Errorf("no index: %v", err)
	}
	if pulled.IsFolder(empty) || pulled.IsFolder(filepath.Join(dir, pulled.IndexName)) || pulled.IsFolder(filepath.Join(empty, "none")) || !pulled.IsFolder(dir) {
		t.Error("IsFolder")
	}
	p := filepath.Join(dir, pulled.IndexName)
	data, _ := os.ReadFile(p)
	line := strings.SplitN(string(data), "\n", 2)[0] + "\n"
	if err := os.WriteFile(p, []byte(strings.Repeat(line, pulled.MaxEntries+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pulled.Read(dir); !errors.As(err, &fe) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an index over MaxEntries: %v", err)
	}
}
