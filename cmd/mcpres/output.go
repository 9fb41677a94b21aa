package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpres/mcpres/internal/atomicfile"
)

// writeOutput writes data to out atomically (temporary file in the same
// directory, then rename). It never replaces one of the command's inputs,
// and replaces an existing file only with force.
func writeOutput(out string, inputs []string, data []byte, force bool) error {
	if out == "" {
		return usagef("-o/--output is required")
	}
	for _, in := range inputs {
		if sameFile(in, out) {
			return failf("refusing to write %s: it is an input of this command", out)
		}
	}
	if _, err := os.Lstat(out); err == nil && !force {
		return failf("refusing to overwrite %s (use --force to replace it)", out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failf("%v", err)
	}
	if err := atomicfile.WriteFile(out, data, 0o644, force); err != nil {
		return failf("writing %s: %v", out, err)
	}
	return nil
}

// sameFile reports whether a and b name the same file, or the same path when
// b does not exist yet.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
