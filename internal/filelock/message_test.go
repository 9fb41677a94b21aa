package filelock

import (
	"path/filepath"
	"testing"
	"time"
)

// A lock that stays held is refused with a message naming the lock file,
// and the wait when there was one.
func TestLockedErrorMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	l, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	for wait, want := range map[time.Duration]string{
		0:                    path + " is locked by another process",
		5 * time.Millisecond: path + " is locked by another process (waited 5ms)",
	} {
		if _, err := Acquire(path, wait); err == nil || err.Error() != want {
			t.Errorf("wait %v: %v, want %q", wait, err, want)
		}
	}
}
