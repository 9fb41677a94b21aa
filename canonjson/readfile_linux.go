package canonjson

import (
	"io/fs"
	"syscall"
)

// fastReadFile reads path in the common case, a regular file that is not
// a symbolic link, with the fewest system calls: open (never following a
// symbolic link at the end of the path, never blocking on a FIFO), fstat,
// read, close; a batch reads thousands of files. The descriptor's fstat
// decides, so nothing can be swapped in between a check and the read, and
// O_NONBLOCK changes nothing for a regular file. ok is false for anything
// else (no such file, a link, a FIFO, a device, a directory, an open that
// fails): readFileBytes then takes the careful path, which words the
// error. Its size rule is readLimited's.
func fastReadFile(buf []byte, path string) (data []byte, ok bool, err error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, false, nil
	}
	limit := MaxInputBytes + 1 // read one byte more than the limit, never more
	data = readBuffer(buf, min(max(st.Size, 0), MaxInputBytes)+1)
	for len(data) < limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew after the stat
		}
		n, err := syscall.Read(fd, data[len(data):min(cap(data), limit)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, true, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
	}
	return data, true, nil
}
