package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestEntry: an entry is the body's SHA-256 in hex, then zeros, of the
// size asked; distinct bodies get distinct entries (the log would answer
// a second body with the first one's entry otherwise), equal ones equal.
func TestEntry(t *testing.T) {
	a, b := []byte(`{"a":1}`), []byte(`{"a":2}`)
	ea := entry(a, 437)
	if len(ea) != 437 {
		t.Fatalf("entry of %d bytes, want 437", len(ea))
	}
	sum := sha256.Sum256(a)
	if want := hex.EncodeToString(sum[:]); string(ea[:64]) != want || !bytes.Equal(ea[64:], make([]byte, 437-64)) {
		t.Fatalf("entry %q, want %s then zeros", ea, want)
	}
	if bytes.Equal(ea, entry(b, 437)) {
		t.Fatal("two bodies got one entry")
	}
	if !bytes.Equal(ea, entry(bytes.Clone(a), 437)) {
		t.Fatal("one body got two entries")
	}
}
