package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/signednote"
	"github.com/mcpres/mcpres/tlog/mysql"
	"github.com/mcpres/mcpres/tlog/mysql/mysqltest"
	"github.com/mcpres/mcpres/witness"
	flog "github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/formats/proof"
	"golang.org/x/mod/sumdb/note"
)

// witnessCounter is a reverse proxy in front of a witness that counts the
// checkpoints the witness cosigned (200 answers), per checkpoint text.
type witnessCounter struct {
	srv *httptest.Server
	mu  sync.Mutex
	n   map[string]int
}

func newWitnessCounter(t *testing.T, target string) *witnessCounter {
	t.Helper()
	wc := &witnessCounter{n: map[string]int{}}
	wc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp, err := http.Post(target+r.URL.Path, r.Header.Get("Content-Type"), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK {
			if req, err := witness.ParseAddRequest(body); err == nil {
				text, _, _ := strings.Cut(string(req.Checkpoint), "\n\n")
				wc.mu.Lock()
				wc.n[text]++
				wc.mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		w.Write(answer)
	}))
	t.Cleanup(wc.srv.Close)
	return wc
}

// cosigned returns how many times each checkpoint was cosigned.
func (wc *witnessCounter) cosigned() map[string]int {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	out := map[string]int{}
	for k, v := range wc.n {
		out[k] = v
	}
	return out
}

// frontendAnswer is one frontend's answer to a submission.
type frontendAnswer struct {
	status   int
	index    string
	existing bool
	proof    []byte
}

func postBundle(hc *http.Client, url string, body []byte) (frontendAnswer, error) {
	resp, err := hc.Post(url+"/add", "application/json", bytes.NewReader(body))
	if err != nil {
		return frontendAnswer{}, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return frontendAnswer{}, err
	}
	a := frontendAnswer{status: resp.StatusCode, existing: resp.Header.Get("Mcpres-Existing") == "true"}
	if resp.StatusCode == http.StatusOK {
		ref, err := canonjson.Parse(answer)
		if err != nil {
			return a, fmt.Errorf("answer: %v", err)
		}
		a.index = ref.Get("entryUuid").Str
		a.proof, _ = base64.StdEncoding.DecodeString(ref.Get("inclusionProofBase64").Str)
	}
	return a, nil
}

// TestCLILogServeFrontendsMySQL: two 'log serve --mysql' processes on one
// MariaDB database serve one log, as frontends behind a load balancer.
// The same bundle sent to both at once gets one entry, and both answer
// with it; the witness is asked once per checkpoint, not once per
// frontend, and every reference from either frontend carries its
// cosignature; both serve the same checkpoint. Then one frontend is killed
// with SIGKILL in the middle of a burst: the other goes on, what the
// killed one did not answer is sent to the other, and at the end every
// acknowledged entry is in the log at its index, the log holds each
// bundle exactly once, every checkpoint either frontend served is
// consistent with the final one, and Tessera's fsck finds nothing wrong.
func TestCLILogServeFrontendsMySQL(t *testing.T) {
	dsn := mysqltest.NewDatabase(t)
	bin := buildBinary(t)
	e := newLogEnv(t)
	p := e.p
	t.Setenv("MCPRES_TEST_LOG_DSN", dsn)
	e.run("log", "init", "--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", p("log.key"))
	runExpect(t, 0, "witness", "keygen", "--name", "example.org/witness-one", "--out-base", p("wone"))
	wURL, _ := startWitnessServeStop(t, "--key", p("wone.key"), "--state", p("w-state"), "--log", p("log.vkey"))
	counter := newWitnessCounter(t, wURL)
	pol := p("witnesses.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("wone.vkey"), "--url", counter.srv.URL)
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "w1")
	args := []string{"--mysql", "env:MCPRES_TEST_LOG_DSN", "--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "5s"}
	fa, fb := startServe(t, bin, args...), startServe(t, bin, args...)
	urls := []string{fa.url, fb.url}
	v, err := signednote.ParseLogVerifier(e.vkey("log"))
	if err != nil {
		t.Fatal(err)
	}
	wv, err := fnote.NewVerifierForCosignatureV1(mustReadString(t, p("wone.vkey")))
	if err != nil {
		t.Fatal(err)
	}
	lv, _ := note.NewVerifier(e.vkey("log"))
	hc := &http.Client{Timeout: time.Minute}
	bodies := distinctBundles(t, 200)

	var (
		mu          sync.Mutex
		acks        = map[int]ack{} // by body
		checkpoints [][]byte
	)
	record := func(i int, a frontendAnswer) {
		mu.Lock()
		defer mu.Unlock()
		if prev, ok := acks[i]; ok && prev.index != a.index {
			t.Errorf("bundle %d answered as entry %s and as entry %s", i, prev.index, a.index)
		}
		acks[i] = ack{bodies[i], a.index, a.proof}
		if tp := new(proof.TLogProof); tp.Unmarshal(a.proof) == nil {
			checkpoints = append(checkpoints, tp.Checkpoint)
		}
	}
	// checkCosigned: the reference's checkpoint carries the witness's
	// cosignature, whichever frontend answered.
	checkCosigned := func(i int, a frontendAnswer, from string) {
		var tp proof.TLogProof
		if err := tp.Unmarshal(a.proof); err != nil {
			t.Fatalf("bundle %d from %s: %v", i, from, err)
		}
		_, _, n, err := flog.ParseCheckpoint(tp.Checkpoint, v.Name(), lv, wv)
		if err != nil || len(n.Sigs) != 2 {
			t.Errorf("bundle %d from %s: the reference's checkpoint is not cosigned by the witness (%v):\n%s", i, from, err, tp.Checkpoint)
		}
	}

	// 1. The same bundle to both frontends at once: one entry, both answer
	// with it.
	for i := range 20 {
		var answers [2]frontendAnswer
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j, u := range urls {
			wg.Go(func() {
				<-start
				a, err := postBundle(hc, u, bodies[i])
				if err != nil || a.status != http.StatusOK {
					t.Errorf("bundle %d to frontend %d: %d %v", i, j, a.status, err)
				}
				answers[j] = a
			})
		}
		close(start)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		if answers[0].index != answers[1].index || answers[0].existing == answers[1].existing {
			t.Fatalf("bundle %d sent to both frontends at once: entries %s (existing %v) and %s (existing %v); want one entry, new for one answer only",
				i, answers[0].index, answers[0].existing, answers[1].index, answers[1].existing)
		}
		for j, a := range answers {
			record(i, a)
			checkCosigned(i, a, urls[j])
		}
	}
	// 2. Distinct bundles split across the frontends.
	var next atomic.Int32
	next.Store(20)
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= 60 {
					return
				}
				a, err := postBundle(hc, urls[(i+c)%2], bodies[i])
				if err != nil || a.status != http.StatusOK {
					t.Errorf("bundle %d: %d %v", i, a.status, err)
					return
				}
				record(i, a)
				checkCosigned(i, a, urls[(i+c)%2])
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Witnessed once per checkpoint, by one of the frontends.
	cosigned := counter.cosigned()
	for text, n := range cosigned {
		if n != 1 {
			t.Errorf("the witness cosigned this checkpoint %d times (once per frontend?):\n%s", n, text)
		}
	}
	if len(cosigned) < 2 {
		t.Errorf("%d checkpoints cosigned", len(cosigned))
	}
	// Both frontends serve the same, cosigned checkpoint.
	var served [2][]byte
	for j, u := range urls {
		resp, err := http.Get(u + "/checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		served[j], _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if !bytes.Equal(served[0], served[1]) {
		t.Errorf("the frontends serve different checkpoints:\n%s\n%s", served[0], served[1])
	}
	if _, _, n, err := flog.ParseCheckpoint(served[0], v.Name(), lv, wv); err != nil || len(n.Sigs) != 2 {
		t.Errorf("the served checkpoint is not cosigned (%v):\n%s", err, served[0])
	}

	// 3. A burst across both; frontend A is killed mid-burst. What A did
	// not answer is sent to B, as a load balancer's retry would.
	next.Store(60)
	var killed atomic.Bool
	var unanswered []int
	for c := range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bodies) {
					return
				}
				j := (i + c) % 2
				if killed.Load() {
					j = 1
				}
				a, err := postBundle(hc, urls[j], bodies[i])
				if j == 0 && (err != nil || a.status != http.StatusOK) && killed.Load() {
					mu.Lock()
					unanswered = append(unanswered, i)
					mu.Unlock()
					continue
				}
				if err != nil || a.status != http.StatusOK {
					t.Errorf("bundle %d to frontend %d: %d %v", i, j, a.status, err)
					return
				}
				record(i, a)
				mu.Lock()
				n := len(acks)
				mu.Unlock()
				if n == 100 && killed.CompareAndSwap(false, true) {
					fa.cmd.Process.Kill() // SIGKILL, mid-burst
				}
			}
		})
	}
	wg.Wait()
	<-fa.exited
	if !killed.Load() {
		t.Fatal("frontend A was never killed")
	}
	for _, i := range unanswered {
		a, err := postBundle(hc, fb.url, bodies[i])
		if err != nil || a.status != http.StatusOK {
			t.Fatalf("bundle %d, unanswered by the killed frontend, to the other: %d %v", i, a.status, err)
		}
		record(i, a)
	}
	if t.Failed() {
		t.FailNow()
	}
	if err := fb.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("frontend B after the burst: %v\n%s", err, fb.log())
	}
	t.Logf("%d unanswered by the killed frontend, resent to the other", len(unanswered))

	// The one log: every bundle once, every acknowledged entry at its
	// index, every checkpoint consistent with the final one.
	if len(acks) != len(bodies) {
		t.Fatalf("%d of %d bundles acknowledged", len(acks), len(bodies))
	}
	st, err := mysql.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	final := checkLogHolds(t, st, v, slices.Collect(maps.Values(acks)), checkpoints)
	if final.Size != uint64(len(bodies)) {
		t.Fatalf("log size %d for %d distinct bundles: a bundle was appended twice, or an entry was lost", final.Size, len(bodies))
	}
}

func mustReadString(t *testing.T, path string) string {
	t.Helper()
	return strings.TrimSpace(string(mustRead(t, path)))
}
