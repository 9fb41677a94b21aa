package tufdist

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// testOnlyKey returns a fixed Ed25519 key derived from name: the seed is
// SHA-256("mcpres tufdist test-only seed: " + name). These keys are public
// knowledge and must never protect anything.
func testOnlyKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres tufdist test-only seed: " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

func testOnlyPub(name string) ed25519.PublicKey {
	return testOnlyKey(name).Public().(ed25519.PublicKey)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// t0 is the signing time of every test repository.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// testRepo is a repository in a temporary directory signed with the
// testOnly keys "root-1", "targets", "snapshot" and "timestamp".
type testRepo struct {
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	r := &testRepo{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	_, err := Init(InitConfig{
		Dir:           r.dir,
		RootKeys:      []ed25519.PublicKey{testOnlyPub("root-1")},
		RootThreshold: 1,
		RootSigners:   []crypto.Signer{testOnlyKey("root-1")},
		Targets:       testOnlyKey("targets"),
		Snapshot:      testOnlyKey("snapshot"),
		Timestamp:     testOnlyKey("timestamp"),
		Now:           t0,
		Expiry:        DefaultExpiry(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// add publishes a target, signed at t0.
func (r *testRepo) add(name, content string) {
	r.t.Helper()
	_, err := AddTarget(AddTargetConfig{
		Dir: r.dir, Name: name, Data: []byte(content),
		Targets:   testOnlyKey("targets"),
		Snapshot:  testOnlyKey("snapshot"),
		Timestamp: testOnlyKey("timestamp"),
		Now:       t0,
		Expiry:    DefaultExpiry(),
	})
	if err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) root() []byte { return r.read("1.root.json") }

func (r *testRepo) read(name string) []byte {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return data
}

// copyTo copies the repository to a new directory: a frozen state.
func (r *testRepo) copyTo() *testRepo {
	r.t.Helper()
	dst := filepath.Join(r.t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(r.dir)); err != nil {
		r.t.Fatal(err)
	}
	return &testRepo{t: r.t, dir: dst}
}

// repoServer serves a repository directory over HTTP on loopback; files
// can be overridden by path and the directory switched, to play an
// attacker or a mirror.
type repoServer struct {
	*httptest.Server
	mu        sync.Mutex
	dir       string
	overrides map[string][]byte
	requests  []string
}

func newRepoServer(t *testing.T, dir string) *repoServer {
	s := &repoServer{dir: dir, overrides: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *repoServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := strings.TrimPrefix(r.URL.Path, "/")
	s.requests = append(s.requests, name)
	if data, ok := s.overrides[name]; ok {
		w.Write(data)
		return
	}
	if !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(name)))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

func (s *repoServer) set(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dir = dir
}

func (s *repoServer) override(name string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overrides[name] = data
}

func (s *repoServer) takeRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

// wantVerificationError checks that err is a *VerificationError for role
// and check, and that it wraps the go-tuf error target (errors.Is).
func wantVerificationError(t *testing.T, err error, role string, check Check, target error) *VerificationError {
	t.Helper()
	var ve *VerificationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T), want a *VerificationError", err, err)
	}
	if ve.Role != role || ve.Check != check {
		t.Fatalf("error names role %q check %q, want role %q check %q: %v", ve.Role, ve.Check, role, check, err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Fatalf("error %v does not match %T", err, target)
	}
	if !strings.Contains(err.Error(), role) || !strings.Contains(err.Error(), string(check)) {
		t.Fatalf("message %q does not name role %q and check %q", err, role, check)
	}
	return ve
}

// resign re-signs metadata with the given keys (an attacker holding them,
// or the repository owner producing a crafted state).
func resign[T metadata.Roles](t *testing.T, m *metadata.Metadata[T], keys ...ed25519.PrivateKey) []byte {
	t.Helper()
	m.Signatures = nil
	for _, k := range keys {
		if err := sign(m, k); err != nil {
			t.Fatal(err)
		}
	}
	data, err := marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parse[T metadata.Roles](t *testing.T, m *metadata.Metadata[T], data []byte) *metadata.Metadata[T] {
	t.Helper()
	if _, err := m.FromBytes(data); err != nil {
		t.Fatal(err)
	}
	return m
}
