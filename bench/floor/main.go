// Command floor is the floor of batch verification (package
// internal/floor) on the *.json files of a directory, on all cores: per
// file, open and read it as mcpres's strict reader does (a non-regular
// file refused), scan its syntax once (encoding/json.Valid), hash it four
// times with SHA-256 and verify two Ed25519 signatures, those of the first
// file's first two DSSE envelopes (the bench gives it copies of one
// bundle).
//
//	floor DIR
//
//	floor --keyless FLOOR_JSON DIR
//
// With --keyless, the floor of keyless verification: per attested bundle
// (a *.json file that is not a Sigstore bundle kept beside one), read it
// and its FILE.sigstore.json, scan both, hash the bundle four times, and
// verify the signatures FLOOR_JSON prepares (internal/floor.Prepared: the
// envelope's Ed25519 signature, the Fulcio chain, the timestamp token and
// its authority's chain).
//
// It prints the number of files checked. It links only the standard
// library, internal/floor and internal/material: its start-up is Go's own.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/mcpres/mcpres/internal/floor"
	"github.com/mcpres/mcpres/internal/material"

	"github.com/mcpres/mcpres/bench/internal/progexit"
)

// maxInput is the strict reader's input limit (canonjson.MaxInputBytes).
const maxInput = 16 << 20

func main() {
	os.Exit(progexit.Code("floor", run(os.Args[1:], os.Stdout), os.Stderr))
}

// errUsage is a command line the floor refuses (exit 2).
var errUsage = progexit.UsageError{Msg: "usage: floor DIR | floor --keyless FLOOR_JSON DIR"}

// run is the floor: it checks the files args name and prints how many.
func run(args []string, stdout io.Writer) error {
	var n int
	var err error
	switch {
	case len(args) == 1 && !strings.HasPrefix(args[0], "-"):
		n, err = checkDir(args[0])
	case len(args) == 3 && args[0] == "--keyless":
		n, err = checkKeyless(args[1], args[2])
	default:
		return errUsage
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, n)
	return err
}

// bundles lists the attested bundles of dir: its *.json files that are
// not Sigstore bundles kept beside one (NAME.sigstore.json), sorted.
func bundles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !material.IsName(e.Name()) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s holds no .json files", dir)
	}
	return paths, nil
}

func checkKeyless(floorJSON, dir string) (int, error) {
	data, err := os.ReadFile(floorJSON)
	if err != nil {
		return 0, err
	}
	checks, err := floor.PreparedChecks(data)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", floorJSON, err)
	}
	paths, err := bundles(dir)
	if err != nil {
		return 0, err
	}
	err = floor.RunEach(paths, func(p string) error { return floor.CheckKeyless(p, material.Name(p, 1), checks, readFile) })
	return len(paths), err
}

func checkDir(dir string) (int, error) {
	paths, err := bundles(dir)
	if err != nil {
		return 0, err
	}
	first, err := readFile(paths[0])
	if err != nil {
		return 0, err
	}
	sigs, err := floor.Signatures(first)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", paths[0], err)
	}
	if err := floor.Run(paths, sigs, readFile); err != nil {
		return 0, err
	}
	return len(paths), nil
}

// readFile reads path as mcpres's strict reader does on Linux
// (canonjson's fast path): open without following a final symbolic link
// and without blocking on a FIFO, refuse what fstat says is not a regular
// file, read at most maxInput+1 bytes, close. Raw system calls, so the
// floor pays no more for a file than mcpres does.
func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data := make([]byte, 0, min(max(st.Size, 0), maxInput)+1)
	for len(data) <= maxInput {
		if len(data) == cap(data) {
			data = slices.Grow(data, 4096)
		}
		n, err := syscall.Read(fd, data[len(data):min(cap(data), maxInput+1)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxInput)
	}
	return data, nil
}
