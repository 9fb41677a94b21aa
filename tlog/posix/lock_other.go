//go:build unix && !linux

package posix

import (
	"io"
	"os"
	"syscall"

	"github.com/mcpres/mcpres/tlog"
)

var _ tlog.PublisherExclusion = (*Storage)(nil)

// ExcludesOwnPublisher reports whether ReplaceCheckpoint is excluded
// against a Tessera appender of this process on the same directory: not on
// this system, which has no open-file-description locks.
func (s *Storage) ExcludesOwnPublisher() bool { return false }

// lockPublish takes an exclusive traditional fcntl lock on the file at
// path, as Tessera's lockFile does, and returns its release. It excludes
// other processes only (see lock_linux.go).
func lockPublish(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	for {
		err = syscall.FcntlFlock(f.Fd(), syscall.F_SETLKW, &lk)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	// Closing the file releases the lock.
	return func() { f.Close() }, nil
}
