package keyref

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pin-source file that its group or other users may read or write is
// refused before the token is opened, saying to chmod 600 it (issue 31
// item 10); the owner's own file (0600, 0400) gives its PIN to the opener.
func TestPINFileMode(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "module.so") // only stat'ed: the opener below loads nothing
	if err := os.WriteFile(module, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	errOpened := errors.New("opened")
	for _, c := range []struct {
		mode os.FileMode
		ok   bool
	}{
		{0o644, false}, {0o640, false}, {0o604, false}, {0o620, false}, {0o602, false},
		{0o600, true}, {0o400, true},
	} {
		pin := filepath.Join(dir, "pin-"+c.mode.String()[1:])
		if err := os.WriteFile(pin, []byte(testPIN+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(pin, c.mode); err != nil {
			t.Fatal(err)
		}
		var got *PKCS11Request
		opener := func(req *PKCS11Request) (Holder, error) { got = req; return nil, errOpened }
		_, err := Open("pkcs11:object=k?module-path="+module+"&pin-source="+pin, Options{LookupEnv: func(string) (string, bool) { return "", false }, PKCS11: opener})
		if c.ok {
			if !errors.Is(err, errOpened) || got == nil || got.PIN != testPIN {
				t.Errorf("mode %04o: %v, request %+v", c.mode, err, got)
			}
			continue
		}
		if !errors.Is(err, ErrPINFileMode) || !strings.Contains(err.Error(), "chmod 600 "+pin) || got != nil {
			t.Errorf("mode %04o: %v (opener called: %t), want ErrPINFileMode saying chmod 600 %s", c.mode, err, got != nil, pin)
		}
		if strings.Contains(strings.ReplaceAll(err.Error(), dir, "DIR"), testPIN) {
			t.Errorf("mode %04o: the error holds the PIN: %v", c.mode, err)
		}
	}
}
