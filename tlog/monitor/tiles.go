package monitor

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/transparency-dev/tessera/api/layout"
)

// MaxEntryBytes is the largest log entry the monitor decodes: an
// mcpres.transparency-entry/v1 is about 450 bytes. A larger entry in the
// tree is an undecodable entry (an alert), never decoded.
const MaxEntryBytes = 16 << 10

// ParseEntryBundle reads a C2SP tlog-tiles entry bundle (each entry a
// big-endian uint16 length and that many bytes) and returns its first
// width entries (1 ≤ width ≤ 256). The bundle must hold at least width
// entries, and exactly width or 256: a partial bundle asked for may be
// answered with the full one, nothing else. Trailing bytes, a truncated
// entry or a count outside these is an error. The entries are slices of
// data.
func ParseEntryBundle(data []byte, width int) ([][]byte, error) {
	if width < 1 || width > layout.EntryBundleWidth {
		return nil, fmt.Errorf("entry bundle: width %d out of range 1..%d", width, layout.EntryBundleWidth)
	}
	entries := make([][]byte, 0, width)
	n := 0
	for off := 0; off < len(data); {
		if n == layout.EntryBundleWidth {
			return nil, fmt.Errorf("entry bundle: more than %d entries (%d bytes after entry %d)", layout.EntryBundleWidth, len(data)-off, n)
		}
		if off+2 > len(data) {
			return nil, fmt.Errorf("entry bundle: %d dangling byte(s) at offset %d", len(data)-off, off)
		}
		size := int(binary.BigEndian.Uint16(data[off:]))
		off += 2
		if off+size > len(data) {
			return nil, fmt.Errorf("entry bundle: entry %d says %d bytes, %d remain", n, size, len(data)-off)
		}
		if n < width {
			entries = append(entries, data[off:off+size])
		}
		off += size
		n++
	}
	if n != width && n != layout.EntryBundleWidth || n < width {
		return nil, fmt.Errorf("entry bundle: %d entries, want %d", n, width)
	}
	return entries, nil
}

// ParseHashTile reads a hash tile of width hashes (1 ≤ width ≤ 256),
// accepting the full tile for a partial one, and returns its first width
// hashes.
func ParseHashTile(data []byte, width int) ([][]byte, error) {
	if width < 1 || width > layout.TileWidth {
		return nil, fmt.Errorf("hash tile: width %d out of range 1..%d", width, layout.TileWidth)
	}
	if len(data) != 32*width && len(data) != 32*layout.TileWidth {
		return nil, fmt.Errorf("hash tile: %d bytes, want %d (width %d)", len(data), 32*width, width)
	}
	hs := make([][]byte, width)
	for i := range hs {
		hs[i] = data[32*i : 32*i+32]
	}
	return hs, nil
}

// tileFetcher adapts a source to tessera's client.TileFetcherFunc: every
// tile it hands to tessera's proof builder has exactly the width the tree
// size calls for, so a tile of the wrong size is refused here, not
// interpreted.
func tileFetcher(src Source) func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	return func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
		b, err := src.ReadTile(ctx, level, index, p)
		if err != nil {
			return nil, err
		}
		w := int(p)
		if w == 0 {
			w = layout.TileWidth
		}
		if _, err := ParseHashTile(b, w); err != nil {
			return nil, &SourceError{Source: src.Name(), Resource: layout.TilePath(level, index, p), Err: err}
		}
		return b[:32*w], nil
	}
}
