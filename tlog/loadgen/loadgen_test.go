package loadgen

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:80", "http://127.1.2.3/"} {
		if err := CheckLoopback(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"http://10.0.0.1:8080", "http://example.org", "ftp://127.0.0.1/", "http://0.0.0.0:80", "http://127.0.0.1.example.org/"} {
		if err := CheckLoopback(u); err == nil {
			t.Errorf("%s: accepted", u)
		}
	}
}

// TestRunCountsAndBounds: a run stops at its request count, counts
// answers by status, and sends distinct bodies.
func TestRunCountsAndBounds(t *testing.T) {
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := seen.Add(1)
		if r.URL.Path != "/add" || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", 400)
			return
		}
		if n%10 == 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	bodies := map[string]bool{}
	r, err := Run(context.Background(), Config{URL: srv.URL, Token: "tok", Clients: 1, Requests: 50, Duration: time.Minute,
		Body: func(i int) ([]byte, error) {
			b := fmt.Sprintf("body %d", i)
			bodies[b] = true
			return []byte(b), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK != 45 || r.Failed[503] != 5 || len(bodies) != 50 || seen.Load() != 50 {
		t.Fatalf("%+v, %d bodies, %d requests", r, len(bodies), seen.Load())
	}
	if r.P50 <= 0 || r.P99 < r.P50 || r.Max < r.P99 || !strings.Contains(r.String(), "45 submissions") {
		t.Fatalf("%s", r)
	}
	// The duration bounds a run that has no request bound.
	start := time.Now()
	if _, err := Run(context.Background(), Config{URL: srv.URL, Clients: 2, Duration: 200 * time.Millisecond,
		Body: func(int) ([]byte, error) { return []byte("x"), nil }}); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the run outlived its duration")
	}
	if _, err := Run(context.Background(), Config{URL: "http://192.0.2.1/", Body: func(int) ([]byte, error) { return nil, nil }}); err == nil {
		t.Fatal("ran against a non-loopback server")
	}
}

// TestRunNoRedirects: a redirect is counted as a failure and not
// followed, so the token stays with the server it was meant for.
func TestRunNoRedirects(t *testing.T) {
	var other atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { other.Add(1) }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/add", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Config{URL: srv.URL, Token: "tok", Clients: 1, Requests: 3, Duration: time.Minute,
		Body: func(int) ([]byte, error) { return []byte("x"), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK != 0 || r.Failed[http.StatusTemporaryRedirect] != 3 || other.Load() != 0 {
		t.Fatalf("%+v; the redirect target got %d requests", r, other.Load())
	}
}

// TestRunPrepares: the prepared submissions are all made before the first
// is sent, and sent first, in order; the rest are made as they are sent.
func TestRunPrepares(t *testing.T) {
	var seen atomic.Int32
	var order []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		order = append(order, string(b))
		mu.Unlock()
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	var early, late atomic.Int32
	r, err := Run(context.Background(), Config{URL: srv.URL, Clients: 1, Requests: 30, Prepare: 20, Duration: time.Minute,
		Body: func(i int) ([]byte, error) {
			if seen.Load() == 0 {
				early.Add(1)
			} else {
				late.Add(1)
			}
			return fmt.Appendf(nil, "body %d", i), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK != 30 || early.Load() != 20 || late.Load() != 10 {
		t.Fatalf("%d answered; %d bodies made before the first request, %d during, want 20 and 10", r.OK, early.Load(), late.Load())
	}
	for i, b := range order {
		if b != fmt.Sprintf("body %d", i) {
			t.Fatalf("request %d sent %q", i, b)
		}
	}
	// A body that cannot be made fails the run before anything is sent.
	if _, err := Run(context.Background(), Config{URL: srv.URL, Requests: 5, Prepare: 5, Duration: time.Minute,
		Body: func(int) ([]byte, error) { return nil, fmt.Errorf("no bundle") }}); err == nil || seen.Load() != 30 {
		t.Fatalf("a failing preparation: %v, %d requests", err, seen.Load())
	}
}
