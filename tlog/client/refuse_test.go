package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/tlog/client"
)

// New refuses a URL that is not a base URL of a log service: another
// scheme, no host, user information, a query, a fragment, an opaque URL,
// one that does not parse; and fewer than one attempt. The control is an
// https URL with a path.
func TestNewRefuses(t *testing.T) {
	for _, u := range []string{
		"ftp://log.example/", "https://", "https://:443/", "https://u@log.example/", "https://log.example/?x=1",
		"https://log.example/?", "https://log.example/#f", "https:log.example", "https://log.example/%zz",
	} {
		if c, err := client.New(u, client.Options{}); err == nil || c != nil {
			t.Errorf("New(%q): %v", u, err)
		}
	}
	if _, err := client.New("https://log.example/", client.Options{Attempts: -1}); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("-1 attempts: %v", err)
	}
	c, err := client.New("https://log.example/v1/", client.Options{})
	if err != nil || c.URL() != "https://log.example/v1/add" {
		t.Errorf("control: %v, %v", c, err)
	}
	if _, err := client.New("http://localhost:8080", client.Options{Token: "t"}); err != nil {
		t.Errorf("control, a token to localhost over http: %v", err)
	}
}

// Submit refuses to send what it could not verify: a trust without a log
// (a reference is never written unverified) and a trust that does not
// check; a context that ends while a busy server is retried gives up with
// the context's error and the last failure.
func TestSubmitRefuses(t *testing.T) {
	l := newTestLog(t)
	srv, n := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	c := newClient(t, srv.URL, client.Options{Attempts: 3})
	if _, err := c.Submit(context.Background(), []byte("{}"), l.entries[0], offline.Trust{}); err == nil || !strings.Contains(err.Error(), "no log key") || n.Load() != 0 {
		t.Errorf("no log in the trust: %v, %d requests", err, n.Load())
	}
	bad := l.trust()
	bad.Quorum = "no-such-group"
	if _, err := c.Submit(context.Background(), []byte("{}"), l.entries[0], bad); err == nil || n.Load() != 0 {
		t.Errorf("a trust that does not check: %v, %d requests", err, n.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	c = newClient(t, srv.URL, client.Options{Attempts: 5, OnRetry: func(int, error, time.Duration) { cancel() }})
	_, err := c.Submit(ctx, []byte("{}"), l.entries[0], l.trust())
	var ge *client.GiveUpError
	if !errors.As(err, &ge) || !errors.Is(ge.Err, context.Canceled) || ge.Attempts != 1 || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "after 1 attempt(s)") {
		t.Errorf("a context that ends: %v", err)
	}
	if errors.Unwrap(err) == nil {
		t.Error("GiveUpError does not unwrap to its last failure")
	}
}

// The error types say what the server did: a refusal quotes the answer,
// a redirect names where to (or that it named nowhere), an answer that
// does not verify unwraps to why.
func TestErrorWording(t *testing.T) {
	if s := (&client.RefusedError{Status: 401, Body: []byte(" {\"error\":\"token\"}\n")}).Error(); s != `the log server refused the submission (HTTP 401): {"error":"token"}` {
		t.Errorf("RefusedError: %s", s)
	}
	if s := (&client.RedirectError{Status: 302}).Error(); !strings.Contains(s, "a redirect to (no Location)") {
		t.Errorf("RedirectError without Location: %s", s)
	}
	cause := errors.New("proof does not verify")
	ae := &client.AnswerError{Err: cause}
	if !errors.Is(ae, cause) || ae.Error() != "the log server's answer: proof does not verify" {
		t.Errorf("AnswerError: %v", ae)
	}
}
