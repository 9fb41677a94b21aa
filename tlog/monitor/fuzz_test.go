package monitor_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/mcpres/mcpres/tlog/monitor"
)

func bundle(entries ...[]byte) []byte {
	var b []byte
	for _, e := range entries {
		b = binary.BigEndian.AppendUint16(b, uint16(len(e)))
		b = append(b, e...)
	}
	return b
}

func TestParseEntryBundle(t *testing.T) {
	full := make([][]byte, 256)
	for i := range full {
		full[i] = []byte{byte(i)}
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		width int
		ok    bool
	}{
		{"exact", bundle([]byte("a"), []byte("bc")), 2, true},
		{"full for a partial", bundle(full...), 3, true},
		{"too few", bundle([]byte("a")), 2, false},
		{"more than asked, not full", bundle([]byte("a"), []byte("b"), []byte("c")), 2, false},
		{"dangling byte", append(bundle([]byte("a")), 0), 1, false},
		{"truncated entry", []byte{0, 5, 'a'}, 1, false},
		{"more than 256", bundle(append(full, []byte("x"))...), 256, false},
		{"width 0", bundle([]byte("a")), 0, false},
	} {
		got, err := monitor.ParseEntryBundle(tc.data, tc.width)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.name, err)
		}
		if err == nil && len(got) != tc.width {
			t.Errorf("%s: %d entries", tc.name, len(got))
		}
	}
}

func FuzzParseEntryBundle(f *testing.F) {
	f.Add(bundle([]byte("a"), []byte("bc")), 2)
	f.Add([]byte{0, 5, 'a'}, 1)
	f.Add([]byte{}, 1)
	f.Fuzz(func(t *testing.T, data []byte, width int) {
		es, err := monitor.ParseEntryBundle(data, width)
		if err != nil {
			return
		}
		if len(es) != width {
			t.Fatalf("%d entries for width %d", len(es), width)
		}
		// The entries are the bundle's prefix, re-encoded.
		if re := bundle(es...); !bytes.HasPrefix(data, re) {
			t.Fatal("entries are not the bundle's prefix")
		}
	})
}

func FuzzParseHashTile(f *testing.F) {
	f.Add(make([]byte, 64), 2)
	f.Add(make([]byte, 8192), 3)
	f.Add(make([]byte, 33), 1)
	f.Fuzz(func(t *testing.T, data []byte, width int) {
		hs, err := monitor.ParseHashTile(data, width)
		if err != nil {
			return
		}
		if len(hs) != width {
			t.Fatalf("%d hashes for width %d", len(hs), width)
		}
		for _, h := range hs {
			if len(h) != 32 {
				t.Fatal("hash not 32 bytes")
			}
		}
	})
}

func FuzzDecodeEntry(f *testing.F) {
	f.Add([]byte(`{"evidenceBundleDigest":"11","executionInstanceDigest":"ef","scenarioFingerprint":"cd","schemaVersion":"mcpres.transparency-entry/v1","subject":{"name":"acme/server","sha256":"ab"}}`))
	f.Add([]byte(`{"evidenceBundleDigest":"11","executionInstanceDigest":"ef","scenarioFingerprint":"cd","schemaVersion":"mcpres.transparency-entry/v2","signers":[{"keyFingerprint":"06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9","signerIdentity":"release@acme","signingTime":"2026-08-27T18:00:00.000Z"}],"subject":{"name":"acme/server","sha256":"ab"}}`))
	f.Add([]byte(`{"schemaVersion":"something else"}`))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := monitor.DecodeEntry(data)
		if err != nil {
			return
		}
		// One entry, one encoding.
		b, err := e.Marshal()
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("decoded entry re-encodes to %q", b)
		}
	})
}
