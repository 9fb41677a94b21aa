package witnesshttp_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness/witnesshttp"
)

// TestLogClient: a witness reads a served log within limits: a checkpoint
// over signednote.MaxBytes or a tile over a full tile is an error, a 404
// is fs.ErrNotExist (a partial tile falls back to the full one), another
// status an error; a URL with credentials, a query or a fragment is not a
// log URL. Control: what fits is read as served.
func TestLogClient(t *testing.T) {
	cp := strings.Repeat("c", signednote.MaxBytes)
	full := strings.Repeat("t", 256*32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/log/checkpoint":
			w.Write([]byte(cp))
		case "/log/tile/0/000":
			w.Write([]byte(full))
		case "/log/tile/0/001":
			w.Write([]byte(full + "x"))
		case "/log/tile/0/002":
			http.Error(w, "down", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := witnesshttp.NewLogClient(srv.URL + "/log")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, err := c.ReadCheckpoint(ctx); err != nil || string(got) != cp {
		t.Fatalf("a checkpoint of MaxBytes: %d bytes, %v", len(got), err)
	}
	if got, err := c.ReadTile(ctx, 0, 0, 5); err != nil || string(got) != full {
		t.Fatalf("a partial tile served as the full one: %d bytes, %v", len(got), err)
	}
	if _, err := c.ReadTile(ctx, 0, 1, 0); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a tile over a full tile: %v", err)
	}
	if _, err := c.ReadTile(ctx, 0, 2, 0); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a 503: %v", err)
	}
	if _, err := c.ReadTile(ctx, 1, 0, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a 404: %v", err)
	}
	cp += "x"
	if _, err := c.ReadCheckpoint(ctx); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a checkpoint over MaxBytes: %v", err)
	}

	for _, u := range []string{"https://user:pw@example.org/log/", "https://example.org/log?x=1", "https://example.org/log#f", "https:///log", "ftp://example.org/log"} {
		if _, err := witnesshttp.NewLogClient(u); err == nil {
			t.Errorf("%s is taken as a log URL", u)
		}
	}
}

// TestOpenLog: a URL is read over HTTP, a directory as files; anything
// else is refused.
func TestOpenLog(t *testing.T) {
	dir := t.TempDir()
	if r, err := witnesshttp.OpenLog(dir); err != nil || r != witnesshttp.DirLog(dir) {
		t.Errorf("a directory: %v, %v", r, err)
	}
	if r, err := witnesshttp.OpenLog("https://example.org/log"); err != nil {
		t.Errorf("a URL: %v", err)
	} else if _, ok := r.(*witnesshttp.LogClient); !ok {
		t.Errorf("a URL: %T", r)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, arg := range []string{file, filepath.Join(dir, "missing"), "https://user@example.org/"} {
		if _, err := witnesshttp.OpenLog(arg); err == nil {
			t.Errorf("%s is taken as a log", arg)
		}
	}
}
