package aws

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/transparency-dev/tessera/api/layout"
)

// bundleOf is an entry bundle (each entry a big-endian uint16 length, then
// its bytes) of the entries given.
func bundleOf(entries ...string) []byte {
	var b []byte
	for _, e := range entries {
		b = binary.BigEndian.AppendUint16(b, uint16(len(e)))
		b = append(b, e...)
	}
	return b
}

// trimBundle keeps the first p entries of a source's entry bundle and
// refuses one that holds fewer, ends inside an entry, or (a full bundle)
// has bytes after its 256th entry.
func TestTrimBundle(t *testing.T) {
	three := bundleOf("a", "bb", "ccc")
	if got, err := trimBundle(three, 2); err != nil || !bytes.Equal(got, bundleOf("a", "bb")) {
		t.Fatalf("first 2 of 3: %q, %v", got, err)
	}
	full := make([]string, layout.EntryBundleWidth)
	for i := range full {
		full[i] = "e"
	}
	if got, err := trimBundle(bundleOf(full...), 0); err != nil || len(got) != 3*layout.EntryBundleWidth {
		t.Fatalf("a full bundle: %d bytes, %v", len(got), err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		p    uint8
		want string
	}{
		{"fewer entries", three, 4, "entry bundle: 3 entries, want 4"},
		{"a full bundle short of entries", three, 0, "entry bundle: 3 entries, want 256"},
		{"an entry cut short", bundleOf("a", "bb", "ccc")[:9], 3, "entry bundle: truncated entry"},
		{"a length cut in half", append(bundleOf("a"), 0), 2, "entry bundle: 1 entries, want 2"},
		{"bytes after 256 entries", append(bundleOf(full...), 0, 0), 0, "entry bundle: trailing data after 256 entries"},
	} {
		if _, err := trimBundle(tc.b, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
