package witnesshttp

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/signednote"
	"github.com/transparency-dev/tessera/api/layout"
)

// A DirLog reads a tlog-tiles log in a directory (a log directory, or a
// copy of a served log): a witness.LogReader, the one [OpenLog] returns
// for a directory. Its checkpoint is at most
// signednote.MaxBytes and its tiles at most a full tile; every file must
// be a regular file (a FIFO is refused at once, never waited on).
type DirLog string

// ReadCheckpoint reads DIR/checkpoint.
func (d DirLog) ReadCheckpoint(context.Context) ([]byte, error) {
	return regularfile.ReadFile(filepath.Join(string(d), layout.CheckpointPath), signednote.MaxBytes)
}

// ReadTile reads a hash tile, or the full tile when the partial one is
// gone.
func (d DirLog) ReadTile(_ context.Context, level, index uint64, p uint8) ([]byte, error) {
	data, err := regularfile.ReadFile(filepath.Join(string(d), layout.TilePath(level, index, p)), maxTileBytes)
	if errors.Is(err, fs.ErrNotExist) && p > 0 {
		// The partial tile may have been replaced by the full one.
		return regularfile.ReadFile(filepath.Join(string(d), layout.TilePath(level, index, 0)), maxTileBytes)
	}
	return data, err
}
