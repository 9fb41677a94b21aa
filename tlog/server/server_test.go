package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/client"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // Tessera's messages
	os.Exit(m.Run())
}

// testOnlyLogSeed is a fixed seed for a test-only log key.
var testOnlyLogSeed = bytes.Repeat([]byte{0x31}, 32)

const testOrigin = "example.org/mcpres-server-test"

type env struct {
	t      *testing.T
	dir    string
	log    *tlog.Log
	signer *signednote.LogSigner
	app    *tlog.Appender
	srv    *httptest.Server
	vkey   string
}

// admitOK admits bodies "ok:DATA" as entry DATA and refuses the others.
func admitOK(body []byte) ([]byte, *server.Rejection) {
	if e, ok := bytes.CutPrefix(body, []byte("ok:")); ok && len(e) > 0 {
		return e, nil
	}
	return nil, &server.Rejection{Status: http.StatusUnprocessableEntity, JSON: []byte(`{"valid":false}` + "\n")}
}

// admitShort is admitOK of the first 64 bytes: large bodies, short
// entries (an entry bundle holds entries of at most 64 KiB).
func admitShort(body []byte) ([]byte, *server.Rejection) {
	return admitOK(body[:min(len(body), 64)])
}

func reference(p *tlog.Proof) ([]byte, error) {
	return fmt.Appendf(nil, "%d %v\n", p.Index, p.Existing), nil
}

func newEnv(t *testing.T, mod func(*server.Config)) *env {
	t.Helper()
	s, _, vkey := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	e := &env{t: t, dir: filepath.Join(t.TempDir(), "log"), signer: s, vkey: vkey}
	store := posix.New(e.dir)
	e.log = tlog.Open(store, s.Verifier())
	ctx := context.Background()
	if _, err := e.log.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	var err error
	e.app, err = e.log.NewAppender(ctx, s, tlog.AppenderOptions{BatchSize: 64, BatchMaxAge: 10 * time.Millisecond, GCInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Log: e.log, Storage: store, Appender: e.app, Admit: admitOK, Reference: reference}
	if mod != nil {
		mod(&cfg)
	}
	e.srv = httptest.NewServer(server.New(cfg))
	t.Cleanup(func() {
		e.srv.Close()
		e.app.Close(ctx)
	})
	return e
}

func (e *env) do(method, path, token string, body []byte) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

func (e *env) size() uint64 {
	e.t.Helper()
	cp, err := e.log.Checkpoint(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return cp.Size
}

// TestAdd: an admitted body is appended and answered once published; the
// same body again is answered with its entry; a refused body is answered
// with the rejection and nothing is logged; wrong methods and big bodies
// are refused.
func TestAdd(t *testing.T) {
	e := newEnv(t, nil)
	for i, tt := range []struct {
		body   string
		status int
		answer string
	}{
		{"ok:first", 200, "0 false\n"},
		{"ok:second", 200, "1 false\n"},
		{"ok:first", 200, "0 true\n"},
		{"bad", 422, `{"valid":false}` + "\n"},
		{"ok:", 422, `{"valid":false}` + "\n"},
	} {
		resp, data := e.do("POST", "/add", "", []byte(tt.body))
		if resp.StatusCode != tt.status || string(data) != tt.answer {
			t.Errorf("%d: %q: %d %q, want %d %q", i, tt.body, resp.StatusCode, data, tt.status, tt.answer)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%d: Content-Type %q", i, ct)
		}
	}
	if n := e.size(); n != 2 {
		t.Fatalf("log size %d, want 2: a refused or repeated body was logged", n)
	}
	if resp, _ := e.do("GET", "/add", "", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /add: %d", resp.StatusCode)
	}
	big := append([]byte("ok:"), bytes.Repeat([]byte("x"), server.DefaultMaxBody)...)
	if resp, data := e.do("POST", "/add", "", big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 16 MiB: %d %q", resp.StatusCode, data)
	}
	// Without a Content-Length (a chunked body) the limit holds as the
	// body is read: refused once it passes 16 MiB.
	chunked := func(body []byte) (*http.Response, []byte) {
		req, err := http.NewRequest("POST", e.srv.URL+"/add", struct{ io.Reader }{bytes.NewReader(body)})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, data
	}
	if resp, data := chunked(big); resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(data), fmt.Sprintf("a submission is at most %d bytes", server.DefaultMaxBody)) {
		t.Errorf("a chunked body over 16 MiB: %d %q", resp.StatusCode, data)
	}
	// Control: the largest body is read (and here refused by Admit, not
	// by size), with a Content-Length or without.
	copy(big, "no:")
	if resp, _ := e.do("POST", "/add", "", big[:server.DefaultMaxBody]); resp.StatusCode != 422 {
		t.Errorf("a body of exactly 16 MiB: %d, want Admit's 422", resp.StatusCode)
	}
	if resp, _ := chunked(big[:server.DefaultMaxBody]); resp.StatusCode != 422 {
		t.Errorf("a chunked body of exactly 16 MiB: %d, want Admit's 422", resp.StatusCode)
	}
}

// TestToken: with a token, submissions without it or with another are
// refused (401) and logged nowhere; reads stay public.
func TestToken(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.Token = "s3cret-token" })
	for _, tok := range []string{"", "s3cret-tokeN", "s3cret-token-and-more"} {
		resp, _ := e.do("POST", "/add", tok, []byte("ok:x"))
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("token %q: %d", tok, resp.StatusCode)
		}
	}
	if e.size() != 0 {
		t.Fatal("an unauthorised submission was logged")
	}
	if resp, _ := e.do("POST", "/add", "s3cret-token", []byte("ok:x")); resp.StatusCode != 200 {
		t.Errorf("with the token: %d", resp.StatusCode)
	}
	if resp, _ := e.do("GET", "/checkpoint", "", nil); resp.StatusCode != 200 {
		t.Errorf("reads need no token: %d", resp.StatusCode)
	}
}

// TestConcurrencyLimit: beyond MaxConcurrent submissions in flight the
// answer is 429 with Retry-After.
func TestConcurrencyLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	e := newEnv(t, func(c *server.Config) {
		c.MaxConcurrent = 1
		c.Admit = func(b []byte) ([]byte, *server.Rejection) {
			if string(b) == "ok:slow" {
				close(entered)
				<-release
			}
			return admitOK(b)
		}
	})
	var wg sync.WaitGroup
	wg.Go(func() {
		if resp, _ := e.do("POST", "/add", "", []byte("ok:slow")); resp.StatusCode != 200 {
			t.Errorf("the slow submission: %d", resp.StatusCode)
		}
	})
	<-entered
	resp, _ := e.do("POST", "/add", "", []byte("ok:fast"))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("beyond the limit: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(release)
	wg.Wait()
	// Control: with the slot free, the same submission is taken.
	if resp, _ := e.do("POST", "/add", "", []byte("ok:fast")); resp.StatusCode != 200 {
		t.Errorf("after the slow one: %d", resp.StatusCode)
	}
}

// TestReadAPI: content types and caching, canonical paths only, and
// Tessera's own HTTP client builds a verifying proof from the served
// tiles across a full, garbage-collected first bundle.
func TestReadAPI(t *testing.T) {
	e := newEnv(t, nil)
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Go(func() {
			if resp, _ := e.do("POST", "/add", "", fmt.Appendf(nil, "ok:entry %d", i)); resp.StatusCode != 200 {
				t.Errorf("add %d: %d", i, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	time.Sleep(50 * time.Millisecond) // a few collector runs
	if _, err := os.Stat(filepath.Join(e.dir, "tile/entries/000.p")); err == nil {
		t.Fatal("the partial versions of the full first bundle are still there")
	}
	for _, tt := range []struct {
		path, status, ctype, cache string
	}{
		{"/checkpoint", "200", "text/plain; charset=utf-8", "no-store"},
		{"/tile/0/000", "200", "application/octet-stream", "public, max-age=31536000, immutable"},
		{"/tile/entries/000", "200", "application/octet-stream", "public, max-age=31536000, immutable"},
		{"/tile/0/001.p/44", "200", "application/octet-stream", "public, max-age=3600"},
		{"/tile/entries/001.p/44", "200", "application/octet-stream", "public, max-age=3600"},
		// Garbage collected, served from the full tile's prefix.
		{"/tile/0/000.p/7", "200", "application/octet-stream", "public, max-age=3600"},
		{"/tile/entries/000.p/7", "200", "application/octet-stream", "public, max-age=3600"},
		{"/tile/1/000.p/1", "200", "application/octet-stream", "public, max-age=3600"},
		{"/healthz", "200", "text/plain; charset=utf-8", "no-store"},
		// Not there, or not canonical.
		{"/tile/0/002", "404", "", ""},
		{"/tile/0/x000/000", "404", "", ""},
		{"/tile/0/0", "404", "", ""},
		{"/tile/00/000", "404", "", ""},
		{"/tile/0/000.p/0", "404", "", ""},
		{"/tile/0/000.p/256", "404", "", ""},
		{"/tile/entries/000.p/45/", "404", "", ""},
		{"/tile/64/000", "404", "", ""},
		{"/tile/", "404", "", ""},
		{"/.state/treeState", "404", "", ""},
		{"/tile/../.state/treeState", "404", "", ""},
	} {
		resp, _ := e.do("GET", tt.path, "", nil)
		if fmt.Sprint(resp.StatusCode) != tt.status {
			t.Errorf("%s: %d, want %s", tt.path, resp.StatusCode, tt.status)
			continue
		}
		if tt.ctype != "" && (resp.Header.Get("Content-Type") != tt.ctype || resp.Header.Get("Cache-Control") != tt.cache) {
			t.Errorf("%s: Content-Type %q Cache-Control %q", tt.path, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
		}
	}
	// The partial tile served from the full one is the partial tile.
	_, full := e.do("GET", "/tile/entries/000", "", nil)
	_, part := e.do("GET", "/tile/entries/000.p/7", "", nil)
	if len(part) == 0 || !bytes.HasPrefix(full, part) {
		t.Fatal("partial bundle is not the full bundle's prefix")
	}

	u, _ := url.Parse(e.srv.URL + "/")
	f, err := client.NewHTTPFetcher(u, e.srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := e.signer.Verifier()
	cp, _, _, err := client.FetchCheckpoint(ctx, f.ReadCheckpoint, v, testOrigin)
	if err != nil || cp.Size != 300 {
		t.Fatalf("checkpoint: %+v, %v", cp, err)
	}
	pb, err := client.NewProofBuilder(ctx, cp.Size, f.ReadTile)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []uint64{0, 7, 255, 256, 299} {
		b, err := client.GetEntryBundle(ctx, f.ReadEntryBundle, i/256, cp.Size)
		if err != nil {
			t.Fatal(err)
		}
		leaf := rfc6962.DefaultHasher.HashLeaf(b.Entries[i%256])
		hs, err := pb.InclusionProof(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, i, cp.Size, leaf, hs, cp.Hash); err != nil {
			t.Errorf("entry %d: %v", i, err)
		}
	}
}

// FuzzRequest: no request path or body makes the handler panic, and a
// tile is only ever served at its canonical path.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{"/checkpoint", "/tile/0/000", "/tile/entries/000.p/3", "/tile/0/x001/x234/067.p/8", "/tile/1/000.p/1", "/add", "/healthz", "/tile/entries/x/000"} {
		f.Add(s, []byte("ok:x"))
	}
	skey, _, _ := signednote.GenerateKey(bytes.NewReader(testOnlyLogSeed), signednote.TypeEd25519, testOrigin)
	s, _ := signednote.ParseLogSigner(skey)
	dir := filepath.Join(f.TempDir(), "log")
	store := posix.New(dir)
	lg := tlog.Open(store, s.Verifier())
	if _, err := lg.Init(context.Background(), s); err != nil {
		f.Fatal(err)
	}
	lg.Add(context.Background(), s, []byte("one entry"))
	h := server.New(server.Config{Log: lg, Storage: store, Admit: admitOK, Reference: reference})
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		u, err := url.ParseRequestURI(path)
		if err != nil || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
			return
		}
		for _, m := range []string{"GET", "POST"} {
			req := httptest.NewRequest(m, "http://x"+u.EscapedPath(), bytes.NewReader(body))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code == 200 && m == "GET" && strings.HasPrefix(u.Path, "/tile/") {
				switch u.Path {
				case "/tile/0/000.p/1", "/tile/entries/000.p/1":
				default:
					t.Fatalf("served %s", u.Path)
				}
			}
		}
	})
}

// TestSlowClient: a client that never finishes its request headers is
// disconnected after ReadHeaderTimeout.
func TestSlowClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := server.NewHTTPServer(http.NotFoundHandler())
	go srv.Serve(ln)
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("POST /add HTTP/1.1\r\nHost: x\r\n")) // and nothing more
	c.SetReadDeadline(time.Now().Add(server.ReadHeaderTimeout + 10*time.Second))
	start := time.Now()
	_, err = io.ReadAll(c)
	if took := time.Since(start); err != nil || took > server.ReadHeaderTimeout+5*time.Second {
		t.Fatalf("the connection stayed open %v (%v)", took, err)
	}
}

// TestMemoryBudget: bodies hold Cost of what they have read until Admit
// returns; a large body that does not fit in the three quarters of the
// budget large bodies may use is answered 503 with Retry-After at once,
// although the whole budget would hold it, while a small one still fits
// in the quarter kept for small bodies; once memory is released, the
// large one is taken.
func TestMemoryBudget(t *testing.T) {
	release := make(chan struct{})
	var entered sync.WaitGroup
	entered.Add(3)
	e := newEnv(t, func(c *server.Config) {
		c.MaxBody = 1 << 20
		c.Cost = func(n int64) int64 { return 4 * n }
		c.MaxMemory = 8 << 20 // large bodies may use 6 MiB of it
		c.Admit = func(b []byte) ([]byte, *server.Rejection) {
			if bytes.HasPrefix(b, []byte("ok:big-held")) {
				entered.Done()
				<-release
			}
			return admitShort(b)
		}
	})
	big := func(name string) []byte { // 500 KB: 1.95 MiB of the budget
		return append([]byte("ok:"+name), bytes.Repeat([]byte("x"), 500_000)...)
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if resp, _ := e.do("POST", "/add", "", big(fmt.Sprintf("big-held-%d", i))); resp.StatusCode != 200 {
				t.Errorf("held body %d: %d", i, resp.StatusCode)
			}
		})
	}
	entered.Wait() // 5.7 MiB held: a fourth would need 7.6 of the 8
	resp, data := e.do("POST", "/add", "", big("big-fourth"))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !bytes.Contains(data, []byte("memory")) {
		t.Errorf("a fourth large body: %d %q, Retry-After %q", resp.StatusCode, data, resp.Header.Get("Retry-After"))
	}
	if resp, data := e.do("POST", "/add", "", append([]byte("ok:small"), bytes.Repeat([]byte("s"), 60_000)...)); resp.StatusCode != 200 {
		t.Errorf("a small body meanwhile: %d %q", resp.StatusCode, data)
	}
	close(release)
	wg.Wait()
	// Control: with the memory released, the same large body is taken.
	if resp, data := e.do("POST", "/add", "", big("big-fourth")); resp.StatusCode != 200 {
		t.Errorf("the fourth large body afterwards: %d %q", resp.StatusCode, data)
	}
}

// TestMinMemory: a budget too small for one body of MaxBody is raised to
// what it needs, so the largest body is still taken.
func TestMinMemory(t *testing.T) {
	cost := func(n int64) int64 { return 3 * n }
	if got := server.MinMemory(1<<20, cost); got != 4<<20 {
		t.Errorf("MinMemory = %d", got)
	}
	e := newEnv(t, func(c *server.Config) {
		c.MaxBody, c.Cost, c.MaxMemory, c.Admit = 1<<20, cost, 1<<20, admitShort
	})
	body := append([]byte("ok:"), bytes.Repeat([]byte("y"), 1<<20-3)...)
	if resp, data := e.do("POST", "/add", "", body); resp.StatusCode != 200 {
		t.Errorf("a body of MaxBody: %d %q", resp.StatusCode, data)
	}
}

// slowBody opens a connection to addr and sends a submission's headers
// and the first bytes of its body, and no more; closing it ends it.
func slowBody(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "POST /add HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nok:slow"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSlowBodies: clients that send their bodies slowly hold no slot and
// next to no memory: with more of them than MaxConcurrent, and a budget
// that fits one large body, honest submissions, a large one included,
// are answered 200 meanwhile.
func TestSlowBodies(t *testing.T) {
	e := newEnv(t, func(c *server.Config) {
		c.MaxConcurrent = 2
		c.MaxBody = 1 << 20
		c.Cost = func(n int64) int64 { return 4 * n }
		c.MaxMemory = 6 << 20
		c.Admit = admitShort
	})
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	var slow []net.Conn
	for range 40 {
		slow = append(slow, slowBody(t, addr))
	}
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	time.Sleep(100 * time.Millisecond) // the server reads what they sent
	for i := range 5 {
		if resp, data := e.do("POST", "/add", "", fmt.Appendf(nil, "ok:honest %d", i)); resp.StatusCode != 200 {
			t.Errorf("honest submission %d: %d %q", i, resp.StatusCode, data)
		}
	}
	large := append([]byte("ok:large"), bytes.Repeat([]byte("z"), 900<<10)...)
	if resp, data := e.do("POST", "/add", "", large); resp.StatusCode != 200 {
		t.Errorf("a large honest submission: %d %q", resp.StatusCode, data)
	}
}

// TestRefresh: Config.Refresh is asked for the proof of an entry already
// in the log, never of a new one, and its proof is answered; when it
// fails, the first proof is answered and the failure logged.
func TestRefresh(t *testing.T) {
	var mu sync.Mutex // the handler's goroutines and the test's
	var calls []uint64
	fail := false
	var logged []string
	e := newEnv(t, func(c *server.Config) {
		c.Refresh = func(ctx context.Context, p *tlog.Proof) (*tlog.Proof, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, p.Index)
			if fail {
				return nil, fmt.Errorf("the witnesses are still down")
			}
			np := *p
			np.Index += 100 // marks the answer as Refresh's
			return &np, nil
		}
		c.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprintf(format, args...))
		}
	})
	for i, tt := range []struct {
		body, answer string
		calls        int
	}{
		{"ok:first", "0 false\n", 0},
		{"ok:first", "100 true\n", 1},
		{"ok:second", "1 false\n", 1},
	} {
		resp, data := e.do("POST", "/add", "", []byte(tt.body))
		mu.Lock()
		n := len(calls)
		mu.Unlock()
		if resp.StatusCode != 200 || string(data) != tt.answer || n != tt.calls {
			t.Errorf("%d: %q: %d %q, %d calls; want %q, %d", i, tt.body, resp.StatusCode, data, n, tt.answer, tt.calls)
		}
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	_, data := e.do("POST", "/add", "", []byte("ok:second"))
	mu.Lock()
	defer mu.Unlock()
	if string(data) != "1 true\n" || len(logged) != 1 || !strings.Contains(logged[0], "the witnesses are still down") {
		t.Errorf("a failed refresh: %q, logged %q", data, logged)
	}
}
