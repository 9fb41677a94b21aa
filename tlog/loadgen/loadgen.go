// Package loadgen drives a log server (mcpres log serve) with concurrent
// submissions and measures them: submissions per second and the time from
// sending a bundle to holding its reference (p50, p99, max). It only
// talks to servers on the loopback interface, and every run is bounded in
// count and time.
package loadgen

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/tlog/admit"
)

// Bounds of a run, whatever Config says.
const (
	MaxDuration = 5 * time.Minute
	MaxRequests = 1_000_000
	MaxClients  = 4096
	MaxPrepare  = 100_000
)

// Config describes a run.
type Config struct {
	// URL is the server's base URL (a trailing slash is allowed); its host
	// must be a loopback address.
	URL string
	// Token is the bearer token, if the server needs one.
	Token string
	// Clients submit concurrently, one request at a time each.
	Clients int
	// Duration and Requests bound the run: it stops at whichever comes
	// first (both are capped by MaxDuration and MaxRequests).
	Duration time.Duration
	Requests int
	// Body returns the i-th submission (distinct bodies, so that each is
	// a new entry). It is called by the clients, outside the timing of
	// each submission but on the same CPUs as the server.
	Body func(i int) ([]byte, error)
	// Prepare is how many submissions (the first ones, at most
	// MaxPrepare) are made before the run starts, on all cores, and held
	// in memory: making a bundle costs about half what the server spends
	// on it, and a load generator that shares the server's cores should
	// not take that CPU from it during the run. The rest are made as they
	// are sent.
	Prepare int
}

// Result is what a run measured.
type Result struct {
	// OK counts submissions answered 200; Failed the others, by status
	// (0 for a transport error, the first of which is in FirstError).
	OK         int
	Failed     map[int]int
	FirstError string
	Elapsed    time.Duration
	Rate       float64 // OK per second
	P50, P99   time.Duration
	Max        time.Duration
}

func (r Result) String() string {
	s := fmt.Sprintf("%d submissions in %.1fs: %.0f/s; time to reference p50 %v, p99 %v, max %v; failed %v",
		r.OK, r.Elapsed.Seconds(), r.Rate, r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond), r.Max.Round(time.Millisecond), r.Failed)
	if r.FirstError != "" {
		s += " (first transport error: " + r.FirstError + ")"
	}
	return s
}

// CheckLoopback refuses a URL whose host is not a loopback address.
func CheckLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("loadgen: %q is not an http(s) URL", raw)
	}
	h := u.Hostname()
	if h == "localhost" {
		return nil
	}
	ip := net.ParseIP(h)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("loadgen: %q is not on the loopback interface; the load generator only drives local servers", raw)
	}
	return nil
}

// Run runs the load until the duration or the request count is reached
// (or ctx is done) and returns what it measured.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := CheckLoopback(cfg.URL); err != nil {
		return Result{}, err
	}
	if cfg.Body == nil {
		return Result{}, errors.New("loadgen: no Body")
	}
	clients := min(max(cfg.Clients, 1), MaxClients)
	d := min(cfg.Duration, MaxDuration)
	if d <= 0 {
		d = MaxDuration
	}
	n := min(cfg.Requests, MaxRequests)
	if n <= 0 {
		n = MaxRequests
	}
	prepared, err := prepare(cfg.Body, min(max(cfg.Prepare, 0), MaxPrepare, n))
	if err != nil {
		return Result{}, fmt.Errorf("loadgen: making a submission: %w", err)
	}
	body := func(i int) ([]byte, error) {
		if i < len(prepared) {
			b := prepared[i]
			prepared[i] = nil // sent once: let it go
			return b, nil
		}
		return cfg.Body(i)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	// A redirect is a failed submission, never followed: it could lead
	// off the loopback interface, with the token.
	hc := &http.Client{Transport: tr, Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	target := strings.TrimSuffix(cfg.URL, "/") + "/add"
	var (
		next    atomic.Int64
		mu      sync.Mutex
		lat     []time.Duration
		failed  = map[int]int{}
		wg      sync.WaitGroup
		bodyErr error
		first   string
	)
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				body, err := body(i)
				if err != nil {
					mu.Lock()
					bodyErr = err
					mu.Unlock()
					cancel()
					return
				}
				status, took, err := post(ctx, hc, target, cfg.Token, body)
				if ctx.Err() != nil && status != http.StatusOK {
					return // cut off by the end of the run
				}
				mu.Lock()
				if status == http.StatusOK {
					lat = append(lat, took)
				} else {
					failed[status]++
					if err != nil && first == "" {
						first = err.Error()
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if bodyErr != nil {
		return Result{}, fmt.Errorf("loadgen: making a submission: %w", bodyErr)
	}
	slices.Sort(lat)
	r := Result{OK: len(lat), Failed: failed, FirstError: first, Elapsed: elapsed, Rate: float64(len(lat)) / elapsed.Seconds()}
	if len(lat) > 0 {
		r.P50, r.P99, r.Max = quantile(lat, 0.50), quantile(lat, 0.99), lat[len(lat)-1]
	}
	return r, nil
}

// prepare makes the first n bodies on all cores.
func prepare(body func(int) ([]byte, error), n int) ([][]byte, error) {
	out := make([][]byte, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				b, err := body(i)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					next.Store(int64(n)) // stop the others
					return
				}
				out[i] = b
			}
		})
	}
	wg.Wait()
	return out, first
}

// quantile returns the q-quantile of sorted (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func post(ctx context.Context, hc *http.Client, url, token string, body []byte) (int, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	t := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, 0, err
	}
	return resp.StatusCode, time.Since(t), nil
}

// Variants returns a Body of distinct valid submissions made from base, a
// conformance bundle the log admits (tlog/admit, evaluated at evaluatedAt)
// that has an evidence.run.environment.os to vary: the i-th is base run on
// the operating system "loadgen-RUN-i", sealed again (bundle.SealFrom),
// RUN a random tag drawn once, so that every run's entries are new.
func Variants(base *canonjson.Value, evaluatedAt string) (func(i int) ([]byte, error), error) {
	adm, err := admit.New().Admit(base, evaluatedAt)
	if err != nil {
		return nil, fmt.Errorf("loadgen: the base bundle: %w", err)
	}
	if adm.Bundle != base {
		return nil, errors.New("loadgen: the base is an attested bundle; give a conformance bundle")
	}
	if env := base.Path("evidence", "run", "environment"); env == nil || !env.Get("os").Is(canonjson.String) {
		return nil, errors.New("loadgen: the base bundle has no evidence.run.environment.os to vary")
	}
	var rb [4]byte
	rand.Read(rb[:])
	runID := hex.EncodeToString(rb[:])
	return func(i int) ([]byte, error) {
		v := base.Clone()
		v.Path("evidence", "run", "environment").Get("os").Str = fmt.Sprintf("loadgen-%s-%d", runID, i)
		if err := bundle.SealFrom(v, bundle.StageEvidence); err != nil {
			return nil, err
		}
		return canonjson.Compact(v)
	}, nil
}
