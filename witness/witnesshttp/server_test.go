package witnesshttp_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // Tessera's logging, in tests only
	os.Exit(m.Run())
}

var testNow = time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// keys generates a test-only key pair of type typ from 32 bytes of seed.
func keys(t testing.TB, typ byte, seed byte, name string) (string, string) {
	t.Helper()
	skey, vkey, err := signednote.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{seed}, 32)), typ, name)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

// logKey is a test-only log key (see keys) as its signer and verifier.
func logKey(t testing.TB, seed byte, origin string) (*signednote.LogSigner, *signednote.Verifier) {
	t.Helper()
	skey, _ := keys(t, signednote.TypeEd25519, seed, origin)
	ls, err := signednote.ParseLogSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return ls, ls.Verifier()
}

// witnessKey is a test-only witness key (see keys) as its cosigner and
// verifier.
func witnessKey(t testing.TB, seed byte, name string) (*signednote.WitnessSigner, *signednote.Verifier) {
	t.Helper()
	skey, _ := keys(t, signednote.TypeCosignatureV1, seed, name)
	w, err := signednote.ParseWitnessSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return w, w.Verifier()
}

type post struct {
	status int
	ctype  string
	body   string
}

func do(t testing.TB, url, method string, body []byte) post {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx(t), method, url, bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return post{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

// TestAnswers: every answer of the protocol, each for its own reason, and
// the state file follows the cosignatures.
func TestAnswers(t *testing.T) {
	ls, lv := logKey(t, 0x71, "example.org/witnesshttp-test-log")
	w, wv := witnessKey(t, 0x72, "example.org/witnesshttp-w")
	_, ov := logKey(t, 0x73, "example.org/other-log")
	imp, _ := logKey(t, 0x74, "example.org/witnesshttp-test-log")

	dir := filepath.Join(t.TempDir(), "log")
	lg := tlog.Open(posix.New(dir), lv)
	if _, err := lg.Init(ctx(t), ls); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	// A witness key is not a log key (the control is the server below).
	if _, err := witnesshttp.New(w, []*signednote.Verifier{lv, wv}, state, func() time.Time { return testNow }, nil); err == nil || !strings.Contains(err.Error(), "key type 0x04 (cosignature/v1 key), want 0x01") {
		t.Fatalf("a witness key as a log key: %v", err)
	}
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv, ov}, state, func() time.Time { return testNow }, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPServer("").Handler)
	defer srv.Close()
	u := srv.URL + "/add-checkpoint"
	cp := func() []byte {
		c, err := lg.Checkpoint(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		return c.Note
	}
	req := func(old uint64, proof [][]byte, cp []byte) []byte {
		return (&witness.AddRequest{OldSize: old, Proof: proof, Checkpoint: cp}).Marshal()
	}
	if r := do(t, u, http.MethodPost, req(0, nil, cp())); r.status != 200 || !strings.HasPrefix(r.body, "— example.org/witnesshttp-w ") {
		t.Fatalf("first use: %+v", r)
	}
	for _, e := range []string{"a", "b", "c"} {
		if _, err := lg.Add(ctx(t), ls, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	// The log grew from 0: a request from 0 with no proof.
	if r := do(t, u, http.MethodPost, req(0, nil, cp())); r.status != 200 {
		t.Fatalf("0→3: %+v", r)
	}
	for _, e := range []string{"d", "e"} {
		if _, err := lg.Add(ctx(t), ls, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	pb, _ := client.NewProofBuilder(ctx(t), 5, posix.New(dir).ReadTile)
	proof, _ := pb.ConsistencyProof(ctx(t), 3, 5)
	bad := [][]byte{bytes.Repeat([]byte{1}, 32), proof[1]}
	forged, _ := withSigner(t, cp(), imp)
	for _, tc := range []struct {
		name   string
		method string
		body   []byte
		status int
		ctype  string
		body0  string
	}{
		{"wrong old size", http.MethodPost, req(2, nil, cp()), 409, witnesshttp.ContentTypeSize, "3\n"},
		{"bad proof", http.MethodPost, req(3, bad, cp()), 422, "text/plain; charset=utf-8", ""},
		{"malformed", http.MethodPost, []byte("old 3\n"), 400, "text/plain; charset=utf-8", ""},
		{"old larger than checkpoint", http.MethodPost, req(6, nil, cp()), 400, "", ""},
		{"unknown log", http.MethodPost, req(0, nil, []byte("example.org/unknown\n1\nAAAA\n\n— x AAAA\n")), 404, "", ""},
		{"not signed by the log key", http.MethodPost, req(3, proof, forged), 403, "", ""},
		{"GET", http.MethodGet, nil, 405, "", ""},
		{"too large", http.MethodPost, bytes.Repeat([]byte("x"), witness.MaxAddRequestBytes+1), 413, "", ""},
		{"control", http.MethodPost, req(3, proof, cp()), 200, "text/plain; charset=utf-8", "— example.org/witnesshttp-w "},
		{"again, from the new size", http.MethodPost, req(5, nil, cp()), 200, "", ""},
		{"rollback to the old size", http.MethodPost, req(3, proof, cp()), 409, witnesshttp.ContentTypeSize, "5\n"},
	} {
		r := do(t, u, tc.method, tc.body)
		if r.status != tc.status || (tc.ctype != "" && r.ctype != tc.ctype) || !strings.HasPrefix(r.body, tc.body0) {
			t.Errorf("%s: %+v; want %d %s %q", tc.name, r, tc.status, tc.ctype, tc.body0)
		}
	}
	if r := do(t, srv.URL+"/other", http.MethodPost, req(5, nil, cp())); r.status != 404 {
		t.Errorf("other path: %+v", r)
	}
	data, err := os.ReadFile(witnesshttp.StatePath(state, lv.Name()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := witness.ParseState(data)
	if err != nil || st.Get(lv.Name()).Size != 5 {
		t.Fatalf("state: %s, %v", data, err)
	}
}

// TestOneUpdateAtATime: concurrent requests for one log from the same old
// size: exactly the ones that saw the recorded size are cosigned, and the
// state never goes backwards.
func TestOneUpdateAtATime(t *testing.T) {
	ls, lv := logKey(t, 0x75, "example.org/witnesshttp-race-log")
	w, _ := witnessKey(t, 0x76, "example.org/witnesshttp-race-w")
	dir := filepath.Join(t.TempDir(), "log")
	lg := tlog.Open(posix.New(dir), lv)
	if _, err := lg.Init(ctx(t), ls); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Add(ctx(t), ls, []byte("a")); err != nil {
		t.Fatal(err)
	}
	c1, _ := lg.Checkpoint(ctx(t))
	if _, err := lg.Add(ctx(t), ls, []byte("b")); err != nil {
		t.Fatal(err)
	}
	c2, _ := lg.Checkpoint(ctx(t))
	state := t.TempDir()
	s, _ := witnesshttp.New(w, []*signednote.Verifier{lv}, state, func() time.Time { return testNow }, nil)
	srv := httptest.NewServer(s.HTTPServer("").Handler)
	defer srv.Close()
	// Requests from 0 for size 1 and size 2 race: whichever comes first
	// is cosigned, the other gets a 409 (the size moved), never both
	// recorded out of order.
	const n = 8
	var wg sync.WaitGroup
	results := make([]post, 2*n)
	for i := range 2 * n {
		cp := c1.Note
		if i%2 == 1 {
			cp = c2.Note
		}
		wg.Go(func() {
			results[i] = do(t, srv.URL+"/add-checkpoint", http.MethodPost, (&witness.AddRequest{Checkpoint: cp}).Marshal())
		})
	}
	wg.Wait()
	ok := 0
	for _, r := range results {
		switch r.status {
		case 200:
			ok++
		case 409:
		default:
			t.Errorf("unexpected answer %+v", r)
		}
	}
	if ok != 1 {
		t.Fatalf("%d requests from old 0 cosigned, want exactly 1", ok)
	}
}

// withSigner re-signs the checkpoint text with another key of the same name.
func withSigner(t testing.TB, cp []byte, s *signednote.LogSigner) ([]byte, error) {
	t.Helper()
	text, _, _ := bytes.Cut(cp, []byte("\n\n"))
	return note.Sign(&note.Note{Text: string(text) + "\n"}, s)
}

// FuzzServer: any body gets one of the protocol's answers, never a panic,
// and only a 200 changes the state. Seeds in testdata/fuzz/FuzzServer.
func FuzzServer(f *testing.F) {
	ls, lv := logKey(f, 0x77, "example.org/witnesshttp-fuzz-log")
	w, _ := witnessKey(f, 0x78, "example.org/witnesshttp-fuzz-w")
	empty := "example.org/witnesshttp-fuzz-log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n"
	cp, err := note.Sign(&note.Note{Text: empty}, ls)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte("old 0\n\n"), cp...))
	f.Add(append([]byte("old 1\n\n"), cp...))
	f.Add([]byte("old 0\n\nexample.org/witnesshttp-fuzz-log\n"))
	state := f.TempDir()
	s, err := witnesshttp.New(w, []*signednote.Verifier{lv}, state, func() time.Time { return testNow }, nil)
	if err != nil {
		f.Fatal(err)
	}
	h := s.HTTPServer("").Handler
	f.Fuzz(func(t *testing.T, body []byte) {
		os.Remove(witnesshttp.StatePath(state, lv.Name()))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/add-checkpoint", bytes.NewReader(body)))
		_, err := os.Stat(witnesshttp.StatePath(state, lv.Name()))
		switch rec.Code {
		case 200:
			if err != nil || !strings.HasPrefix(rec.Body.String(), "— example.org/witnesshttp-fuzz-w ") {
				t.Fatalf("200 without state or cosignature: %v %q", err, rec.Body.String())
			}
		case 400, 403, 404, 409, 413, 422:
			if err == nil {
				t.Fatalf("%d changed the state", rec.Code)
			}
		default:
			t.Fatalf("answer %d: %s", rec.Code, rec.Body.String())
		}
	})
}
