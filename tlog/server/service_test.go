package server_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/signednote/signednotetest"
	"github.com/mcpres/mcpres/tlog"
	"github.com/mcpres/mcpres/tlog/posix"
	"github.com/mcpres/mcpres/tlog/server"
	"github.com/mcpres/mcpres/tlog/witnessclient"
	"github.com/mcpres/mcpres/trustpolicy"
)

// syncBuffer is a log destination the test reads while the service writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestService: a Service serves its log on 127.0.0.1, admits a bundle with
// the log's rule, answers it with the transparency reference that
// verifies for the bundle's entry under the log's key, and stops when its
// context ends; a signer that is not the key the log recorded is refused
// before anything is served.
func TestService(t *testing.T) {
	s, _, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	store := posix.New(filepath.Join(t.TempDir(), "log"))
	if _, err := tlog.Open(store, s.Verifier()).Init(context.Background(), s); err != nil {
		t.Fatal(err)
	}

	// Another log's key: refused before listening.
	other, _, _ := signednotetest.LogKey(t, bytes.Repeat([]byte{0x32}, 32), testOrigin)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mismatch *tlog.KeyMismatchError
	if err := (&server.Service{Storage: store, Signer: other}).Run(context.Background(), ln); !errors.As(err, &mismatch) {
		t.Fatalf("another log's key: %v, want a *tlog.KeyMismatchError", err)
	}
	ln.Close()

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logged syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- (&server.Service{Storage: store, Signer: s, Logger: log.New(&logged, "svc: ", 0)}).Run(ctx, ln)
	}()
	b := bundletest.Example(t)
	resp, err := http.Post("http://"+ln.Addr().String()+"/add", "application/json", bytes.NewReader(compact(t, b)))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("POST /add: %d %s", resp.StatusCode, answer)
	}
	ref, proof, err := attest.ParseTransparencyReference(answer)
	if err != nil {
		t.Fatalf("the answer: %v\n%s", err, answer)
	}
	trust := offline.Trust{Logs: []offline.Log{{Origin: testOrigin, Key: s.Verifier()}}}
	if _, err := offline.VerifyClaimed(proof, offline.EntryFor(b), offline.Claim{LogID: ref.LogID, EntryUUID: ref.EntryUUID}, trust); err != nil {
		t.Errorf("the answer does not verify: %v", err)
	}
	// A second service on the same directory refuses to start: one
	// process serves a log directory.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	err = (&server.Service{Storage: posix.New(store.Dir()), Signer: s}).Run(context.Background(), ln2)
	ln2.Close()
	if !errors.Is(err, tlog.ErrServed) || !strings.Contains(err.Error(), "--mysql") {
		t.Errorf("a second service on the directory: %v, want tlog.ErrServed naming the way out", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard, not a timing
		t.Fatal("Run did not return after its context ended")
	}
	if out := logged.String(); !strings.Contains(out, "svc: serving log "+testOrigin+" on http://127.0.0.1:") || !strings.Contains(out, "stopped") {
		t.Errorf("the service's log:\n%s", out)
	}
}

// TestServiceWitnessNotFound: a witness whose URL answers 404 (here a
// 127.0.0.1 server with no tlog-witness endpoint) is logged as a warning
// naming the witness, the URL the service POSTed to and the likely cause,
// not only "404 page not found"; the submission is still answered.
func TestServiceWitnessNotFound(t *testing.T) {
	s, _, _ := signednotetest.LogKey(t, testOnlyLogSeed, testOrigin)
	store := posix.New(filepath.Join(t.TempDir(), "log"))
	if _, err := tlog.Open(store, s.Verifier()).Init(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	notWitness := httptest.NewServer(http.NotFoundHandler())
	defer notWitness.Close()
	_, wv, _ := signednotetest.WitnessKey(t, bytes.Repeat([]byte{0x33}, 32), "example.org/w404")
	pol, errs := trustpolicy.ParseTLogPolicy("log " + s.Verifier().String() + "\nwitness w404 " + wv.String() + " " + notWitness.URL + "\nquorum w404\n")
	if errs != nil {
		t.Fatal(errs)
	}
	var logged syncBuffer
	logger := log.New(&logged, "svc: ", 0)
	wg, _, err := witnessclient.NewWitnessing(witnessclient.WitnessingConfig{
		Policy: pol, PolicyName: "w.tlog", Storage: store, LogKey: s.Verifier(),
		Options: witnessclient.Options{Timeout: 5 * time.Second}, Logf: logger.Printf,
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- (&server.Service{Storage: store, Signer: s, Witnessing: wg, Logger: logger}).Run(ctx, ln)
	}()
	resp, err := http.Post("http://"+ln.Addr().String()+"/add", "application/json", bytes.NewReader(compact(t, bundletest.Example(t))))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /add: %d %s", resp.StatusCode, answer)
	}
	endpoint := notWitness.URL + "/add-checkpoint"
	want := "svc: warning: witness w404 gave no cosignature (POST " + endpoint + "): 404 Not Found: no tlog-witness endpoint at " + endpoint + " (is the policy's URL the witness's base URL?)"
	if !strings.Contains(logged.String(), want) {
		t.Errorf("log:\n%s\nwant a line starting %q", logged.String(), want)
	}
}
