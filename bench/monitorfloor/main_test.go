package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/tlog/posix/posixtest"
)

const origin = "bench.example/monitorfloor-test"

// newLog writes a log of n entries (two partial bundles' worth past the
// full ones) and its verifier key file.
func newLog(t *testing.T, n int) (dir, vkey string) {
	t.Helper()
	vk, s := offlinetest.LogKey(origin, "log")
	dir = t.TempDir()
	var es [][]byte
	for i := range n {
		es = append(es, fmt.Appendf(nil, "entry %d", i))
	}
	posixtest.BulkAppend(t, context.Background(), dir, s, es)
	vkey = filepath.Join(t.TempDir(), "log.vkey")
	if err := os.WriteFile(vkey, []byte(vk+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, vkey
}

func TestVerifiesAnHonestLog(t *testing.T) {
	dir, vkey := newLog(t, 600)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for _, src := range []string{dir, srv.URL} {
		n, err := run(src, vkey)
		if err != nil || n != 600 {
			t.Fatalf("%s: %d entries, %v; want 600", src, n, err)
		}
	}
}

// TestRefuses: an entry changed in place, a bundle cut short and a
// checkpoint verified with another key each fail, for its own reason.
func TestRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		tamper     func(t *testing.T, dir, vkey string) string
	}{
		{"entry changed", "the entries hash to", func(t *testing.T, dir, vkey string) string {
			p := filepath.Join(dir, "tile", "entries", "001")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-1] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return vkey
		}},
		{"bundle cut short", "truncated", func(t *testing.T, dir, vkey string) string {
			p := filepath.Join(dir, "tile", "entries", "000")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b[:len(b)-3], 0o644); err != nil {
				t.Fatal(err)
			}
			return vkey
		}},
		{"another key", "checkpoint", func(t *testing.T, dir, vkey string) string {
			other, _ := offlinetest.LogKey(origin, "another")
			p := filepath.Join(t.TempDir(), "other.vkey")
			if err := os.WriteFile(p, []byte(other+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, vkey := newLog(t, 600)
			vkey = tc.tamper(t, dir, vkey)
			n, err := run(dir, vkey)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%d entries, error %v; want one saying %q", n, err, tc.want)
			}
		})
	}
}
