package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
	"golang.org/x/mod/sumdb/note"
)

// logLines collects Config.Logf's lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// While the log's key cannot sign, a submission is answered 503 with
// Retry-After before its body is read, nothing is appended, and /healthz
// answers 503; once it can again, both answer 200 (the control).
func TestKeyUnavailable(t *testing.T) {
	errKey := errors.New("the token is unplugged")
	var mu sync.Mutex
	keyErr := errKey
	var logs logLines
	e := newEnv(t, func(c *server.Config) {
		c.KeyReady = func() error { mu.Lock(); defer mu.Unlock(); return keyErr }
		c.Logf = logs.logf
	})
	resp, data := e.do("POST", "/add", "", []byte("ok:entry"))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !bytes.Contains(data, []byte("signing key is unavailable")) {
		t.Errorf("a submission while the key cannot sign: %d %q", resp.StatusCode, data)
	}
	resp, data = e.do("GET", "/healthz", "", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(data, []byte("signing key is unavailable")) {
		t.Errorf("/healthz while the key cannot sign: %d %q", resp.StatusCode, data)
	}
	if !strings.Contains(logs.String(), "unplugged") {
		t.Errorf("the server logged %q, want the key's error", logs.String())
	}
	if e.size() != 0 {
		t.Fatal("an entry was appended while the key could not sign")
	}
	mu.Lock()
	keyErr = nil
	mu.Unlock()
	if resp, data := e.do("POST", "/add", "", []byte("ok:entry")); resp.StatusCode != 200 {
		t.Errorf("control, a submission once the key is back: %d %q", resp.StatusCode, data)
	}
	if resp, data := e.do("GET", "/healthz", "", nil); resp.StatusCode != 200 || string(data) != "ok\n" {
		t.Errorf("control, /healthz once the key is back: %d %q", resp.StatusCode, data)
	}
}

// /healthz answers 503 when the published checkpoint does not verify
// (here: replaced by one of another key).
func TestHealthzCheckpointRefused(t *testing.T) {
	var logs logLines
	e := newEnv(t, func(c *server.Config) { c.Logf = logs.logf })
	if resp, _ := e.do("GET", "/healthz", "", nil); resp.StatusCode != 200 {
		t.Fatalf("control: /healthz %d", resp.StatusCode)
	}
	other, _, _ := signednotetest.LogKey(t, bytes.Repeat([]byte{0x32}, 32), testOrigin)
	cp, err := e.log.Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	forged, err := note.Sign(&note.Note{Text: cp.Text}, other)
	if err != nil {
		t.Fatal(err)
	}
	e.app.Close(context.Background())
	if err := posix.New(e.dir).ReplaceCheckpoint(context.Background(), cp.Note, forged); err != nil {
		t.Fatal(err)
	}
	resp, data := e.do("GET", "/healthz", "", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(data, []byte("does not verify")) {
		t.Errorf("/healthz with a forged checkpoint: %d %q", resp.StatusCode, data)
	}
}

// A read-only server (no Appender) refuses submissions with 404 naming
// why, and still serves reads.
func TestReadOnlyRefusesSubmissions(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.Appender = nil })
	resp, data := e.do("POST", "/add", "", []byte("ok:entry"))
	if resp.StatusCode != http.StatusNotFound || !bytes.Contains(data, []byte("takes no submissions")) {
		t.Errorf("a submission to a read-only server: %d %q", resp.StatusCode, data)
	}
	if resp, _ := e.do("GET", "/checkpoint", "", nil); resp.StatusCode != 200 {
		t.Errorf("control, /checkpoint: %d", resp.StatusCode)
	}
}

// An entry appended whose answer cannot be encoded is a 500 (logged), not
// an answer that is not the reference; the control encodes it.
func TestReferenceFails(t *testing.T) {
	var logs logLines
	e := newEnv(t, func(c *server.Config) {
		c.Logf = logs.logf
		c.Reference = func(p *tlog.Proof) ([]byte, error) {
			if string(p.Entry) == "unencodable" {
				return nil, errors.New("no encoding")
			}
			return reference(p)
		}
	})
	resp, data := e.do("POST", "/add", "", []byte("ok:unencodable"))
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(logs.String(), "no encoding") {
		t.Errorf("an unencodable answer: %d %q, logged %q", resp.StatusCode, data, logs.String())
	}
	if resp, data := e.do("POST", "/add", "", []byte("ok:fine")); resp.StatusCode != 200 || string(data) != "1 false\n" {
		t.Errorf("control: %d %q", resp.StatusCode, data)
	}
}

// An entry that is not confirmed within AddTimeout is answered 503 ("retry":
// it may be in the log), logged.
func TestAddNotConfirmed(t *testing.T) {
	var logs logLines
	e := newEnv(t, func(c *server.Config) {
		c.Logf = logs.logf
		c.AddTimeout = time.Nanosecond
	})
	resp, data := e.do("POST", "/add", "", []byte("ok:entry"))
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(data, []byte("could not be confirmed in time")) || !strings.Contains(logs.String(), "add: ") {
		t.Errorf("an entry not confirmed in time: %d %q, logged %q", resp.StatusCode, data, logs.String())
	}
}

// faultyStorage fails its reads with err, or serves short tiles and
// bundles.
type faultyStorage struct {
	tlog.Storage
	err   error
	short bool
}

func (f faultyStorage) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.Storage.ReadCheckpoint(ctx)
}

func (f faultyStorage) ReadTile(ctx context.Context, l, n uint64, p uint8) ([]byte, error) {
	if f.short {
		return make([]byte, 32), nil
	}
	return f.Storage.ReadTile(ctx, l, n, p)
}

func (f faultyStorage) ReadEntryBundle(ctx context.Context, n uint64, p uint8) ([]byte, error) {
	if f.short {
		return []byte{0, 5, 'a'}, nil // one entry announced as 5 bytes, 1 there
	}
	return f.Storage.ReadEntryBundle(ctx, n, p)
}

// A storage that fails a read is a 500 (logged, the error not shown to
// the client); a tile or entry bundle shorter than the partial width asked
// for is refused, never served short.
func TestReadErrors(t *testing.T) {
	var logs logLines
	errDisk := errors.New("I/O error on /secret/path")
	e := newEnv(t, func(c *server.Config) {
		c.Storage = faultyStorage{Storage: c.Storage, err: errDisk}
		c.Logf = logs.logf
	})
	resp, data := e.do("GET", "/checkpoint", "", nil)
	if resp.StatusCode != http.StatusInternalServerError || bytes.Contains(data, []byte("secret")) || !strings.Contains(logs.String(), "reading checkpoint: I/O error") {
		t.Errorf("a failing checkpoint read: %d %q, logged %q", resp.StatusCode, data, logs.String())
	}

	e = newEnv(t, func(c *server.Config) { c.Storage = faultyStorage{Storage: c.Storage, short: true} })
	for _, p := range []string{"/tile/0/000.p/2", "/tile/entries/000.p/1", "/tile/entries/000.p/2"} {
		if resp, data := e.do("GET", p, "", nil); resp.StatusCode/100 == 2 {
			t.Errorf("%s from a short tile: %d %q", p, resp.StatusCode, data)
		}
	}
	if resp, data := e.do("GET", "/tile/0/000.p/1", "", nil); resp.StatusCode != 200 || len(data) != 32 {
		t.Errorf("control, a partial tile the tile holds: %d, %d bytes", resp.StatusCode, len(data))
	}
	if resp, _ := e.do("GET", "/tile/x", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/tile/x: %d", resp.StatusCode)
	}
}

// failingSigner is a note.Signer whose signatures fail while down is set.
type failingSigner struct {
	tlogSigner interface {
		Name() string
		KeyHash() uint32
		Sign([]byte) ([]byte, error)
	}
	mu   sync.Mutex
	down bool
}

func (f *failingSigner) Name() string    { return f.tlogSigner.Name() }
func (f *failingSigner) KeyHash() uint32 { return f.tlogSigner.KeyHash() }
func (f *failingSigner) Sign(msg []byte) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, errors.New("the agent is gone")
	}
	return f.tlogSigner.Sign(msg)
}

// KeyHealth.Ready is the outcome of the last signature while it is
// younger than ProbeInterval, else of a probe: a failed signature makes it
// refuse with the key's error at once, and so does a probe that fails;
// the control is a probe of a key that signs.
func TestKeyHealthReady(t *testing.T) {
	s, _, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	f := &failingSigner{tlogSigner: s}
	k := server.NewKeyHealth(f, testOrigin)
	// Never signed: the first Ready probes.
	if err := k.Ready(); err != nil {
		t.Fatalf("control, a key that signs: %v", err)
	}
	f.mu.Lock()
	f.down = true
	f.mu.Unlock()
	if _, err := k.Sign([]byte("checkpoint")); err == nil {
		t.Fatal("a failing signer signed")
	}
	if err := k.Ready(); err == nil || !strings.Contains(err.Error(), "the log key cannot sign: the agent is gone") {
		t.Errorf("Ready after a failed signature: %v", err)
	}
	// A probe that fails is refused.
	k2 := server.NewKeyHealth(&failingSigner{tlogSigner: s, down: true}, testOrigin)
	if err := k2.Ready(); err == nil || !strings.Contains(err.Error(), "the agent is gone") {
		t.Errorf("a probe that fails: %v", err)
	}
}

// Serve ends with the listener's error when it cannot serve (a closed
// listener), and shuts down cleanly when its context ends (the control).
func TestServeEnds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := server.Serve(context.Background(), ln, http.NotFoundHandler(), time.Second); err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve on a closed listener: %v", err)
	}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Serve(ctx, ln, http.NotFoundHandler(), time.Second) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("control, Serve after its context ended: %v", err)
	}
}
