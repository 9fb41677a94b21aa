package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// witnessed is the bench's batch bundle (two signed DSSE envelopes).
const witnessed = "../../testdata/attestation/witnessed.json"

// copies writes n copies of src into a new directory.
func copies(t *testing.T, src string, n int) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bundle-%06d.json", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFloor: the floor checks every bundle of the directory and prints
// how many; a file that is not JSON, or whose envelopes are not the
// first file's, fails it.
func TestFloor(t *testing.T) {
	dir := copies(t, witnessed, 3)
	// Not a bundle: ignored (the floor reads *.json files only).
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub.json"), 0o755)
	var out bytes.Buffer
	if err := run([]string{dir}, &out); err != nil || out.String() != "3\n" {
		t.Fatalf("%q, %v", out.String(), err)
	}

	for name, c := range map[string]struct {
		edit func([]byte) []byte
		want string
	}{
		"not JSON":       {func(b []byte) []byte { return b[:len(b)-2] }, "bundle-000000.json: unexpected end of JSON input"},
		"another bundle": {func(b []byte) []byte { return []byte(`{"a":1}`) }, "signed envelopes, want 2"},
	} {
		dir := copies(t, witnessed, 2)
		data, _ := os.ReadFile(witnessed)
		os.WriteFile(filepath.Join(dir, "bundle-000000.json"), c.edit(data), 0o644)
		if err := run([]string{dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s first: %v, want %q", name, err, c.want)
		}
	}
	// A later file that is not JSON.
	dir = copies(t, witnessed, 2)
	os.WriteFile(filepath.Join(dir, "bundle-000001.json"), []byte("{"), 0o644)
	if err := run([]string{dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "bundle-000001.json: not JSON") {
		t.Errorf("a later file not JSON: %v", err)
	}
}

// TestFloorReads: files are read as the strict reader does: no final
// symbolic link, nothing but a regular file, at most 16 MiB; an empty
// directory or one that does not exist is an error.
func TestFloorReads(t *testing.T) {
	dir := copies(t, witnessed, 1)
	if err := os.Symlink(filepath.Join(dir, "bundle-000000.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "link.json") {
		t.Errorf("a symbolic link: %v", err)
	}

	dir = copies(t, witnessed, 1)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "fifo.json: not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}

	dir = copies(t, witnessed, 1)
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(maxInput + 1)
	f.Close()
	if err := run([]string{dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "big.json: larger than 16777216 bytes") {
		t.Errorf("a file over the limit: %v", err)
	}
	// Control: at the limit, read whole (and then refused as not JSON).
	if err := os.Truncate(big, maxInput); err != nil {
		t.Fatal(err)
	}
	if data, err := readFile(big); err != nil || len(data) != maxInput {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}

	if err := run([]string{t.TempDir()}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "holds no .json files") {
		t.Errorf("an empty directory: %v", err)
	}
	if err := run([]string{filepath.Join(t.TempDir(), "missing")}, &bytes.Buffer{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing directory: %v", err)
	}
}

// floorJSON is a floor.json of one Ed25519 check made with a test-only
// key made now (tampered: its signature no longer verifies).
func floorJSON(t *testing.T, tamper bool) string {
	t.Helper()
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	spki, _ := x509.MarshalPKIXPublicKey(pub)
	msg := []byte("signed bytes")
	sig := ed25519.Sign(key, msg)
	if tamper {
		sig[0] ^= 1
	}
	data, _ := json.Marshal([]map[string]any{{"what": "envelope", "alg": "ed25519", "publicKey": spki, "message": msg, "signature": sig}})
	p := filepath.Join(t.TempDir(), "floor.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFloorKeyless: each attested bundle with its Sigstore bundle beside
// it (which is not counted as a bundle); one without it fails, and so
// does a floor.json whose check does not verify.
func TestFloorKeyless(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.json", "a.json.sigstore.json", "b.json", "b.json.sigstore.json"} {
		os.WriteFile(filepath.Join(dir, name), []byte(`{"x":1}`), 0o644)
	}
	fj := floorJSON(t, false)
	var out bytes.Buffer
	if err := run([]string{"--keyless", fj, dir}, &out); err != nil || out.String() != "2\n" {
		t.Fatalf("%q, %v", out.String(), err)
	}
	if err := run([]string{"--keyless", floorJSON(t, true), dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "envelope: does not verify") {
		t.Errorf("a tampered floor.json: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "floor.json")
	os.WriteFile(bad, []byte("[]"), 0o644)
	if err := run([]string{"--keyless", bad, dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no prepared checks") {
		t.Errorf("no checks: %v", err)
	}
	if err := run([]string{"--keyless", filepath.Join(dir, "missing.json"), dir}, &bytes.Buffer{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no floor.json: %v", err)
	}
	os.Remove(filepath.Join(dir, "b.json.sigstore.json"))
	if err := run([]string{"--keyless", fj, dir}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "b.json.sigstore.json") {
		t.Errorf("no Sigstore bundle: %v", err)
	}
	if err := run([]string{"--keyless", fj, t.TempDir()}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "holds no .json files") {
		t.Errorf("an empty directory: %v", err)
	}
}

// TestFloorUsage: any other command line is a usage error (exit 2).
func TestFloorUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"a", "b"}, {"--keyless"}, {"--keyless", "f.json"}, {"--keyless", "f.json", "d", "e"}, {"-h"}, {"--other", "f", "d"}} {
		var out bytes.Buffer
		if err := run(args, &out); !errors.Is(err, errUsage) || out.Len() > 0 {
			t.Errorf("%q: %v", args, err)
		}
	}
}
