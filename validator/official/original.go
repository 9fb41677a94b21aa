package official

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/validator"
)

// MaxOriginalResultBytes is the largest original result file accepted: the
// schema maximum of originalResultArtifact.bytes (64 MiB).
const MaxOriginalResultBytes = 67108864

// ReadOriginalResult reads the raw bytes of an official tool output file for
// step 8. The file is not parsed (it need not be JSON) but must be a regular
// file, not a symbolic link, of at most MaxOriginalResultBytes bytes; at
// most one byte more is read, so a file that grows meanwhile is still
// rejected. Any failure is an *InputError (MCP_RES_INPUT_INVALID).
func ReadOriginalResult(path string) (*OriginalResult, error) {
	fail := func(format string, args ...any) (*OriginalResult, error) {
		return nil, &validator.InputError{Reason: "original result: " + fmt.Sprintf(format, args...)}
	}
	st, err := os.Lstat(path)
	if err != nil {
		return fail("%v", err)
	}
	if !st.Mode().IsRegular() {
		return fail("%s: not a regular file (%s)", path, regularfile.Kind(st.Mode()))
	}
	f, err := regularfile.Open(path) // never blocks on a FIFO swapped in meanwhile
	if err != nil {
		return fail("%v", err)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return fail("%v", err)
	}
	if !fst.Mode().IsRegular() || !os.SameFile(st, fst) {
		return fail("%s: not a regular file (file changed while opening)", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxOriginalResultBytes+1))
	if err != nil {
		return fail("%s: %v", path, err)
	}
	if len(data) > MaxOriginalResultBytes {
		return fail("%s: larger than %d bytes", path, MaxOriginalResultBytes)
	}
	return &OriginalResult{Bytes: data}, nil
}
