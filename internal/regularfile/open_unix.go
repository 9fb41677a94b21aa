//go:build unix

package regularfile

import (
	"os"
	"syscall"
)

// openNonblocking opens path read-only with O_NONBLOCK: opening a FIFO
// for reading then returns at once instead of waiting for a writer.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openNonblockingIn is openNonblocking inside root.
func openNonblockingIn(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// clearNonblocking puts a regular file back into blocking mode (O_NONBLOCK
// has no effect on regular files on Linux, but other systems may differ).
func clearNonblocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
