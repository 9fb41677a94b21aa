//go:build !unix

package regularfile

import (
	"io/fs"
	"os"
)

// openNonblocking checks the file before opening it where O_NONBLOCK is
// not available (a FIFO swapped in between the two is not guarded).
func openNonblocking(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open"
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	return os.Open(path)
}

func clearNonblocking(*os.File) error { return nil }
