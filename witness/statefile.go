package witness

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/filelock"
	"github.com/mcpres/mcpres/internal/regularfile"
)

// MaxStateBytes is the largest state file read: [MaxStateLogs] logs with
// origins of the longest key name fit several times over.
const MaxStateBytes = 4 << 20

// StateLockSuffix names the lock file of a state file: PATH + ".lock".
const StateLockSuffix = ".lock"

// ErrStateLocked is matched (errors.Is) by the error of [LockStateFile]
// when another process (or another holder in this one) kept the state's
// lock for the whole wait.
var ErrStateLocked = errors.New("witness: the state is locked by another process")

// A StateFile is a state file whose exclusive lock is held: the only way
// this module reads a witness state before deciding on a cosignature and
// writes it after. Read, decide, write, then Unlock: two processes on one
// state can then never both cosign from the same recorded tree (two roots
// at one size, or a lost update that lets a later fork through).
type StateFile struct {
	path string
	lock *filelock.Lock
}

// LockStateFile takes the exclusive lock of the state file at path: the
// lock file path+[StateLockSuffix], created beside it (mode 0600) and left
// in place. If another holder has it, LockStateFile waits up to wait (0:
// not at all), then fails with an error matching [ErrStateLocked]. Where
// files cannot be locked it fails (errors.ErrUnsupported): a witness does
// not run on an unprotected state. The state file itself need not exist.
func LockStateFile(path string, wait time.Duration) (*StateFile, error) {
	l, err := filelock.Acquire(path+StateLockSuffix, wait)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("%w: %s is in use (waited %v for %s); nothing was cosigned", ErrStateLocked, path, wait, path+StateLockSuffix)
	}
	if err != nil {
		return nil, fmt.Errorf("witness: locking the state %s: %w", path, err)
	}
	return &StateFile{path: path, lock: l}, nil
}

// Path is the state file's path.
func (f *StateFile) Path() string { return f.path }

var errUnlocked = errors.New("witness: the state file's lock was released")

// Read reads and parses the state file ([ParseState]): (nil, nil) when it
// does not exist. It must be a regular file of at most [MaxStateBytes]:
// anything else (a FIFO, a directory, a device) is refused at once.
func (f *StateFile) Read() (*State, error) {
	if f.lock == nil {
		return nil, errUnlocked
	}
	data, err := regularfile.ReadFile(f.path, MaxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("witness state: %w", err)
	}
	s, err := ParseState(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	return s, nil
}

// Write replaces the state file with s atomically (a temporary file,
// fsynced, renamed, the folder fsynced: atomicfile.WriteFile), mode 0644.
// A cosignature may be published once Write has returned nil.
func (f *StateFile) Write(s *State) error {
	if f.lock == nil {
		return errUnlocked
	}
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(f.path, data, 0o644, true)
}

// Unlock releases the lock; Read and Write fail afterwards. Unlocking
// twice is a no-op.
func (f *StateFile) Unlock() error {
	l := f.lock
	f.lock = nil
	return l.Release()
}
