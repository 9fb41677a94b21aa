package witnessclient_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/trustpolicy"
)

// lines collects what a Witnessing logs.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(format, args...))
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

func policy(t *testing.T, text string) *trustpolicy.TLogPolicy {
	t.Helper()
	p, errs := trustpolicy.ParseTLogPolicy(text)
	if errs != nil {
		t.Fatalf("%q: %v", text, errs)
	}
	return p
}

func newWitnessing(t *testing.T, f *fixture, text string, out *lines) *witnessclient.Witnessing {
	t.Helper()
	w, warnings, err := witnessclient.NewWitnessing(witnessclient.WitnessingConfig{
		Policy: policy(t, text), PolicyName: "w.tlog", Storage: posix.New(f.dir), LogKey: f.logKey,
		Options: witnessclient.Options{Timeout: 5 * time.Second}, Logf: out.logf,
	})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("NewWitnessing: %v, warnings %q", err, warnings)
	}
	return w
}

// TestNewWitnessing: a policy that does not list the log's key, and a
// witness without a URL, are warnings naming the policy; a policy with no
// witness to ask is an error. Control: a policy that lists the log and
// gives every witness a URL has no warning.
func TestNewWitnessing(t *testing.T) {
	f := newLog(t)
	_, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	_, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	_, otherLog, _ := signednotetest.LogKey(t, signednotetest.Seed(0x54), "example.org/other-log")
	cfg := func(text string) witnessclient.WitnessingConfig {
		return witnessclient.WitnessingConfig{Policy: policy(t, text), PolicyName: "w.tlog", Storage: posix.New(f.dir), LogKey: f.logKey}
	}
	w, warnings, err := witnessclient.NewWitnessing(cfg(fmt.Sprintf("log %s\nwitness w1 %s http://127.0.0.1:1\nwitness w2 %s\nquorum w1\n", otherLog, w1v, w2v)))
	want := []string{
		"witness policy w.tlog does not list this log's key " + f.logKey.String() + ": a verifier using it will not trust this log",
		`witness policy w.tlog: witness "w2" has no URL: not asked`,
	}
	if err != nil || w == nil || strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("unlisted log, a witness without URL: %v, warnings\n%s\nwant\n%s", err, strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	_, _, err = witnessclient.NewWitnessing(cfg(fmt.Sprintf("log %s\nwitness w2 %s\nquorum w2\n", f.logKey, w2v)))
	if err == nil || err.Error() != "witness policy w.tlog has no witness with a URL to ask" {
		t.Errorf("no witness with a URL: %v", err)
	}
	w, warnings, err = witnessclient.NewWitnessing(cfg(fmt.Sprintf("log %s\nwitness w1 %s http://127.0.0.1:1\nquorum w1\n", f.logKey, w1v)))
	if err != nil || w == nil || len(warnings) != 0 {
		t.Errorf("control: %v, warnings %q", err, warnings)
	}
}

// TestWitnessingRound: a round attaches what the witnesses that answer
// give, logs a warning for the one that is down and the round's account;
// the next round asks only the witness missing from the checkpoint.
func TestWitnessingRound(t *testing.T) {
	f := newLog(t)
	f.add(t, "a")
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	_, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	up, _ := startWitness(t, f, w1)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	var out lines
	w := newWitnessing(t, f, fmt.Sprintf("log %s\nwitness up %s %s\nwitness down %s %s\nquorum up\n", f.logKey, w1v, up.URL, w2v, down.URL), &out)
	if err := w.Hint(ctx(t), f.log); err != nil {
		t.Fatal(err)
	}
	cp, err := w.Round(ctx(t), f.log)
	if err != nil {
		t.Fatal(err)
	}
	if got := cosigners(t, f, cp, w1v, w2v); strings.Join(got, ",") != "example.org/w1" {
		t.Errorf("cosigned by %v, want example.org/w1", got)
	}
	log := out.String()
	if !strings.Contains(log, "warning: witness down gave no cosignature (POST "+down.URL+"/add-checkpoint): ") ||
		!strings.Contains(log, "checkpoint of example.org/witnessclient-test-log at size 1: cosigned by 1 of 2 witness(es) asked (up)") {
		t.Errorf("log:\n%s", log)
	}
	if _, err := w.Round(ctx(t), f.log); err != nil {
		t.Fatal(err)
	}
	if log := out.String(); !strings.Contains(log, "cosigned by 0 of 1 witness(es) asked (none); already cosigned by up") {
		t.Errorf("second round, log:\n%s", log)
	}
}

// TestWitnessingAppender: as the appender's option, every proof Add
// returns carries the cosignatures of the witnesses that answered; Again
// asks a witness that was down once it is back and returns a fresh proof
// that carries its cosignature (Existing). Control: Again with a proof
// whose checkpoint has every cosignature returns it and asks nobody.
func TestWitnessingAppender(t *testing.T) {
	f := newLog(t)
	w1, w1v := cosigner(t, testOnlyWitnessSeed, "example.org/w1")
	w2, w2v := cosigner(t, testOnlyWitness2Seed, "example.org/w2")
	s1, _ := startWitness(t, f, w1)
	s2, _ := startWitness(t, f, w2)
	var down atomic.Bool
	var posts2 atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts2.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
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
	t.Cleanup(flaky.Close)
	var out lines
	w := newWitnessing(t, f, fmt.Sprintf("log %s\nwitness w1 %s %s\nwitness w2 %s %s\nquorum w1\n", f.logKey, w1v, s1.URL, w2v, flaky.URL), &out)
	if err := w.Hint(ctx(t), f.log); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	ap, err := f.log.NewAppender(ctx(t), f.logSigner, w.AppenderOptions(tlog.AppenderOptions{}, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer ap.Close(ctx(t))
	p, err := ap.Add(ctx(t), []byte("entry"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cosigners(t, f, p.Checkpoint, w1v, w2v); strings.Join(got, ",") != "example.org/w1" {
		t.Fatalf("while w2 is down, cosigned by %v", got)
	}
	down.Store(false)
	np, err := w.Again(ctx(t), ap, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := cosigners(t, f, np.Checkpoint, w1v, w2v); strings.Join(got, ",") != "example.org/w1,example.org/w2" || !np.Existing || np.Index != p.Index {
		t.Errorf("again: cosigned by %v, existing %v, index %d", got, np.Existing, np.Index)
	}
	if log := out.String(); !strings.Contains(log, "again, for an entry already logged: checkpoint of example.org/witnessclient-test-log at size 1: cosigned by 1 of 1 witness(es) asked (w2); already cosigned by w1") {
		t.Errorf("log:\n%s", log)
	}
	before := posts2.Load()
	same, err := w.Again(ctx(t), ap, np)
	if err != nil || same != np || posts2.Load() != before {
		t.Errorf("control: Again with every cosignature: %v, same proof %v, %d requests to w2 (was %d)", err, same == np, posts2.Load(), before)
	}
}
