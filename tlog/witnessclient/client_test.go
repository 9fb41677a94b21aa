package witnessclient_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/witness"
	"github.com/mcpres/mcpres/witness/witnesshttp"
	"k8s.io/klog/v2"
)

// Fixed key seeds: test keys only.
var (
	testOnlyLogSeed      = signednotetest.Seed(0x51)
	testOnlyWitnessSeed  = signednotetest.Seed(0x52)
	testOnlyWitness2Seed = signednotetest.Seed(0x53)
)

var testNow = time.Date(2026, 8, 27, 18, 5, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // Tessera's logging, in tests only
	os.Exit(m.Run())
}

type fixture struct {
	dir       string
	log       *tlog.Log
	logSigner *signednote.LogSigner
	logKey    *signednote.Verifier
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func newLog(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{dir: filepath.Join(t.TempDir(), "log")}
	f.logSigner, f.logKey, _ = signednotetest.LogKey(t, testOnlyLogSeed, "example.org/witnessclient-test-log")
	f.log = tlog.Open(posix.New(f.dir), f.logKey)
	if _, err := f.log.Init(ctx(t), f.logSigner); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) add(t testing.TB, entries ...string) {
	t.Helper()
	for _, e := range entries {
		if _, err := f.log.Add(ctx(t), f.logSigner, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
}

func cosigner(t testing.TB, seed []byte, name string) (*signednote.WitnessSigner, *signednote.Verifier) {
	t.Helper()
	c, v, _ := signednotetest.WitnessKey(t, seed, name)
	return c, v
}

// startWitness serves an mcpres witness of f's log on 127.0.0.1.
func startWitness(t testing.TB, f *fixture, c *signednote.WitnessSigner) (*httptest.Server, string) {
	t.Helper()
	state := t.TempDir()
	s, err := witnesshttp.New(c, []*signednote.Verifier{f.logKey}, state, func() time.Time { return testNow }, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPServer("").Handler)
	t.Cleanup(srv.Close)
	return srv, state
}

func witnessLog(t testing.TB, c *witnessclient.Client, f *fixture) (*signednote.Checkpoint, *witnessclient.Result) {
	t.Helper()
	cp, res, err := c.WitnessLog(ctx(t), f.log, f.logKey, posix.New(f.dir).ReadTile)
	if err != nil {
		t.Fatal(err)
	}
	return cp, res
}

func cosigners(t testing.TB, f *fixture, cp *signednote.Checkpoint, ws ...*signednote.Verifier) []string {
	t.Helper()
	cs, err := witness.Cosigners(cp.Note, f.logKey, ws)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	return names
}

// TestFollowsTheLog: two mcpres witnesses cosign each new checkpoint, the
// client sends the proof from the size each last cosigned, recovers from a
// wrong hint with one 409, and a witness that forgot (a new state) is
// caught up from its reported size.
func TestFollowsTheLog(t *testing.T) {
	f := newLog(t)
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	w2, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	s1, _ := startWitness(t, f, w1)
	var posts2 atomic.Int32
	s2, _ := startWitness(t, f, w2)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts2.Add(1)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, s2.URL+r.URL.Path, r.Body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(counting.Close)
	c, err := witnessclient.New([]witnessclient.Witness{
		{Name: "w1", Key: w1v, URL: s1.URL},
		{Name: "w2", Key: w2v, URL: counting.URL + "/"},
	}, witnessclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp, res := witnessLog(t, c, f) // the empty tree, first use
	if len(res.Failures) != 0 || len(res.Cosignatures) != 2 || cp.Size != 0 {
		t.Fatalf("size 0: %+v", res)
	}
	f.add(t, "a", "b", "c")
	cp, res = witnessLog(t, c, f)
	if got := cosigners(t, f, cp, w1v, w2v); len(res.Failures) != 0 || strings.Join(got, ",") != "example.org/w1,example.org/w2" || cp.Size != 3 {
		t.Fatalf("size 3: %+v, cosigners %v", res, got)
	}
	if n := posts2.Load(); n != 2 {
		t.Fatalf("%d requests to w2 for two checkpoints, want 2 (the client knows its size)", n)
	}
	// A fresh client with a wrong hint: one 409 each, then cosigned.
	f.add(t, "d")
	c2, _ := witnessclient.New([]witnessclient.Witness{{Name: "w2", Key: w2v, URL: counting.URL}}, witnessclient.Options{})
	c2.Hint(1)
	cp, res = witnessLog(t, c2, f)
	if len(res.Cosignatures) != 1 || posts2.Load() != 4 || cp.Size != 4 {
		t.Fatalf("after a wrong hint: %+v, %d requests", res, posts2.Load())
	}
	// Cosigning again what is already cosigned adds nothing twice.
	cp, res = witnessLog(t, c2, f)
	if got := cosigners(t, f, cp, w1v, w2v); len(got) != 1 || strings.Count(string(cp.Note), "— example.org/w2 ") != 1 {
		t.Fatalf("again: %v\n%s", got, cp.Note)
	}
	_ = res
}

// TestFailures: a witness that is down, one that hangs, one that answers
// garbage or a cosignature by another key, and one whose state is ahead
// of the log each give a Failure; the healthy witness's cosignature is
// still attached, and the hanging one costs at most its deadline.
func TestFailures(t *testing.T) {
	f := newLog(t)
	f.add(t, "a")
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	_, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	good, _ := startWitness(t, f, w1)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	answer := func(status int, ctype, body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(s.Close)
		return s.URL
	}
	// w1's real line, served by an impostor claiming to be w2.
	w1Line := func() string {
		cp, _ := f.log.Checkpoint(ctx(t))
		c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp.Note}, f.logKey, w1, nil, testNow)
		if err != nil {
			t.Fatal(err)
		}
		return string(c.Line)
	}()
	ws := []witnessclient.Witness{
		{Name: "good", Key: w1v, URL: good.URL},
		{Name: "down", Key: w2v, URL: down.URL},
		{Name: "hang", Key: w2v, URL: hang.URL},
		{Name: "garbage", Key: w2v, URL: answer(200, "text/plain", "hello\n")},
		{Name: "impostor", Key: w2v, URL: answer(200, "text/plain", w1Line)},
		{Name: "ahead", Key: w2v, URL: answer(409, "text/x.tlog.size", "99\n")},
		{Name: "bad409", Key: w2v, URL: answer(409, "text/plain", "0\n")},
		{Name: "teapot", Key: w2v, URL: answer(418, "text/plain", "no")},
	}
	if _, err := witnessclient.New(ws, witnessclient.Options{}); err == nil || !strings.Contains(err.Error(), "same key") {
		t.Fatalf("one key for several witnesses: %v", err)
	}
	// A log key is not a witness key (the control is the client below).
	if _, err := witnessclient.New([]witnessclient.Witness{{Name: "log", Key: f.logKey, URL: good.URL}}, witnessclient.Options{}); err == nil || !strings.Contains(err.Error(), "key type 0x01 (Ed25519 signed-note key), want 0x04") {
		t.Fatalf("a log key as a witness key: %v", err)
	}
	for i := 1; i < len(ws); i++ {
		_, ws[i].Key = cosigner(t, bytes.Repeat([]byte{byte(0x60 + i)}, 32), "example.org/w"+ws[i].Name)
	}
	ws[4].Key = w2v
	c, err := witnessclient.New(ws, witnessclient.Options{Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cp, res := witnessLog(t, c, f)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v with a 500ms deadline per witness", d)
	}
	if len(res.Cosignatures) != 1 || res.Cosignatures[0].Source != "good" || len(cosigners(t, f, cp, w1v)) != 1 {
		t.Fatalf("cosignatures: %+v", res.Cosignatures)
	}
	want := map[string]string{
		"down":     "connect",
		"hang":     "deadline",
		"garbage":  "not a signature line",
		"impostor": "no cosignature by example.org/w2",
		"ahead":    "larger than this checkpoint",
		"bad409":   "content type",
		"teapot":   "418",
	}
	if len(res.Failures) != len(want) {
		t.Fatalf("failures: %+v", res.Failures)
	}
	urls := map[string]string{}
	for _, w := range ws {
		urls[w.Name] = w.URL + "/add-checkpoint"
	}
	for _, fl := range res.Failures {
		if !strings.Contains(fl.Err.Error(), want[fl.Name]) {
			t.Errorf("%s: %v; want %q", fl.Name, fl.Err, want[fl.Name])
		}
		// Every warning names the witness and the URL it was sent to.
		if fl.URL != urls[fl.Name] || !strings.HasPrefix(fl.String(), "witness "+fl.Name+" gave no cosignature (POST "+urls[fl.Name]+"): ") {
			t.Errorf("%s: URL %q, %s", fl.Name, fl.URL, fl)
		}
	}
	if !errors.Is(res.Failures[1].Err, context.DeadlineExceeded) && !strings.Contains(res.Failures[1].Err.Error(), "deadline") {
		t.Errorf("hang: %v", res.Failures[1].Err)
	}
}

// TestNotFound: a 404 is no reason to wait. A witness whose policy URL is
// its endpoint (…/add-checkpoint, what 'witness serve' used to print)
// gets requests at …/add-checkpoint/add-checkpoint, and a witness that does
// not know the log answers 404 too: both Failures name the URL asked and
// the two causes, with the answer. Control: the base URL of the same
// witness cosigns.
func TestNotFound(t *testing.T) {
	f := newLog(t)
	f.add(t, "a")
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	w2, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	good, _ := startWitness(t, f, w1)
	otherLog := newLog(t) // w2 witnesses a log of another origin only
	otherLog.logSigner, otherLog.logKey, _ = signednotetest.LogKey(t, signednotetest.Seed(0x54), "example.org/another-log")
	stranger, _ := startWitness(t, otherLog, w2)
	ws := []witnessclient.Witness{
		{Name: "endpoint", Key: w1v, URL: good.URL + "/add-checkpoint"},
		{Name: "stranger", Key: w2v, URL: stranger.URL},
	}
	c, err := witnessclient.New(ws, witnessclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, res := witnessLog(t, c, f)
	if len(res.Cosignatures) != 0 || len(res.Failures) != 2 {
		t.Fatalf("result %+v", res)
	}
	for i, want := range []string{
		"witness endpoint gave no cosignature (POST " + good.URL + "/add-checkpoint/add-checkpoint): 404 Not Found: no tlog-witness endpoint at " + good.URL + "/add-checkpoint/add-checkpoint (is the policy's URL the witness's base URL?)",
		"witness stranger gave no cosignature (POST " + stranger.URL + "/add-checkpoint): 404 Not Found: no tlog-witness endpoint at " + stranger.URL + "/add-checkpoint",
	} {
		if got := res.Failures[i].String(); !strings.HasPrefix(got, want) || !strings.Contains(got, `does not witness log "example.org/witnessclient-test-log"`) {
			t.Errorf("got  %s\nwant %s…", got, want)
		}
	}
	if got := res.Failures[0].String(); !strings.HasSuffix(got, `"404 page not found"`) {
		t.Errorf("the answer is not quoted: %s", got)
	}
	if got := res.Failures[1].String(); !strings.Contains(got, `this witness does not witness log`) {
		t.Errorf("the witness's own answer is not quoted: %s", got)
	}
	// Control: the base URL.
	c, err = witnessclient.New([]witnessclient.Witness{{Name: "base", Key: w1v, URL: good.URL}}, witnessclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, res := witnessLog(t, c, f); len(res.Cosignatures) != 1 || len(res.Failures) != 0 {
		t.Fatalf("the base URL: %+v", res)
	}
}

// A witness that was down when a checkpoint was cosigned is asked again
// later, alone: the witnesses whose cosignature the checkpoint carries are
// not asked (Present), and a fully cosigned checkpoint asks nobody.
func TestAsksOnlyMissing(t *testing.T) {
	f := newLog(t)
	f.add(t, "a", "b")
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	w2, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	s1, _ := startWitness(t, f, w1)
	s2, _ := startWitness(t, f, w2)
	var up atomic.Bool
	var posts1, posts2 atomic.Int32
	proxy := func(target string, posts *atomic.Int32, gated bool) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			posts.Add(1)
			if gated && !up.Load() {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
			req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.Path, r.Body)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			w.WriteHeader(resp.StatusCode)
			io.Copy(w, resp.Body)
		}))
		t.Cleanup(s.Close)
		return s
	}
	c, err := witnessclient.New([]witnessclient.Witness{
		{Name: "w1", Key: w1v, URL: proxy(s1.URL, &posts1, false).URL},
		{Name: "w2", Key: w2v, URL: proxy(s2.URL, &posts2, true).URL},
	}, witnessclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp, res := witnessLog(t, c, f)
	if len(res.Cosignatures) != 1 || len(res.Failures) != 1 || res.Failures[0].Name != "w2" || len(res.Present) != 0 {
		t.Fatalf("w2 down: %+v", res)
	}
	if m := c.Missing(cp, f.logKey); strings.Join(m, ",") != "w2" {
		t.Fatalf("missing %v, want w2", m)
	}
	up.Store(true)
	cp, res = witnessLog(t, c, f)
	if len(res.Cosignatures) != 1 || res.Cosignatures[0].Source != "w2" || strings.Join(res.Present, ",") != "w1" || posts1.Load() != 1 || posts2.Load() != 2 {
		t.Fatalf("w2 back: %+v; requests w1 %d, w2 %d", res, posts1.Load(), posts2.Load())
	}
	if got := cosigners(t, f, cp, w1v, w2v); strings.Join(got, ",") != "example.org/w1,example.org/w2" || len(c.Missing(cp, f.logKey)) != 0 {
		t.Fatalf("cosigners %v", got)
	}
	if !strings.Contains(res.Summary(cp), "cosigned by 1 of 1 witness(es) asked (w2); already cosigned by w1") {
		t.Errorf("summary %q", res.Summary(cp))
	}
	again, res := witnessLog(t, c, f)
	if len(res.Cosignatures)+len(res.Failures) != 0 || strings.Join(res.Present, ",") != "w1,w2" || posts1.Load() != 1 || posts2.Load() != 2 || !bytes.Equal(again.Note, cp.Note) {
		t.Fatalf("fully cosigned: %+v; requests w1 %d, w2 %d", res, posts1.Load(), posts2.Load())
	}
}

// startWitnessAt serves an mcpres witness of f's log on 127.0.0.1 whose
// clock reads now(): it signs correctly, with that date.
func startWitnessAt(t testing.TB, f *fixture, c *signednote.WitnessSigner, now func() time.Time) *httptest.Server {
	t.Helper()
	s, err := witnesshttp.New(c, []*signednote.Verifier{f.logKey}, t.TempDir(), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPServer("").Handler)
	t.Cleanup(srv.Close)
	return srv
}

// TestCosignatureTimeRule: a cosignature is attached only if it counts
// when it arrives, under the verifier's rule (signednote.JudgeCosignature
// at Options.Now). A witness that signs correctly but dates its
// cosignature a year ahead is a Failure naming it, its date and the time
// it was judged at, its cosignature is not attached, and it stays missing
// (asked again next round); a witness dated in the same second and one a
// second in the past count (controls); a cosignature by a known key dated
// a year ahead that does not verify fails for its signature, not its
// time.
func TestCosignatureTimeRule(t *testing.T) {
	f := newLog(t)
	f.add(t, "a")
	wNow, wNowV := cosigner(t, testOnlyWitnessSeed, "example.org/now")
	wPast, wPastV := cosigner(t, testOnlyWitness2Seed, "example.org/past")
	wAhead, wAheadV := cosigner(t, signednotetest.Seed(0x54), "example.org/ahead")
	_, wBadV := cosigner(t, signednotetest.Seed(0x55), "example.org/bad")
	year := testNow.AddDate(1, 0, 0)
	// A line by wBad's key, dated a year ahead, whose signature is broken.
	badLine := func() string {
		wBad, _ := cosigner(t, signednotetest.Seed(0x55), "example.org/bad")
		cp, _ := f.log.Checkpoint(ctx(t))
		c, err := witness.AddCheckpoint(&witness.AddRequest{Checkpoint: cp.Note}, f.logKey, wBad, nil, year)
		if err != nil {
			t.Fatal(err)
		}
		name, b64, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(string(c.Line), "— "), "\n"), " ")
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		raw[len(raw)-1] ^= 1 // the Ed25519 signature, not the timestamp
		return "— " + name + " " + base64.StdEncoding.EncodeToString(raw) + "\n"
	}()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, badLine) }))
	t.Cleanup(bad.Close)
	ws := []witnessclient.Witness{
		{Name: "now", Key: wNowV, URL: startWitnessAt(t, f, wNow, func() time.Time { return testNow.Add(999 * time.Millisecond) }).URL},
		{Name: "past", Key: wPastV, URL: startWitnessAt(t, f, wPast, func() time.Time { return testNow.Add(-time.Second) }).URL},
		{Name: "ahead", Key: wAheadV, URL: startWitnessAt(t, f, wAhead, func() time.Time { return year }).URL},
		{Name: "bad", Key: wBadV, URL: bad.URL},
	}
	c, err := witnessclient.New(ws, witnessclient.Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	cp, res := witnessLog(t, c, f)
	if got := cosigners(t, f, cp, wNowV, wPastV, wAheadV, wBadV); strings.Join(got, ",") != "example.org/now,example.org/past" {
		t.Errorf("attached: %v", got)
	}
	if len(res.Failures) != 2 {
		t.Fatalf("failures: %+v", res.Failures)
	}
	ahead, badF := res.Failures[0], res.Failures[1]
	var u *signednote.UncountedCosignature
	if ahead.Name != "ahead" || !errors.As(ahead.Err, &u) || u.Name != "ahead" ||
		ahead.String() != "witness ahead gave a cosignature that does not count, not attached (POST "+ahead.URL+"): cosignature of ahead dated 2027-08-27T18:05:00Z is not counted: dated after the evaluation time 2026-08-27T18:05:00Z" {
		t.Errorf("ahead: %v", ahead)
	}
	if badF.Name != "bad" || errors.As(badF.Err, &u) || !strings.Contains(badF.String(), "witness bad gave no cosignature (POST "+badF.URL+"): cosignature does not verify against the checkpoint") {
		t.Errorf("bad: %v", badF)
	}
	if got := c.Missing(cp, f.logKey); strings.Join(got, ",") != "ahead,bad" {
		t.Errorf("missing after the round: %v", got)
	}
	if !strings.Contains(res.Summary(cp), "cosigned by 2 of 4 witness(es) asked (now, past)") {
		t.Errorf("summary: %s", res.Summary(cp))
	}
}
