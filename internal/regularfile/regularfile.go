// Package regularfile opens and reads the files mcpres takes as input —
// keys, verifier keys, tokens, policies, cosignatures, state files,
// artifacts — and refuses, at once, anything that is not a regular file.
//
// A FIFO given as an input would otherwise block the process forever in
// open(2) or read(2) (a gate that never answers); a device such as
// /dev/zero never ends; a directory reads as an error far from its cause.
// [Open] opens with O_NONBLOCK, so opening a FIFO returns at once, and
// then checks the opened file itself (fstat), so nothing swapped in after
// a check is read. Symbolic links are followed (secrets mounted by
// Kubernetes are links); what they lead to must be a regular file.
//
// Documents read with the strict JSON reader keep that reader's own rules
// (canonjson, which also refuses links); this package is for
// everything else.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is matched (errors.Is) by the error for an input that is
// not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is matched by the error for an input larger than the limit
// its reader allows.
var ErrTooLarge = errors.New("file too large")

// NotRegularError says what an input that is not a regular file is.
type NotRegularError struct {
	Path string
	Kind string // as [Kind] says: "a directory", "a FIFO", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: inputs are read from regular files only", e.Path, e.Kind)
}

// Is matches ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError names an input larger than its limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes, the limit for this input", e.Path, e.Limit)
}

// Is matches ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Kind describes a file mode for messages: "a regular file", "a directory",
// "a symbolic link", "a FIFO", "a socket", "a device".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file (" + m.Type().String() + ")"
	}
}

// A ReadError is an input that could not be opened or read, worded for
// people: "cannot read PATH: no such file", not Go's "lstat PATH: no such
// file or directory". It unwraps to the file system's *fs.PathError, so
// errors.Is(err, fs.ErrNotExist) still holds.
type ReadError struct {
	Path string
	Err  *fs.PathError
}

func (e *ReadError) Error() string { return "cannot read " + e.Path + ": " + reason(e.Err.Err) }

// Unwrap returns the *fs.PathError.
func (e *ReadError) Unwrap() error { return e.Err }

// reason words the cause of a failed read.
func reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.EISDIR):
		return "it is a directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "a part of the path is not a directory"
	}
	return err.Error()
}

// AsReadError returns err as a [ReadError] when it is an *fs.PathError of
// opening or reading a file (the operations lstat, stat, open and read),
// and err unchanged otherwise. The readers of inputs (this package, the
// strict JSON reader) return their file system errors through it, and the
// binaries word any other such error with it before printing.
func AsReadError(err error) error {
	pe, ok := err.(*fs.PathError)
	if !ok {
		return err
	}
	switch pe.Op {
	case "lstat", "stat", "open", "read":
		return &ReadError{Path: pe.Path, Err: pe}
	}
	return err
}

// Open opens path for reading if it is (or a symbolic link leads to) a
// regular file, without ever blocking on a FIFO; otherwise the error
// matches [ErrNotRegular]. Errors of the file system are returned as a
// *ReadError, which unwraps to an *fs.PathError with the operation "open"
// (never "lstat" or "stat").
func Open(path string) (*os.File, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, AsReadError(err)
	}
	return checkOpened(f, path)
}

// OpenIn is [Open] for name inside root (os.Root's rules: no path that
// leaves it); messages name the file as name.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	f, err := openNonblockingIn(root, name)
	if err != nil {
		return nil, err
	}
	return checkOpened(f, name)
}

// checkOpened keeps f if it is a regular file, in blocking mode, and
// closes it otherwise.
func checkOpened(f *os.File, path string) (*os.File, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, AsReadError(&fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)})
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	if err := clearNonblocking(f); err != nil {
		f.Close()
		return nil, AsReadError(&fs.PathError{Op: "open", Path: path, Err: err})
	}
	return f, nil
}

// ReadFile reads path, which must be a regular file of at most limit
// bytes: at most limit+1 bytes are read, so a file that grows after the
// check is still refused ([ErrTooLarge]).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(512)
	if st, err := f.Stat(); err == nil && st.Size() >= 0 {
		size = min(st.Size(), limit) + 1
	}
	buf := make([]byte, 0, size)
	r := io.LimitReader(f, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, AsReadError(&fs.PathError{Op: "read", Path: path, Err: unwrapPath(err)})
		}
	}
	if int64(len(buf)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return buf, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
