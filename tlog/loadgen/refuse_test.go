package loadgen

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Run refuses a run without a Body, and stops with the Body's error, not
// a result, when a submission cannot be made (while preparing, and while
// running); the control runs with a Body that works.
func TestRunRefuses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer srv.Close()
	ctx := context.Background()
	if _, err := Run(ctx, Config{URL: srv.URL, Requests: 1}); err == nil || !strings.Contains(err.Error(), "no Body") {
		t.Errorf("no Body: %v", err)
	}
	if _, err := Run(ctx, Config{URL: "http://10.1.2.3/", Requests: 1, Body: func(int) ([]byte, error) { return nil, nil }}); err == nil {
		t.Error("a server off the loopback interface was driven")
	}
	errBody := errors.New("cannot seal")
	failAt := func(n int) func(int) ([]byte, error) {
		return func(i int) ([]byte, error) {
			if i >= n {
				return nil, errBody
			}
			return []byte("{}"), nil
		}
	}
	for _, prepare := range []int{0, 5} {
		if _, err := Run(ctx, Config{URL: srv.URL, Clients: 1, Requests: 5, Prepare: prepare, Body: failAt(2)}); !errors.Is(err, errBody) || !strings.Contains(err.Error(), "making a submission") {
			t.Errorf("a Body that fails (prepare %d): %v", prepare, err)
		}
	}
	r, err := Run(ctx, Config{URL: srv.URL, Clients: 2, Requests: 4, Body: failAt(10)})
	if err != nil || r.OK != 4 {
		t.Errorf("control: %+v, %v", r, err)
	}
}

// A server that is gone fails every submission as a transport error
// (status 0), the first one reported.
func TestRunTransportErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	r, err := Run(context.Background(), Config{URL: url, Clients: 1, Requests: 3, Duration: time.Minute, Body: func(int) ([]byte, error) { return []byte("{}"), nil }})
	if err != nil || r.OK != 0 || r.Failed[0] != 3 || r.FirstError == "" || !strings.Contains(r.String(), "first transport error") {
		t.Errorf("a server that is gone: %+v, %v", r, err)
	}
}
