package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAlertKinds(t *testing.T) {
	out := []byte(`{"kind":"tiles","message":"entries 0 to 9 do not verify"}` + "\n" + `not json` + "\n" +
		`{"kind":"log-unreadable","message":"` + strings.Repeat("x", 200) + `"}` + "\n")
	got := alertKinds(out)
	want := `tiles: "entries 0 to 9 do not verify"; (not an alert); log-unreadable: "` + strings.Repeat("x", 160) + `…"`
	if got != want {
		t.Fatalf("alertKinds = %s\nwant %s", got, want)
	}
}

func TestMonitorState(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := monitorState(dir); err == nil {
		t.Fatal("no state file: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "log+00000000.json"), []byte(`{"next": 512, "entries": 700, "tree": {"size": 600}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	next, entries, err := monitorState(dir)
	if err != nil || next != 512 || entries != 700 {
		t.Fatalf("monitorState = %d, %d, %v", next, entries, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other+00000000.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := monitorState(dir); err == nil {
		t.Fatal("two state files: no error")
	}
}
