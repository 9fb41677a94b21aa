//go:build unix

package witnesshttp_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
)

// New refuses no log to witness, a state directory that is missing or not
// a directory, and two keys for one origin; the control opens.
func TestNewRefuses(t *testing.T) {
	_, lv := logKey(t, 0x91, "example.org/refuse-log")
	_, lv2 := logKey(t, 0x92, "example.org/refuse-log")
	w, _ := witnessKey(t, 0x93, "example.org/refuse-w")
	now := func() time.Time { return testNow }
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for name, c := range map[string]struct {
		logs []*signednote.Verifier
		dir  string
		want string
	}{
		"no log":           {nil, dir, "no log to witness"},
		"missing state":    {[]*signednote.Verifier{lv}, filepath.Join(dir, "none"), "state directory"},
		"state a file":     {[]*signednote.Verifier{lv}, file, "is not a directory"},
		"two keys, origin": {[]*signednote.Verifier{lv, lv2}, dir, `two keys for log "example.org/refuse-log"`},
	} {
		if s, err := witnesshttp.New(w, c.logs, c.dir, now, nil); err == nil || s != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv}, dir, now, nil)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	s.Close()
}

// failingKey is an Ed25519 crypto.Signer whose signatures fail while
// down.
type failingKey struct {
	ed25519.PrivateKey
	mu   sync.Mutex
	down bool
}

func (k *failingKey) Sign(r io.Reader, msg []byte, o crypto.SignerOpts) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		return nil, errors.New("the token is gone")
	}
	return k.PrivateKey.Sign(r, msg, o)
}

// A request the server cannot decide is refused without a cosignature
// and the state left as it was: the witness key cannot sign (503), the
// state file holds another log's state (500), the state file cannot be
// locked (500); an unknown origin is 404 naming it, cut to 128 bytes.
// The control cosigns once the key is back.
func TestAddRefuses(t *testing.T) {
	ls, lv := logKey(t, 0x94, "example.org/refuse-log")
	_, ov := logKey(t, 0x95, "example.org/refuse-other")
	key := &failingKey{PrivateKey: ed25519.NewKeyFromSeed(make([]byte, 32)), down: true}
	w, err := signednote.NewWitnessSigner("example.org/refuse-w", key)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv}, state, func() time.Time { return testNow }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := serve(t, s)
	cp, err := withSigner(t, []byte("example.org/refuse-log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"), ls)
	if err != nil {
		t.Fatal(err)
	}
	req := (&witness.AddRequest{OldSize: 0, Checkpoint: cp}).Marshal()
	path := witnesshttp.StatePath(state, lv.Name())

	if r := do(t, url, http.MethodPost, req); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "witness key is unavailable") {
		t.Errorf("a key that cannot sign: %+v", r)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a state was written for a refused request: %v", err)
	}

	writeState(t, path, witness.LogState{Origin: ov.Name(), Size: 0})
	before, _ := os.ReadFile(path)
	key.mu.Lock()
	key.down = false
	key.mu.Unlock()
	if r := do(t, url, http.MethodPost, req); r.status != http.StatusInternalServerError || !strings.Contains(r.body, "could not be read") {
		t.Errorf("another log's state: %+v", r)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("another log's state was overwritten")
	}
	os.Remove(path)

	long := strings.Repeat("x", 300)
	if r := do(t, url, http.MethodPost, (&witness.AddRequest{Checkpoint: []byte(long + "\n0\nAAAA\n\n— " + long + " AAAAAAE=\n")}).Marshal()); r.status/100 != 4 || strings.Contains(r.body, long) {
		t.Errorf("an unknown origin of 300 bytes: %d %d bytes", r.status, len(r.body))
	}

	// The state's lock file cannot be created: a directory in its place.
	lockDir := path + ".lock"
	if err := os.Mkdir(lockDir, 0o755); err == nil {
		if r := do(t, url, http.MethodPost, req); r.status != http.StatusInternalServerError || !strings.Contains(r.body, "could not be locked") {
			t.Errorf("an unlockable state: %+v", r)
		}
		os.Remove(lockDir)
	}

	if r := do(t, url, http.MethodPost, req); r.status != 200 || !strings.HasPrefix(r.body, "— example.org/refuse-w ") {
		t.Errorf("control: %+v", r)
	}
	if r := do(t, url, http.MethodGet, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET: %+v", r)
	}
}

// Serve ends with the listener's error when it cannot serve, and returns
// nil after its context ends (the control).
func TestServeEnds(t *testing.T) {
	_, lv := logKey(t, 0x96, "example.org/refuse-log")
	w, _ := witnessKey(t, 0x97, "example.org/refuse-w")
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv}, t.TempDir(), func() time.Time { return testNow }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := s.Serve(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "serving") {
		t.Errorf("a closed listener: %v", err)
	}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(c, ln) }()
	if r := do(t, "http://"+ln.Addr().String()+"/add-checkpoint", http.MethodGet, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET while serving: %+v", r)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("control, after the context: %v", err)
	}
}

// A DirLog reads the checkpoint and tiles of a directory, falling back to
// the full tile when the partial one is gone, and refuses what is not a
// regular file; a LogClient refuses a server error and an answer over its
// limit, and reports a missing resource as fs.ErrNotExist.
func TestLogReadersRefuse(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tile", "0"), 0o755)
	os.WriteFile(filepath.Join(dir, "tile", "0", "000"), make([]byte, 64), 0o644)
	d := witnesshttp.DirLog(dir)
	c := context.Background()
	if b, err := d.ReadTile(c, 0, 0, 1); err != nil || len(b) != 64 {
		t.Errorf("a partial tile gone, the full one: %d bytes, %v", len(b), err)
	}
	if _, err := d.ReadCheckpoint(c); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no checkpoint: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "checkpoint"), 0o755)
	if _, err := d.ReadCheckpoint(c); err == nil {
		t.Error("a directory read as the checkpoint")
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/checkpoint":
			w.Write(make([]byte, signednote.MaxBytes+1))
		case "/tile/0/000":
			w.Write(make([]byte, 32))
		case "/tile/1/000":
			http.Error(w, "down", http.StatusBadGateway)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	lc, err := witnesshttp.NewLogClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.ReadCheckpoint(c); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a checkpoint over the limit: %v", err)
	}
	if _, err := lc.ReadTile(c, 1, 0, 0); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("a server error: %v", err)
	}
	if _, err := lc.ReadTile(c, 2, 0, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing tile: %v", err)
	}
	if b, err := lc.ReadTile(c, 0, 0, 1); err != nil || len(b) != 32 {
		t.Errorf("control, the full tile for a partial one gone: %d bytes, %v", len(b), err)
	}
	srv.Close()
	if _, err := lc.ReadCheckpoint(c); err == nil {
		t.Error("a server that is gone answered")
	}
}
