//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package filelock

import (
	"fmt"
	"os"
)

// openLockFile refuses: there is no file locking here (see the package
// documentation), and running unlocked could let two processes decide on
// the same state at once.
func openLockFile(path string) (*os.File, error) {
	return nil, fmt.Errorf("cannot lock %s: %w", path, ErrUnsupported)
}

func tryLock(*os.File) (bool, error) { return false, ErrUnsupported }
