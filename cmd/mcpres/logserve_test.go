package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api"
	"github.com/transparency-dev/tessera/client"
	"github.com/transparency-dev/tessera/fsck"
)

// served is a 'mcpres log serve' process started by a test.
type served struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	mu     sync.Mutex
	exited chan struct{}
}

var servingLine = regexp.MustCompile(`serving log \S+ on (http://127\.0\.0\.1:\d+)`)

// startServe runs the mcpres binary's 'log serve' with args on
// 127.0.0.1:0 and waits until it listens. It is killed at the end of the
// test if it still runs.
func startServe(t *testing.T, bin string, args ...string) *served {
	t.Helper()
	s := &served{t: t, stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"log", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	pr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
		io.Copy(io.Discard, pr)
		// Wait closes the pipe: only after everything was read, or the
		// last lines ("stopped") may be lost.
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.exited
	})
	select {
	case s.url = <-urlc:
	case <-s.exited:
		t.Fatalf("log serve exited: %s", s.log())
	case <-time.After(time.Minute):
		t.Fatalf("log serve did not start: %s", s.log())
	}
	return s
}

func (s *served) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop sends sig and waits for the exit.
func (s *served) stop(sig os.Signal) error {
	s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		s.t.Fatal("log serve did not stop")
	}
	if st := s.cmd.ProcessState; !st.Success() {
		return fmt.Errorf("exit: %v", st)
	}
	return nil
}

// TestCLILogServe: 'log add --server' writes byte for byte the reference
// the local 'log add' writes; a bundle already logged is answered with its
// entry; the token is required; invalid evidence never leaves the client;
// SIGTERM stops the server cleanly.
func TestCLILogServe(t *testing.T) {
	bin := buildBinary(t)
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1, b2 := exampleBundleFile(t, e.dir), variantBundleFile(t, e.dir)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("local.ref.json"))
	writeTestFile(t, e.dir, "token", []byte("test-only-token\n"), 0o600)
	srv := startServe(t, bin, "--dir", dir, "--key", e.p("log.key"), "--token-file", e.p("token"))
	// A second server on the directory refuses to start, at once.
	e.fail(exitInput, "is served by another process", "log", "serve", "--dir", dir, "--key", e.p("log.key"), "--listen", "127.0.0.1:0")

	_, stderr := e.run("log", "add", "--server", srv.url, "--token-file", e.p("token"), "--log-key", e.p("log.vkey"), b1, "-o", e.p("srv.ref.json"))
	local, _ := os.ReadFile(e.p("local.ref.json"))
	remote, _ := os.ReadFile(e.p("srv.ref.json"))
	if !bytes.Equal(local, remote) {
		t.Fatalf("the server's reference differs from the local one:\n%s\n%s", remote, local)
	}
	if !strings.Contains(stderr, "logged as entry 0 of "+testLogOrigin) {
		t.Errorf("stderr %q", stderr)
	}
	e.run("log", "add", "--server", srv.url+"/", "--log-key", e.p("log.vkey"), "--token-file", e.p("token"), b2, "-o", e.p("b2.ref.json"), "--proof", e.p("b2.proof"))
	checkReference(t, e.p("b2.ref.json"), b2, e.vkey("log"), 1, 2)

	// No token, a wrong one: refused at once (no retry), exit 2.
	e.fail(exitInput, "HTTP 401", "log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), b2, "-o", e.p("x.json"))
	t.Setenv(logTokenEnv, "wrong")
	stderr = e.fail(exitInput, "HTTP 401", "log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), b2, "-o", e.p("x.json"))
	if strings.Contains(stderr, "retrying") {
		t.Errorf("a 401 was retried: %q", stderr)
	}
	t.Setenv(logTokenEnv, "test-only-token")
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), b2, "-o", e.p("x.json"))
	// Invalid evidence is refused before it is sent.
	bad := bundletest.Example(t)
	bad.Get("evidence").Get("run").Get("environment").Get("os").Str = "tampered"
	badFile := writePretty(t, e.dir, "bad.json", bad)
	e.fail(exitInvalid, "refusing to log invalid evidence", "log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), badFile, "-o", e.p("bad.ref.json"))
	// The same invalid bundle posted directly: 422, the diagnostics.
	body, _ := os.ReadFile(badFile)
	resp, err := http.Post(srv.url+"/add", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !bytes.Contains(answer, []byte("bearer token")) {
		t.Fatalf("without token: %d %s", resp.StatusCode, answer)
	}
	req, _ := http.NewRequest("POST", srv.url+"/add", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer test-only-token")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || !bytes.HasPrefix(answer, []byte(`{"valid":false,"diagnostics":["`)) {
		t.Fatalf("invalid evidence: %d %s", resp.StatusCode, answer)
	}
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, srv.log())
	}
	if !strings.Contains(srv.log(), "stopped") {
		t.Errorf("server log: %s", srv.log())
	}
	cp := readCheckpointSize(t, dir, e.vkey("log"))
	if cp != 2 {
		t.Fatalf("log size %d after the session, want 2", cp)
	}
}

func readCheckpointSize(t *testing.T, dir, vkey string) uint64 {
	t.Helper()
	v, err := signednote.ParseLogVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := tlog.Open(posix.New(dir), v).Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cp.Size
}

// TestCLISubmitRetries: 503, 429 and a dropped connection are retried
// with backoff, a 400 is not; the client checks the answer.
func TestCLISubmitRetries(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	b1 := exampleBundleFile(t, e.dir)
	signer, _ := signednote.ParseLogSigner(strings.TrimSpace(string(mustRead(t, e.p("log.key")))))
	store := posix.New(dir)
	lg := tlog.Open(store, signer.Verifier())
	ap, err := lg.NewAppender(context.Background(), signer, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ap.Close(context.Background())
	real := server.New(server.Config{Log: lg, Storage: store, Appender: ap, Admit: server.AdmitEvidence(nil)})
	var calls atomic.Int32
	var script []string
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1)) - 1
		step := "real"
		if n < len(script) {
			step = script[n]
		}
		switch step {
		case "503", "429":
			w.Header().Set("Retry-After", "0")
			code := 503
			if step == "429" {
				code = 429
			}
			http.Error(w, "busy", code)
		case "drop":
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
		case "400":
			http.Error(w, `{"valid":false}`, 400)
		case "garbage":
			w.Write([]byte(`{"logId":"x","entryUuid":"0","inclusionProofBase64":"AAAA","inclusionProofSha256":"00"}`))
		default:
			real.ServeHTTP(w, r)
		}
	}))
	defer fake.Close()

	script = []string{"503", "429", "drop"}
	_, stderr := e.run("log", "add", "--server", fake.URL, "--log-key", e.p("log.vkey"), b1, "-o", e.p("ref.json"))
	if calls.Load() != 4 || strings.Count(stderr, "retrying in") != 3 || !strings.Contains(stderr, "attempt 1: HTTP 503") {
		t.Errorf("%d calls, stderr %q", calls.Load(), stderr)
	}
	checkReference(t, e.p("ref.json"), b1, e.vkey("log"), 0, 1)

	calls.Store(0)
	script = []string{"400"}
	e.fail(exitInput, "HTTP 400", "log", "add", "--server", fake.URL, "--log-key", e.p("log.vkey"), b1, "-o", e.p("ref2.json"))
	if calls.Load() != 1 {
		t.Errorf("a 400 was retried: %d calls", calls.Load())
	}
	calls.Store(0)
	script = []string{"503", "503", "503"}
	e.fail(exitInput, "giving up after 3 attempts", "log", "add", "--server", fake.URL, "--log-key", e.p("log.vkey"), "--attempts", "3", b1, "-o", e.p("ref2.json"))
	calls.Store(0)
	script = []string{"garbage"}
	e.fail(exitInput, "the log server's answer: transparency reference", "log", "add", "--server", fake.URL, "--log-key", e.p("log.vkey"), b1, "-o", e.p("ref2.json"))
	if fileExists(e.p("ref2.json")) {
		t.Error("a reference was written for a bad answer")
	}
	// --log-key: an answer signed by another log is refused.
	calls.Store(0)
	script = nil
	e.fail(exitInput, "the log server's answer", "log", "add", "--server", fake.URL, "--log-key", e.p("other-log.vkey"), b1, "-o", e.p("ref3.json"))
}

// realServer serves the log in dir (signed by the key in keyFile) with
// the log service's handler, in process, on 127.0.0.1.
func realServer(t *testing.T, dir, keyFile string, token string) http.Handler {
	t.Helper()
	signer, err := signednote.ParseLogSigner(strings.TrimSpace(string(mustRead(t, keyFile))))
	if err != nil {
		t.Fatal(err)
	}
	store := posix.New(dir)
	lg := tlog.Open(store, signer.Verifier())
	ap, err := lg.NewAppender(context.Background(), signer, tlog.AppenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ap.Close(context.Background()) })
	return server.New(server.Config{Log: lg, Storage: store, Appender: ap, Admit: server.AdmitEvidence(nil), Token: token})
}

// TestCLISubmitHostileServer: a log server cannot make 'log add --server'
// write a reference that does not verify, follow it elsewhere with the
// token, or get the token over plain HTTP: --log-key is required; a log
// signed by another key with the log's origin is refused; an answer with a
// wrong or missing digest or an extra member is refused; a redirect (to
// another loopback port) is an error naming it, and the other port gets
// nothing. Nothing is written for any of them. Control: the honest server's
// answer is written, the reference a local add writes.
func TestCLISubmitHostileServer(t *testing.T) {
	e := newLogEnv(t)
	b1 := exampleBundleFile(t, e.dir)
	out := e.p("ref.json")
	noOutput := func(what string) {
		t.Helper()
		if fileExists(out) {
			t.Fatalf("%s: a reference was written", what)
		}
	}
	// An impostor: a real log whose key carries the log's origin.
	impDir := e.p("impostor")
	e.run("log", "init", "--dir", impDir, "--key", e.p("other-log.key"))
	impostor := httptest.NewServer(realServer(t, impDir, e.p("other-log.key"), ""))
	defer impostor.Close()
	e.fail(exitInput, "--log-key is required with --server", "log", "add", "--server", impostor.URL, b1, "-o", out)
	noOutput("without --log-key")
	e.fail(exitInput, "the log server's answer", "log", "add", "--server", impostor.URL, "--log-key", e.p("log.vkey"), b1, "-o", out)
	noOutput("the impostor")

	dir := e.initLog("log")
	honest := realServer(t, dir, e.p("log.key"), "test-only-token")
	var edit func([]byte) []byte
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		honest.ServeHTTP(rec, r)
		mu.Lock()
		f := edit
		mu.Unlock()
		body := rec.Body.Bytes()
		if f != nil && rec.Code == 200 {
			body = f(body)
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	defer srv.Close()
	t.Setenv(logTokenEnv, "test-only-token")
	digest := regexp.MustCompile(`"inclusionProofSha256": "[0-9a-f]{64}"`)
	for _, tt := range []struct {
		name, want string
		edit       func([]byte) []byte
	}{
		{"a wrong digest", "inclusionProofSha256 is not the SHA-256", func(b []byte) []byte {
			return digest.ReplaceAll(b, []byte(`"inclusionProofSha256": "`+strings.Repeat("0", 64)+`"`))
		}},
		{"no digest", "no inclusionProofSha256", func(b []byte) []byte {
			return regexp.MustCompile(`,\s*"inclusionProofSha256": "[0-9a-f]{64}"`).ReplaceAll(b, nil)
		}},
		{"an extra member", `unknown member "witnessed"`, func(b []byte) []byte {
			return bytes.Replace(b, []byte("{"), []byte(`{"witnessed": true,`), 1)
		}},
	} {
		mu.Lock()
		edit = tt.edit
		mu.Unlock()
		e.fail(exitInput, tt.want, "log", "add", "--server", srv.URL, "--log-key", e.p("log.vkey"), b1, "-o", out)
		noOutput(tt.name)
	}
	mu.Lock()
	edit = nil
	mu.Unlock()

	// A redirect to another port of the same host: refused, and that
	// port receives nothing (the token least of all).
	var otherRequests atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherRequests.Add(1)
		honest.ServeHTTP(w, r)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/add", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	e.fail(exitInput, "a redirect to "+other.URL+"/add", "log", "add", "--server", redirect.URL, "--log-key", e.p("log.vkey"), b1, "-o", out)
	noOutput("the redirect")
	if otherRequests.Load() != 0 {
		t.Fatalf("the redirect's target got %d requests", otherRequests.Load())
	}
	// The token over plain HTTP to a host that is not loopback: refused
	// before anything is sent (no connection is attempted).
	e.fail(exitInput, "never sent over plain HTTP", "log", "add", "--server", "http://192.0.2.1:8080", "--log-key", e.p("log.vkey"), b1, "-o", out)
	noOutput("plain HTTP")

	// Control: the honest answer is written, as a local add writes it.
	e.run("log", "add", "--server", srv.URL, "--log-key", e.p("log.vkey"), b1, "-o", out)
	checkReference(t, out, b1, e.vkey("log"), 0, 1)
	local, _ := e.run("log", "proof", "--dir", dir, "--index", "0")
	if local != string(mustRead(t, out)) {
		t.Errorf("the reference differs from the local one:\n%s\n%s", mustRead(t, out), local)
	}
}

// TestCLILogAttestedWrapper: an attested bundle is logged only when its
// whole wrapper verifies (signatures included; the claim is not judged):
// 'log add' refuses a garbage signature, a signature by another key, an
// envelope over another bundle and a schema-invalid wrapper with exit 1,
// and POST /add answers them 422 with the attested bundle's result; the
// bundle inside each is logged alone (the wrapper is at fault), and a
// valid wrapper claiming WITNESSED is logged.
func TestCLILogAttestedWrapper(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	served := e.initLog("served")
	srv := httptest.NewServer(realServer(t, served, e.p("log.key"), ""))
	defer srv.Close()
	key := writeTestKey(t, e.dir, "one.pem", attesttest.TestOnlyKeyOne())
	b1 := exampleBundleFile(t, e.dir)
	e.run(signArgs(b1, key, attesttest.IdentityOne, e.p("signed.json"))...)
	schemaBad := readJSON(t, e.p("signed.json"))
	schemaBad.Get("authenticity").Set("comment", canonjson.NewString("not in the schema"))
	writePretty(t, e.dir, "schema-invalid.json", schemaBad)
	garbage := readJSON(t, e.p("signed.json"))
	garbage.Path("authenticity", "envelopes").Items[0].Get("signatures").Items[0].Set("sig", canonjson.NewString(strings.Repeat("A", 86)+"=="))
	writePretty(t, e.dir, "garbage-signature.json", garbage)
	for _, tt := range []struct{ file, code string }{
		{e.p("garbage-signature.json"), "MCP_RES_ATTESTATION_SIGNATURE_INVALID"},
		{e.p("schema-invalid.json"), "MCP_RES_ATTESTATION_SCHEMA_INVALID"},
		{filepath.Join(attestFixtures, "wrong-key.json"), ""},
		{filepath.Join(attestFixtures, "altered-payload.json"), ""},
		{filepath.Join(attestFixtures, "signature-over-different-bundle.json"), ""},
	} {
		stdout, stderr, code := runLogCLI(t, "log", "add", "--dir", dir, "--key", e.p("log.key"), tt.file, "-o", e.p("x.ref.json"))
		if code != exitInvalid || !strings.Contains(stderr, "refusing to log invalid evidence") || !strings.Contains(stdout, "INVALID "+tt.code) || fileExists(e.p("x.ref.json")) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %s", tt.file, code, stdout, stderr, tt.code)
		}
		resp, err := http.Post(srv.URL+"/add", "application/json", bytes.NewReader(mustRead(t, tt.file)))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !bytes.Contains(answer, []byte(`"evaluation":`)) || !bytes.Contains(answer, []byte(tt.code)) {
			t.Errorf("%s: POST /add %d %s", tt.file, resp.StatusCode, answer)
		}
		// Control: the bundle inside is valid evidence, logged alone.
		inner := writePretty(t, e.dir, "inner.json", readJSON(t, tt.file).Get("bundle"))
		e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), inner, "-o", e.p("inner.ref.json"), "--force")
	}
	if n := readCheckpointSize(t, dir, e.vkey("log")); n != 1 {
		t.Fatalf("log size %d, want 1 (every wrapper here holds the example bundle)", n)
	}
	// A valid wrapper whose claim (WITNESSED) needs a policy is logged,
	// as its bundle and the signers of its envelopes (a v2 entry each).
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), filepath.Join(attestFixtures, "witnessed.json"), "-o", e.p("w.ref.json"))
	checkReference(t, e.p("w.ref.json"), filepath.Join(attestFixtures, "witnessed.json"), e.vkey("log"), 1, 2)
	e.run("log", "add", "--server", srv.URL, "--log-key", e.p("log.vkey"), e.p("signed.json"), "-o", e.p("s.ref.json"))
	checkReference(t, e.p("s.ref.json"), e.p("signed.json"), e.vkey("log"), 0, 1)
}

// distinctBundles writes n distinct valid bundles (the example run on
// n operating systems) and returns their bytes.
func distinctBundles(t testing.TB, n int) [][]byte {
	t.Helper()
	base := bundletest.Example(t)
	out := make([][]byte, n)
	for i := range out {
		v := base.Clone()
		v.Path("evidence", "run", "environment").Get("os").Str = fmt.Sprintf("crash-test-os-%d", i)
		if err := bundle.SealFrom(v, bundle.StageEvidence); err != nil {
			t.Fatal(err)
		}
		data, err := canonjson.Pretty(v)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = data
	}
	return out
}

// ack is an acknowledged submission: the reference's entry index and
// proof bytes.
type ack struct {
	body  []byte
	index string
	proof []byte
}

// crashTest kills a log server with SIGKILL in the middle of a burst of
// submissions, restarts it, and checks that every acknowledged submission
// is in the log at its index with a proof that verifies, that the tree is
// consistent with every checkpoint served before the kill, and that
// Tessera's fsck finds nothing wrong. serveArgs select the storage; store
// reads it afterwards.
func crashTest(t *testing.T, e *logEnv, serveArgs []string, store tlog.Storage) {
	bin := buildBinary(t)
	bodies := distinctBundles(t, 400)
	srv := startServe(t, bin, serveArgs...)
	v, err := signednote.ParseLogVerifier(e.vkey("log"))
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu          sync.Mutex
		acks        []ack
		checkpoints [][]byte
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Readers record every checkpoint served.
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			resp, err := http.Get(srv.url + "/checkpoint")
			if err != nil {
				continue
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				mu.Lock()
				checkpoints = append(checkpoints, data)
				mu.Unlock()
			}
		}
	})
	wg.Go(func() {
		postAll(srv.url, bodies, func(i, status int, answer []byte) {
			if status != 200 {
				return
			}
			ref, err := canonjson.Parse(answer)
			if err != nil {
				t.Errorf("answer: %v", err)
				return
			}
			pb, _ := base64.StdEncoding.DecodeString(ref.Get("inclusionProofBase64").Str)
			mu.Lock()
			acks = append(acks, ack{bodies[i], ref.Get("entryUuid").Str, pb})
			n := len(acks)
			mu.Unlock()
			if n == 60 {
				srv.cmd.Process.Kill() // SIGKILL, mid-burst
			}
		})
	})
	deadline := time.AfterFunc(2*time.Minute, func() { srv.cmd.Process.Kill() })
	<-srv.exited
	deadline.Stop()
	close(stop)
	wg.Wait()
	if len(acks) < 60 {
		t.Fatalf("only %d acknowledged submissions before the kill:\n%s", len(acks), srv.log())
	}
	t.Logf("%d acknowledged, %d checkpoints seen before SIGKILL", len(acks), len(checkpoints))

	// Restart: every acknowledged submission is answered at its index.
	srv2 := startServe(t, bin, serveArgs...)
	for _, a := range acks[:20] {
		resp, err := http.Post(srv2.url+"/add", "application/json", bytes.NewReader(a.body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ref, err := canonjson.Parse(answer)
		if resp.StatusCode != 200 || err != nil || ref.Get("entryUuid").Str != a.index || resp.Header.Get("Mcpres-Existing") != "true" {
			t.Fatalf("resubmitted entry %s after the restart: %d %s", a.index, resp.StatusCode, answer)
		}
	}
	if err := srv2.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM after the restart: %v", err)
	}

	checkLogHolds(t, store, v, acks, checkpoints)
}

// checkLogHolds checks the log in store against what its servers said:
// every acknowledged proof verifies, the log proves each entry again at
// its index, no entry was acknowledged for two bundles, every served
// checkpoint is no larger than the final one, the same tree at the same
// size and consistent with it, and Tessera's fsck passes. It returns the
// final checkpoint.
func checkLogHolds(t *testing.T, store interface {
	tlog.Storage
	fsck.Fetcher
}, v *signednote.Verifier, acks []ack, checkpoints [][]byte) *signednote.Checkpoint {
	t.Helper()
	ctx := context.Background()
	lg := tlog.Open(store, v)
	final, err := lg.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	trust := offline.Trust{Logs: []offline.Log{{Origin: v.Name(), Key: v}}}
	seen := map[string]bool{}
	for _, a := range acks {
		doc, _ := canonjson.Parse(a.body)
		want := offline.EntryFor(doc)
		if _, err := offline.VerifyClaimed(a.proof, want, offline.Claim{LogID: v.Name(), EntryUUID: a.index}, trust); err != nil {
			t.Fatalf("acknowledged proof of entry %s: %v", a.index, err)
		}
		var idx uint64
		fmt.Sscan(a.index, &idx)
		p, err := lg.Proof(ctx, idx)
		if err != nil {
			t.Fatalf("entry %s in the final log: %v", a.index, err)
		}
		if _, err := offline.VerifyClaimed(p.Marshal(), want, offline.Claim{LogID: v.Name(), EntryUUID: a.index}, trust); err != nil {
			t.Fatalf("fresh proof of entry %s: %v", a.index, err)
		}
		if seen[a.index] {
			t.Fatalf("entry %s acknowledged for two bundles", a.index)
		}
		seen[a.index] = true
	}
	pb, err := client.NewProofBuilder(ctx, final.Size, store.ReadTile)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range checkpoints {
		cp, err := signednote.Open(data, v)
		if err != nil {
			t.Fatalf("a served checkpoint: %v", err)
		}
		switch {
		case cp.Size > final.Size:
			t.Fatalf("served size %d, now %d: the log lost entries", cp.Size, final.Size)
		case cp.Size == final.Size:
			if cp.Hash != final.Hash {
				t.Fatalf("two trees of size %d", cp.Size)
			}
			continue
		case cp.Size == 0:
			continue
		}
		cproof, err := pb.ConsistencyProof(ctx, cp.Size, final.Size)
		if err != nil {
			t.Fatal(err)
		}
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, cp.Size, final.Size, cproof, cp.Hash[:], final.Hash[:]); err != nil {
			t.Fatalf("served checkpoint of size %d is not consistent with size %d: %v", cp.Size, final.Size, err)
		}
	}
	f := fsck.New(v.Name(), v, store, leafHashes, fsck.Opts{N: 2})
	if err := f.Check(ctx); err != nil {
		t.Fatalf("fsck: %v\n%s", err, f.Status())
	}
	return final
}

// leafHashes is fsck's bundle hasher for tlog-tiles entry bundles.
func leafHashes(raw []byte) ([][]byte, error) {
	var b api.EntryBundle
	if err := b.UnmarshalText(raw); err != nil {
		return nil, err
	}
	hs := make([][]byte, len(b.Entries))
	for i, e := range b.Entries {
		hs[i] = rfc6962.DefaultHasher.HashLeaf(e)
	}
	return hs, nil
}

// TestCLILogServeCrashPOSIX is crashTest on a POSIX log directory.
func TestCLILogServeCrashPOSIX(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	crashTest(t, e, []string{"--dir", dir, "--key", e.p("log.key")}, posix.New(dir))
}

// TestCLILogServeMySQL: a log in MariaDB, created by 'log init --mysql'
// and served by 'log serve --mysql', answers 'log add --server' with the
// same reference bytes a POSIX log gives for the same entries.
func TestCLILogServeMySQL(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	bin := buildBinary(t)
	e := newLogEnv(t)
	t.Setenv("MCPRES_TEST_LOG_DSN", dsn)
	stdout, _ := e.run("log", "init", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	if strings.TrimSpace(stdout) != e.vkey("log") {
		t.Fatalf("init printed %q", stdout)
	}
	e.fail(exitInput, "creating the log in the database", "log", "init", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	e.fail(exitInput, "is not the key of the log in the database", "log", "serve", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("other-log.key"))
	dir := e.initLog("posix")
	b1, b2 := exampleBundleFile(t, e.dir), variantBundleFile(t, e.dir)
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b1, "-o", e.p("p1.json"))
	e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), b2, "-o", e.p("p2.json"))

	srv := startServe(t, bin, "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), b1, "-o", e.p("m1.json"))
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), b2, "-o", e.p("m2.json"))
	checkReference(t, e.p("m2.json"), b2, e.vkey("log"), 1, 2)
	// The same reference as the POSIX log's for b2, and for b1 at size 2.
	if !bytes.Equal(mustRead(t, e.p("p2.json")), mustRead(t, e.p("m2.json"))) {
		t.Error("MySQL and POSIX references for the same second entry differ")
	}
	e.run("log", "add", "--server", srv.url, "--log-key", e.p("log.vkey"), b1, "-o", e.p("m1b.json"))
	p1b, _ := e.run("log", "proof", "--dir", dir, "--index", "0")
	if p1b != string(mustRead(t, e.p("m1b.json"))) {
		t.Error("MySQL and POSIX references for the first entry at size 2 differ")
	}
	for _, path := range []string{"/tile/0/000.p/2", "/tile/entries/000.p/2", "/tile/entries/000.p/1"} {
		resp, err := http.Get(srv.url + path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := os.ReadFile(filepath.Join(dir, path))
		if resp.StatusCode != 200 || !bytes.Equal(got, want) {
			t.Errorf("%s: %d, differs from the POSIX log's", path, resp.StatusCode)
		}
	}
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// TestCLILogServeCrashMySQL is crashTest on a MariaDB log.
func TestCLILogServeCrashMySQL(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	e := newLogEnv(t)
	t.Setenv("MCPRES_TEST_LOG_DSN", dsn)
	e.run("log", "init", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key"))
	st, err := mysql.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	crashTest(t, e, []string{"--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", e.p("log.key")}, st)
}

// TestCLILogServeSIGTERM: SIGTERM during a burst finishes what was
// accepted: every submission the server took is answered 200 with a
// reference, none is dropped with an error, and the server exits 0.
func TestCLILogServeSIGTERM(t *testing.T) {
	bin := buildBinary(t)
	e := newLogEnv(t)
	dir := e.initLog("log")
	bodies := distinctBundles(t, 200)
	srv := startServe(t, bin, "--dir", dir, "--key", e.p("log.key"))
	var ok atomic.Int32
	postAll(srv.url, bodies, func(_, status int, _ []byte) {
		if status != 200 {
			t.Errorf("answered %d during shutdown", status)
		} else if ok.Add(1) == 40 {
			srv.cmd.Process.Signal(syscall.SIGTERM)
		}
	})
	if err := srv.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.log())
	}
	if ok.Load() < 40 {
		t.Fatalf("%d answered", ok.Load())
	}
	if n := readCheckpointSize(t, dir, e.vkey("log")); n != uint64(ok.Load()) {
		t.Fatalf("log size %d, %d submissions answered: the log holds entries nobody was answered for, or lost some", n, ok.Load())
	}
}

// postAll posts bodies to url's /add from 16 clients until every body is
// sent or the server stops taking connections, and calls answer, from the
// clients' goroutines, with each answered body's index, status and reply.
func postAll(url string, bodies [][]byte, answer func(i, status int, reply []byte)) {
	var next atomic.Int32
	var wg sync.WaitGroup
	hc := &http.Client{Timeout: 30 * time.Second}
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				resp, err := hc.Post(url+"/add", "application/json", bytes.NewReader(bodies[i]))
				if err != nil {
					return // the server is gone or stopped taking connections
				}
				reply, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil {
					answer(i, resp.StatusCode, reply)
				}
			}
		})
	}
	wg.Wait()
}
