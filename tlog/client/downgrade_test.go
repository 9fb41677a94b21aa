package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/offline/offlinetest"
)

// TestNoDowngrade: an https server that redirects to plain http (another
// loopback port) gets an error naming the http URL, and the http server
// receives nothing, so the token never crosses in the clear. (An internal
// test: the client is given the test server's certificate.)
func TestNoDowngrade(t *testing.T) {
	var plainRequests atomic.Int32
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { plainRequests.Add(1) }))
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/add", http.StatusTemporaryRedirect)
	}))
	defer tlsSrv.Close()
	c, err := New(tlsSrv.URL, Options{Token: "test-only-token"})
	if err != nil {
		t.Fatal(err)
	}
	c.hc.Transport.(*http.Transport).TLSClientConfig = tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig
	l := offlinetest.NewLog("example.org/downgrade-test", "log")
	_, err = c.Submit(context.Background(), []byte("{}"), offline.Entry{}, offlinetest.Trust([]*offlinetest.Log{l}, nil, nil, ""))
	var re *RedirectError
	if !errors.As(err, &re) || re.Location != plain.URL+"/add" {
		t.Fatalf("%v, want a *RedirectError to %s/add", err, plain.URL)
	}
	if plainRequests.Load() != 0 {
		t.Fatalf("the plain-HTTP server got %d requests", plainRequests.Load())
	}
}
