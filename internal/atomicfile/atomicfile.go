// Package atomicfile writes files so that readers never see a partial file
// and existing files are never clobbered by accident.
//
// [WriteFileExclusive] creates a new file (O_EXCL) and fails if anything,
// even a dangling symbolic link, already has the name. [WriteFile] writes a
// temporary file in the destination's directory and moves it into place, so
// the destination holds either its old content or the complete new content;
// it replaces an existing regular file only when asked to.
//
// Neither ever writes over something that is not a regular file: a device
// (such as /dev/null), a FIFO, a socket, a directory or a symbolic link
// already at the name is refused with an error matching [ErrNotRegular],
// even when overwriting is allowed, and is left untouched. A missing
// parent folder is reported by its name ([ErrNoFolder]), never by the name
// of a temporary file.
//
// Both fsync the file before it becomes visible and the directory after, and
// remove whatever they created when they fail. File modes are subject to the
// process umask, as with os.WriteFile; a mode such as 0600 is therefore
// never widened. The files are created with their final mode, so a private
// key is never readable by others, not even briefly.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/mcpres/mcpres/internal/regularfile"
)

// ErrNotRegular is matched (errors.Is) by the error for a destination that
// exists and is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrNoFolder is matched by the error for a destination whose parent folder
// does not exist.
var ErrNoFolder = errors.New("folder does not exist")

// NotRegularError says what is at a destination that is not a regular file.
type NotRegularError struct {
	Path string
	Kind string // "a directory", "a symbolic link", "a FIFO", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// Is matches ErrNotRegular, and fs.ErrExist: something has the name.
func (e *NotRegularError) Is(target error) bool {
	return target == ErrNotRegular || target == fs.ErrExist
}

// NoFolderError names the missing parent folder of a destination.
type NoFolderError struct {
	Path   string // the destination
	Folder string // its parent folder, which does not exist
}

func (e *NoFolderError) Error() string {
	return fmt.Sprintf("cannot write %s: folder %s does not exist", e.Path, e.Folder)
}

func (e *NoFolderError) Is(target error) bool {
	return target == ErrNoFolder || target == fs.ErrNotExist
}

// CheckTarget reports whether path may be written: nil if nothing has the
// name, or if it is a regular file and overwrite is true. Otherwise the
// error matches [ErrNotRegular] (anything but a regular file, whatever
// overwrite says), fs.ErrExist (a regular file, overwrite false) or
// [ErrNoFolder]. Symbolic links are not followed. [WriteFile] and
// [WriteFileExclusive] make the same checks; CheckTarget lets a command
// refuse before it does expensive work.
func CheckTarget(path string, overwrite bool) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return &NotRegularError{Path: path, Kind: regularfile.Kind(fi.Mode())}
	case err == nil && !overwrite:
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrExist}
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return folderError(path, err)
	default:
		return err
	}
}

// folderError turns a "no such file" error for path into a NoFolderError
// when the parent folder is what is missing (or is not a folder), and
// returns nil when the parent exists (path itself simply does not).
func folderError(path string, err error) error {
	dir := filepath.Dir(path)
	fi, statErr := os.Stat(dir)
	if statErr == nil && fi.IsDir() {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return &NoFolderError{Path: path, Folder: dir}
}

// WriteFileExclusive creates path with mode perm (before umask), writes data,
// and fsyncs the file and its directory. It fails with an error matching
// fs.ErrExist if path exists in any form, including a symbolic link (which
// is never followed). If writing or syncing fails, the new file is removed.
func WriteFileExclusive(path string, data []byte, perm os.FileMode) error {
	if err := CheckTarget(path, false); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if ferr := folderError(path, err); ferr != nil {
				return ferr
			}
		}
		return err
	}
	if err := writeSyncClose(f, data); err != nil {
		os.Remove(path)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// WriteFile writes data to path atomically: it creates a temporary file
// named ".<base>.tmp-<random>" in the same directory with mode perm (before
// umask), writes and fsyncs it, then moves it to path and fsyncs the
// directory. Readers see either the previous state or the complete file.
//
// If overwrite is false, an existing path of any kind (a file, a directory,
// a symbolic link, even a dangling one) is left untouched and the error
// matches fs.ErrExist. The no-clobber move is a hard link followed by the
// removal of the temporary name, which is atomic; on file systems without
// hard links it falls back to a check followed by a rename, which is not.
//
// If overwrite is true, an existing regular file is replaced (the new file
// has mode perm, not the old file's mode). Anything else at path (a
// symbolic link, a directory, a device, a FIFO, a socket) is refused with
// [ErrNotRegular] and left untouched, whatever overwrite says; a symbolic
// link's target is never opened or written. The check is made before the
// temporary file is created and again just before the rename: only a
// process that can already write the destination's directory could swap
// something in between.
//
// On every failure the temporary file is removed.
func WriteFile(path string, data []byte, perm os.FileMode, overwrite bool) (err error) {
	dir, base := filepath.Split(path)
	if base == "" {
		return &fs.PathError{Op: "write", Path: path, Err: errors.New("path names a directory")}
	}
	if dir == "" {
		dir = "."
	}
	if err := CheckTarget(path, overwrite); err != nil {
		return err
	}
	f, tmp, err := createTemp(dir, base, perm)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			if ferr := folderError(path, err); ferr != nil {
				return ferr
			}
		}
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err := writeSyncClose(f, data); err != nil {
		return err
	}
	if overwrite {
		// rename(2) would replace a symbolic link, a device or a FIFO as
		// readily as a file: check again right before it.
		if err := CheckTarget(path, true); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return destError(err, path)
		}
	} else if err := moveNoReplace(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// testOnlyLink is os.Link; tests replace it to exercise the fallback for
// file systems without hard links.
var testOnlyLink = os.Link

// moveNoReplace moves tmp to path unless path exists.
func moveNoReplace(tmp, path string) error {
	linkErr := testOnlyLink(tmp, path)
	if linkErr == nil {
		// Both names now refer to the file; dropping the temporary one
		// cannot fail in a way that matters, but report it if it does.
		return os.Remove(tmp)
	}
	if errors.Is(linkErr, fs.ErrExist) {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrExist}
	}
	// No hard links here (for example some network or FUSE file systems):
	// check, then rename. Another process could create path in between.
	if _, err := os.Lstat(path); err == nil {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return destError(os.Rename(tmp, path), path)
}

// destError reports a failed rename against the destination, not the
// temporary name the caller never chose.
func destError(err error, path string) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: le.Op, Path: path, Err: le.Err}
	}
	return err
}

// createTemp creates a new file next to the destination with mode perm.
// Unlike os.CreateTemp (always 0600) it honours perm, so that the final
// file gets exactly the mode a direct create would give it.
func createTemp(dir, base string, perm os.FileMode) (*os.File, string, error) {
	var lastErr error
	for range 100 {
		var rnd [8]byte
		rand.Read(rnd[:])
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
		lastErr = err
	}
	return nil, "", fmt.Errorf("creating a temporary file in %s: %w", dir, lastErr)
}

func writeSyncClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// syncDir fsyncs a directory so that a new or renamed entry survives a
// crash. File systems and platforms that cannot sync a directory (EINVAL,
// ENOTSUP; Windows) are not an error: the file itself is already synced.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if closeErr := d.Close(); err == nil {
		err = closeErr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}
