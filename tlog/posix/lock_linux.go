package posix

import (
	"os"

	"github.com/mcpres/mcpres/tlog"
	"golang.org/x/sys/unix"
)

var _ tlog.PublisherExclusion = (*Storage)(nil)

// ExcludesOwnPublisher reports whether ReplaceCheckpoint is excluded
// against a Tessera appender of this process on the same directory: on
// Linux it is (an open-file-description lock).
func (s *Storage) ExcludesOwnPublisher() bool { return true }

// lockPublish takes an exclusive open-file-description (OFD) lock on the
// whole file at path and returns its release.
//
// Tessera takes a traditional fcntl lock on the same file. Traditional
// locks belong to the process: a second one taken by the same process
// succeeds at once, and closing any descriptor of the file releases them
// all, so a traditional lock here would neither wait for Tessera's
// publisher in this process nor leave its lock in place. An OFD lock
// conflicts with every traditional lock, the same process's included. The
// descriptor is closed only while the OFD lock is held, when Tessera's
// publisher of this process cannot hold its lock, so closing never
// releases it.
func lockPublish(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	for {
		err = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLKW, &lk)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		// Not locked: closing may release a lock Tessera's publisher
		// of this process holds; rare (ENOLCK), and the caller fails.
		f.Close()
		return nil, err
	}
	// Closing the only descriptor of the description releases the lock.
	return func() { f.Close() }, nil
}
