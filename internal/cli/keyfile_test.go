package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A key file with any group or other permission bit is warned about, with
// the path and mode; an owner-only file is not.
func TestKeyFileWarning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.pem")
	if err := os.WriteFile(path, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode os.FileMode
		want string
	}{
		{0o600, ""},
		{0o400, ""},
		{0o640, "private key " + path + " is readable by other users (mode 0640); chmod 600 it"},
		{0o604, "private key " + path + " is readable by other users (mode 0604); chmod 600 it"},
		{0o610, "private key " + path + " is readable by other users (mode 0610); chmod 600 it"},
	} {
		if err := os.Chmod(path, tc.mode); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := KeyFileWarning(path, st); got != tc.want {
			t.Errorf("mode %04o: %q, want %q", tc.mode, got, tc.want)
		}
	}
}
