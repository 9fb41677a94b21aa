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

// openNonblockingIn is openNonblocking inside root.
func openNonblockingIn(root *os.Root, name string) (*os.File, error) {
	st, err := root.Stat(name)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open"
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Kind: Kind(st.Mode())}
	}
	return root.Open(name)
}

func clearNonblocking(*os.File) error { return nil }
