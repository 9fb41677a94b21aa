package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
	"github.com/mcpres/mcpres/tlog/client"
)

const origin = "example.org/client-test-log"

func entry(i int) offline.Entry {
	d := func(s string) string { return canonjson.BytesDigest(fmt.Appendf(nil, "%s %d", s, i)) }
	return offline.Entry{
		SchemaVersion:           offline.SchemaVersionEntry,
		Subject:                 offline.EntrySubject{Name: "example-server", Sha256: d("subject")},
		EvidenceBundleDigest:    d("bundle"),
		ScenarioFingerprint:     d("scenario"),
		ExecutionInstanceDigest: d("execution"),
	}
}

// testLog is an in-memory log holding entries 0..3.
type testLog struct {
	*offlinetest.Log
	entries []offline.Entry
}

func newTestLog(t *testing.T) *testLog {
	l := &testLog{Log: offlinetest.NewLog(origin, "the log")}
	for i := range 4 {
		e := entry(i)
		data, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		l.Append(data)
		l.entries = append(l.entries, e)
	}
	return l
}

func (l *testLog) trust() offline.Trust {
	return offlinetest.Trust([]*offlinetest.Log{l.Log}, nil, nil, "")
}

// answer is the reference a log service answers for entry i.
func (l *testLog) answer(t *testing.T, i uint64) []byte {
	t.Helper()
	data, err := attest.NewTransparencyReference(origin, fmt.Sprint(i), l.Proof(i).Marshal()).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// serve answers every POST /add with the answer of fn, counting requests.
func serve(t *testing.T, fn func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/add" {
			http.Error(w, "wrong request "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		io.Copy(io.Discard, r.Body)
		fn(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func newClient(t *testing.T, base string, o client.Options) *client.Client {
	t.Helper()
	c, err := client.New(base, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSubmit: an honest answer is verified and returned rebuilt from its
// proof (pretty JSON, whatever the server's formatting).
func TestSubmit(t *testing.T) {
	l := newTestLog(t)
	want := l.answer(t, 2)
	compact := bytes.ReplaceAll(bytes.ReplaceAll(want, []byte("\n"), nil), []byte(": "), []byte(":"))
	compact = bytes.ReplaceAll(compact, []byte("  "), nil)
	for _, body := range [][]byte{want, compact} {
		srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
		ref, err := newClient(t, srv.URL+"/", client.Options{}).Submit(context.Background(), []byte("{}"), l.entries[2], l.trust())
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if !bytes.Equal(ref.JSON, want) || ref.Verified.Index != 2 || ref.Verified.Checkpoint.Size != 4 || !bytes.Equal(ref.Proof, l.Proof(2).Marshal()) {
			t.Errorf("reference %s, index %d", ref.JSON, ref.Verified.Index)
		}
	}
}

// TestHostileAnswers: an answer that does not verify for this entry
// against the log's key is refused, whatever is wrong with it; nothing of
// it is returned.
func TestHostileAnswers(t *testing.T) {
	l := newTestLog(t)
	good := l.answer(t, 1)
	ref, proof, err := attest.ParseTransparencyReference(good)
	if err != nil {
		t.Fatal(err)
	}
	rebuild := func(logID, uuid string, proof []byte) []byte {
		b, err := attest.NewTransparencyReference(logID, uuid, proof).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The same tree signed by another key that carries the log's origin.
	impostor := offlinetest.NewLog(origin, "an impostor")
	for _, e := range l.entries {
		data, _ := e.Marshal()
		impostor.Append(data)
	}
	// A proof whose index and hashes are for another size.
	short := l.Proof(1)
	short.Hashes = short.Hashes[:1]
	for _, tt := range []struct {
		name, answer, want string
	}{
		{"signed by another key with the log's origin", string(rebuild(origin, "1", impostor.Proof(1).Marshal())), "log"},
		{"a wrong inclusionProofSha256", strings.Replace(string(good), ref.InclusionProofSha256, strings.Repeat("0", 64), 1), "inclusionProofSha256"},
		{"no inclusionProofSha256", strings.Replace(string(good), ",\n  \"inclusionProofSha256\": \""+ref.InclusionProofSha256+"\"", "", 1), "no inclusionProofSha256"},
		{"an extra member", strings.Replace(string(good), "{", "{\"checkpointUrl\": \"https://evil.example/\",", 1), "unknown member"},
		{"the proof of another entry", string(rebuild(origin, "2", l.Proof(2).Marshal())), "another bundle"},
		{"another logId", string(rebuild("example.org/other-log", "1", proof)), "logId"},
		{"another entryUuid", string(rebuild(origin, "3", proof)), "entryUuid"},
		{"an inclusion proof that does not lead to the root", string(rebuild(origin, "1", short.Marshal())), "inclusion"},
		{"not JSON", "ok", "transparency reference"},
		{"an empty answer", "", "transparency reference"},
	} {
		srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tt.answer) })
		ref, err := newClient(t, srv.URL, client.Options{}).Submit(context.Background(), []byte("{}"), l.entries[1], l.trust())
		var ae *client.AnswerError
		if ref != nil || !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, %v; want an *AnswerError about %q", tt.name, ref, err, tt.want)
		}
	}
	// Control: the good answer passes the same client.
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(good) })
	if _, err := newClient(t, srv.URL, client.Options{}).Submit(context.Background(), []byte("{}"), l.entries[1], l.trust()); err != nil {
		t.Fatalf("the good answer: %v", err)
	}
	// No log key: refused before anything is sent.
	srv, n := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(good) })
	if _, err := newClient(t, srv.URL, client.Options{}).Submit(context.Background(), []byte("{}"), l.entries[1], offline.Trust{}); err == nil || n.Load() != 0 {
		t.Errorf("without a log key: %v, %d requests", err, n.Load())
	}
}

// TestRedirects: a redirect, to another port of the same host or to plain
// HTTP, is an error naming where it pointed; the other server receives
// nothing, the token least of all.
func TestRedirects(t *testing.T) {
	l := newTestLog(t)
	var sawToken atomic.Bool
	other, otherRequests := serve(t, func(w http.ResponseWriter, r *http.Request) {
		sawToken.Store(sawToken.Load() || r.Header.Get("Authorization") != "")
		w.Write(l.answer(t, 0))
	})
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/add", status)
		})
		_, err := newClient(t, srv.URL, client.Options{Token: "test-only-token"}).Submit(context.Background(), []byte("{}"), l.entries[0], l.trust())
		var re *client.RedirectError
		if !errors.As(err, &re) || re.Status != status || re.Location != other.URL+"/add" || !strings.Contains(err.Error(), other.URL) {
			t.Errorf("HTTP %d: %v", status, err)
		}
	}
	if otherRequests.Load() != 0 || sawToken.Load() {
		t.Fatalf("the redirect target got %d requests (token: %t)", otherRequests.Load(), sawToken.Load())
	}
	// Control: the target itself answers.
	if _, err := newClient(t, other.URL, client.Options{Token: "test-only-token"}).Submit(context.Background(), []byte("{}"), l.entries[0], l.trust()); err != nil || !sawToken.Load() {
		t.Fatalf("the target: %v (token seen: %t)", err, sawToken.Load())
	}
}

// TestTokenOverHTTP: a token is refused over plain HTTP to any host but
// the loopback interface before anything is sent (no connection is made:
// New refuses); https and loopback http are taken.
func TestTokenOverHTTP(t *testing.T) {
	for _, tt := range []struct {
		url, token string
		ok         bool
	}{
		{"http://192.0.2.1:8080", "t", false},
		{"http://log.example.org", "t", false},
		{"http://127.0.0.1.example.org", "t", false},
		{"http://[2001:db8::1]:8080", "t", false},
		{"http://0.0.0.0:8080", "t", false},
		{"https://log.example.org", "t", true},
		{"http://log.example.org", "", true},
		{"http://127.0.0.1:8080", "t", true},
		{"http://127.1.2.3:8080", "t", true},
		{"http://[::1]:8080/", "t", true},
		{"http://localhost:8080", "t", true},
		{"http://LocalHost:8080", "t", true},
		{"ftp://127.0.0.1", "", false},
		{"https://", "", false},
		{"https://user:pw@log.example.org", "", false},
		{"https://log.example.org/?x=1", "", false},
		{"https://log.example.org/#x", "", false},
		{"log.example.org", "", false},
	} {
		_, err := client.New(tt.url, client.Options{Token: tt.token})
		if (err == nil) != tt.ok {
			t.Errorf("%s (token %q): %v", tt.url, tt.token, err)
		}
		if !tt.ok && tt.token != "" && tt.url != "ftp://127.0.0.1" && !errors.Is(err, client.ErrTokenOverHTTP) {
			t.Errorf("%s: %v, want ErrTokenOverHTTP", tt.url, err)
		}
	}
	if c := newClient(t, "https://log.example.org/base/", client.Options{}); c.URL() != "https://log.example.org/base/add" {
		t.Errorf("URL %s", c.URL())
	}
}

// TestRetries: 503, 429 and a dropped connection are retried, honouring
// Retry-After; a 4xx is final; the attempts are bounded.
func TestRetries(t *testing.T) {
	l := newTestLog(t)
	var (
		mu     sync.Mutex
		script []string
	)
	setScript := func(s ...string) { mu.Lock(); script = s; mu.Unlock() }
	srv, n := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		step := "ok"
		if len(script) > 0 {
			step, script = script[0], script[1:]
		}
		mu.Unlock()
		switch step {
		case "503", "429":
			w.Header().Set("Retry-After", "0")
			code := http.StatusServiceUnavailable
			if step == "429" {
				code = http.StatusTooManyRequests
			}
			http.Error(w, "busy", code)
		case "drop":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		case "422":
			http.Error(w, `{"valid":false}`, http.StatusUnprocessableEntity)
		case "413":
			http.Error(w, `{"error":"too large"}`, http.StatusRequestEntityTooLarge)
		default:
			w.Write(l.answer(t, 3))
		}
	})
	var retries []string
	c := newClient(t, srv.URL, client.Options{Attempts: 4, OnRetry: func(attempt int, err error, wait time.Duration) {
		retries = append(retries, fmt.Sprintf("%d: %v", attempt, err))
	}})
	setScript("503", "429", "drop")
	if _, err := c.Submit(context.Background(), []byte("{}"), l.entries[3], l.trust()); err != nil || n.Load() != 4 || len(retries) != 3 || !strings.HasPrefix(retries[0], "1: HTTP 503") {
		t.Fatalf("%v, %d requests, retries %q", err, n.Load(), retries)
	}
	n.Store(0)
	setScript("422")
	var re *client.RefusedError
	if _, err := c.Submit(context.Background(), []byte("{}"), l.entries[3], l.trust()); !errors.As(err, &re) || re.Status != 422 || !re.Invalid() || n.Load() != 1 {
		t.Errorf("a 422: %v, %d requests", err, n.Load())
	}
	// Control: a request the server could not take is no verdict on the
	// evidence.
	n.Store(0)
	setScript("413")
	if _, err := c.Submit(context.Background(), []byte("{}"), l.entries[3], l.trust()); !errors.As(err, &re) || re.Status != 413 || re.Invalid() || n.Load() != 1 {
		t.Errorf("a 413: %v, %d requests", err, n.Load())
	}
	// A body larger than any log service reads is not sent.
	n.Store(0)
	if _, err := c.Submit(context.Background(), make([]byte, canonjson.MaxInputBytes+1), l.entries[3], l.trust()); !errors.Is(err, client.ErrTooLarge) || n.Load() != 0 {
		t.Errorf("a body over the reader's limit: %v, %d requests", err, n.Load())
	}
	n.Store(0)
	setScript("503", "503", "503", "503", "503")
	var ge *client.GiveUpError
	if _, err := c.Submit(context.Background(), []byte("{}"), l.entries[3], l.trust()); !errors.As(err, &ge) || ge.Attempts != 4 || n.Load() != 4 || !strings.Contains(err.Error(), "giving up after 4 attempts") {
		t.Errorf("always 503: %v, %d requests", err, n.Load())
	}
}

// FuzzVerify: no answer makes Verify panic, and an answer it accepts is a
// reference to the entry it was asked about, rebuilt from its proof.
func FuzzVerify(f *testing.F) {
	l := &testLog{Log: offlinetest.NewLog(origin, "the log")}
	for i := range 4 {
		data, _ := entry(i).Marshal()
		l.Append(data)
		l.entries = append(l.entries, entry(i))
	}
	// Seeds: the honest answer for entry 1 (built here, from the test-only
	// keys), and testdata/fuzz/FuzzVerify.
	good, _ := attest.NewTransparencyReference(origin, "1", l.Proof(1).Marshal()).Marshal()
	f.Add(good)
	trust := l.trust()
	f.Fuzz(func(t *testing.T, answer []byte) {
		ref, err := client.Verify(answer, l.entries[1], trust)
		if err != nil {
			var ae *client.AnswerError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v, want an *AnswerError", err, err)
			}
			return
		}
		if ref.Verified.Index != 1 || ref.Verified.LogID != origin {
			t.Fatalf("accepted entry %d of %q", ref.Verified.Index, ref.Verified.LogID)
		}
		if _, proof, err := attest.ParseTransparencyReference(ref.JSON); err != nil || !bytes.Equal(proof, ref.Proof) {
			t.Fatalf("the rebuilt reference: %v", err)
		}
	})
}

// TestWitnessing: the server's Existing header is carried (and only that
// header: its absence is false); the verified reference's cosignatures
// are named unverified by offline.CosignatureLines, and counted against a
// trust with witnesses by offline.Witnessed with the quorum's verdict, as
// log add --server does: 2 of 3 cosigned fails a 3-of-3 quorum, meets a
// 2-of-3 one.
func TestWitnessing(t *testing.T) {
	l := newTestLog(t)
	w1 := offlinetest.NewWitness("w1", "witness-1.example.org", "client w1", 1767225600)
	w2 := offlinetest.NewWitness("w2", "witness-2.example.org", "client w2", 1767225600)
	w3 := offlinetest.NewWitness("w3", "witness-3.example.org", "client w3", 1767225600)
	answer, err := attest.NewTransparencyReference(origin, "1", l.Proof(1, w1, w2).Marshal()).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"true", "false", ""} {
		srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if h != "" {
				w.Header().Set(client.ExistingHeader, h)
			}
			w.Write(answer)
		})
		ref, err := newClient(t, srv.URL, client.Options{}).Submit(context.Background(), []byte("{}"), l.entries[1], l.trust())
		if err != nil {
			t.Fatal(err)
		}
		if ref.Existing != (h == "true") {
			t.Errorf("header %q: Existing %t", h, ref.Existing)
		}
		if lines, _ := offline.CosignatureLines(ref.Proof); len(lines) != 2 || offline.FormatSigLines(lines)[:22] != "witness-1.example.org+" {
			t.Errorf("cosignatures %v", lines)
		}
		trust := func(k int) offline.Trust {
			tr := offlinetest.Trust([]*offlinetest.Log{l.Log}, []*offlinetest.Witness{w1, w2, w3},
				[]offline.Group{{Name: "every", Threshold: k, Members: []string{"w1", "w2", "w3"}}}, "every")
			tr.EvaluatedAt = time.Unix(2000000000, 0) // after the witnesses' timestamps
			return tr
		}
		if w, err := offline.Witnessed(ref.Proof, ref.Verified.Entry, trust(3)); err != nil || w.Satisfied() || w.String() != "cosigned by 2 of 3: w1, w2; missing: w3; quorum every not satisfied: cosignatures: 2 of 3 required (w3 missing)" {
			t.Errorf("3 of 3: %v %v", w, err)
		}
		if w, err := offline.Witnessed(ref.Proof, ref.Verified.Entry, trust(2)); err != nil || !w.Satisfied() {
			t.Errorf("2 of 3: %v %v", w, err)
		}
	}
}
