package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
)

// TestEntries: every entry is one the monitor decodes (offline.ParseEntry),
// each about its own subject, of both versions.
func TestEntries(t *testing.T) {
	subjects := map[string]bool{}
	versions := map[string]int{}
	for i := range uint64(5000) {
		data, err := entry(i)
		if err != nil {
			t.Fatal(err)
		}
		e, err := offline.ParseEntry(data)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if subjects[e.Subject.Name] {
			t.Fatalf("entry %d: subject %q twice", i, e.Subject.Name)
		}
		subjects[e.Subject.Name] = true
		versions[e.SchemaVersion]++
	}
	if versions[offline.SchemaVersionEntry] != 1250 || versions[offline.SchemaVersionEntrySigned] != 3750 {
		t.Fatalf("versions %v, want a quarter v1", versions)
	}
}

// TestRun: a log of 300 entries, its checkpoint signed by the key written.
func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	vkey := filepath.Join(t.TempDir(), "log.vkey")
	if err := run(dir, vkey, 300); err != nil {
		t.Fatal(err)
	}
	vk, err := os.ReadFile(vkey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signednote.ParseLogVerifier(strings.TrimSpace(string(vk)))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := offline.VerifyCheckpoint(cp, origin, v, offline.Trust{Quorum: "none"})
	if err != nil || c.Size != 300 {
		t.Fatalf("checkpoint %+v, %v; want size 300 signed by the key", c, err)
	}
	if err := run(dir, vkey, 300); err == nil {
		t.Fatal("a second run into the same directory succeeded")
	}
}
