package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/bench/internal/progexit"
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

// TestServe: noadmit on a new log in t.TempDir() says where it listens
// (on 127.0.0.1, in log serve's words), logs each body's entry, answers
// with its index, publishes a checkpoint that covers both, and stops
// cleanly when its context ends.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"--dir", dir, "--entry-size", "100"}, pw)
		pw.Close()
		done <- err
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`^noadmit: serving log bench\.example/noadmit on (http://127\.0\.0\.1:\d+)\n$`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("ready line %q (%v)", line, <-done)
	}
	url := m[1]
	bodies := [][]byte{[]byte(`{"a":1}`), []byte(`{"a":2}`)}
	for i, body := range bodies {
		resp, err := http.Post(url+"/add", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcpres-Entry-Index") != string(rune('0'+i)) {
			t.Fatalf("body %d: %s, index %q", i, resp.Status, resp.Header.Get("Mcpres-Entry-Index"))
		}
	}
	get := func(p string) []byte {
		resp, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", p, resp.Status)
		}
		return data
	}
	if cp := get("/checkpoint"); !strings.HasPrefix(string(cp), "bench.example/noadmit\n2\n") {
		t.Fatalf("checkpoint %q", cp)
	}
	bundle := get("/tile/entries/000.p/2")
	for i, body := range bodies {
		if !bytes.Contains(bundle, entry(body, 100)) {
			t.Errorf("entry %d is not its body's hash", i)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("stopped: %v", err)
	}
	// The log is there: a second run on it is refused.
	if err := run(context.Background(), []string{"--dir", dir}, io.Discard); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("an existing directory: %v", err)
	}
}

// TestUsage: a command line out of bounds is refused before anything is
// written.
func TestUsage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	const bounds = "usage: noadmit --dir DIR --entry-size 64..MaxEntrySize"
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, bounds},
		{[]string{"--dir", dir, "--entry-size", "63"}, bounds},
		{[]string{"--dir", dir, "--entry-size", "100000000"}, bounds},
		{[]string{"--dir", dir, "extra"}, bounds},
		{[]string{"--dir", dir, "--entry-size", "x"}, `invalid value "x"`},
	} {
		err := run(context.Background(), c.args, io.Discard)
		var ue progexit.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written: %v", err)
	}
}
