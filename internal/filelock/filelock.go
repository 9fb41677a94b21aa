// Package filelock takes exclusive locks on lock files, so that processes
// sharing state on disk (a witness's state, for one) read, decide and
// write it one at a time.
//
// A lock is advisory: it excludes only the processes that take it too.
// On Linux, macOS and the BSDs it is flock(2) on a lock file of its own
// (created if missing, mode 0600, never a symbolic link, never removed):
// it belongs to the open file, so it excludes another process and another
// [Acquire] in the same process alike, and the kernel releases it when
// the holder exits, even when it is killed. A lock file is never the
// state file itself, which is replaced by rename and so changes inode.
//
// On other systems [Acquire] fails with an error matching
// [ErrUnsupported]: the callers refuse to run rather than run unlocked.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrLocked is matched (errors.Is) by the error for a lock another holder
// kept for the whole wait.
var ErrLocked = errors.New("locked by another process")

// ErrUnsupported is matched by the error of [Acquire] on a system where
// this package cannot lock files. It also matches errors.ErrUnsupported.
var ErrUnsupported = fmt.Errorf("file locking is not supported on this system: %w", errors.ErrUnsupported)

// A Lock is a held lock; [Lock.Release] releases it.
type Lock struct {
	f *os.File
}

// LockedError names a lock file that stayed locked for the whole wait.
type LockedError struct {
	Path string
	Wait time.Duration
}

func (e *LockedError) Error() string {
	if e.Wait <= 0 {
		return fmt.Sprintf("%s is locked by another process", e.Path)
	}
	return fmt.Sprintf("%s is locked by another process (waited %v)", e.Path, e.Wait)
}

// Is matches ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Acquire takes the exclusive lock of the lock file at path, creating the
// file (mode 0600, before umask) if it is missing. If another holder has
// it, Acquire tries again, at growing intervals of at most 50 ms, until
// wait has passed (0: one try), and then fails with a *[LockedError].
// A path that exists and is not a regular file (a symbolic link, a FIFO,
// a directory) is refused and left untouched.
func Acquire(path string, wait time.Duration) (*Lock, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if ok {
			return &Lock{f: f}, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.Close()
			return nil, &LockedError{Path: path, Wait: wait}
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Release releases the lock. Releasing twice is a no-op.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Closing the only descriptor of the open file releases its lock.
	err := l.f.Close()
	l.f = nil
	return err
}
