// Package client is the submission client of an mcpres log service
// (tlog/server, `mcpres log serve`): it posts a bundle to POST /add,
// retries safely, and returns a transparency reference only after
// verifying it, with package offline, exactly as a verifier will.
//
// # What is sent, and where
//
// A Client posts to one URL, BASE/add, and nowhere else:
//
//   - it never follows a redirect: a 3xx answer is a *[RedirectError]
//     naming where it pointed, and nothing is sent there (a redirect to
//     another port of the same host, or from https to http, would
//     otherwise receive the bearer token);
//   - a bearer token is never sent over plain HTTP to a host that is not
//     the loopback interface: [New] refuses such a URL, and for an http
//     URL with a token the connection itself must reach a loopback
//     address ("localhost" that resolves elsewhere is refused before
//     anything is written) and goes through no proxy.
//
// # Retries
//
// Connection errors, 429 and 5xx answers are retried with exponential
// backoff and jitter, honouring Retry-After (up to 5 minutes), up to
// Options.Attempts within the context's deadline; this is safe because a
// log service answers a bundle it already logged with that entry. Any
// other answer but 200 is final: a *[RefusedError].
//
// # What is returned
//
// The answer must be a transparency reference
// (attest.ParseTransparencyReference: exactly its four members, the digest
// of its proof bytes) whose proof verifies (offline.VerifyClaimed and
// Verified.MatchesReference) against the caller's trust — the log's key
// and origin, any witness quorum — for the entry of the bundle submitted:
// the checkpoint is signed by the log key, the proof includes this
// bundle's entry. Otherwise Submit fails with an *[AnswerError]. The
// reference returned is rebuilt from the verified proof bytes
// (attest.NewTransparencyReference, Marshal), never the server's JSON, so
// it is byte for byte what a local `mcpres log add` writes.
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/offline"
)

// Defaults and bounds of a Client.
const (
	DefaultAttempts = 8
	// BackoffBase doubles after each attempt up to BackoffMax; the wait
	// is jittered between half and all of it.
	BackoffBase = 250 * time.Millisecond
	BackoffMax  = 8 * time.Second
	// RequestTimeout bounds one attempt.
	RequestTimeout = time.Minute
	// MaxAnswerBytes bounds the answer read: a reference is at most about
	// 1 MiB of base64.
	MaxAnswerBytes = 2 << 20
	// maxRetryAfter is the longest Retry-After honoured.
	maxRetryAfter = 5 * time.Minute
)

// Options configure a Client.
type Options struct {
	// Token, if not empty, is sent as "Authorization: Bearer TOKEN".
	Token string
	// Attempts is the most attempts of one submission (default
	// DefaultAttempts).
	Attempts int
	// OnRetry, if set, is told of each failed attempt that is retried
	// and how long the client waits before the next.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// A Client submits to one log service.
type Client struct {
	url  string // BASE/add
	opts Options
	hc   *http.Client
}

// ErrTokenOverHTTP is returned by New for an http:// URL whose host is not
// a loopback address when a token is given.
var ErrTokenOverHTTP = errors.New("a bearer token is never sent over plain HTTP to a host that is not the loopback interface: use https")

// New returns a client of the log service at base, an http or https URL
// without user information, query or fragment (a trailing slash is
// allowed). It refuses (ErrTokenOverHTTP) an http URL whose host is not a
// loopback address when opts.Token is set.
func New(base string, opts Options) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("log server URL: %w", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("log server URL %q: the scheme must be https or http", base)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("log server URL %q has no host", base)
	case u.User != nil:
		return nil, fmt.Errorf("log server URL %q: user information in the URL is not taken (give a token)", base)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "":
		return nil, fmt.Errorf("log server URL %q: a base URL has no query or fragment", base)
	}
	if opts.Attempts == 0 {
		opts.Attempts = DefaultAttempts
	}
	if opts.Attempts < 1 {
		return nil, fmt.Errorf("attempts must be at least 1, not %d", opts.Attempts)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if u.Scheme == "http" && opts.Token != "" {
		if !loopbackName(u.Hostname()) {
			return nil, fmt.Errorf("log server URL %q: %w", base, ErrTokenOverHTTP)
		}
		// No proxy would see the token, and the connection must end on
		// the loopback interface whatever the name resolved to.
		tr.Proxy = nil
		d := &net.Dialer{Timeout: 30 * time.Second}
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if a, ok := c.RemoteAddr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
				c.Close()
				return nil, fmt.Errorf("%s is not a loopback address: %w", c.RemoteAddr(), ErrTokenOverHTTP)
			}
			return c, nil
		}
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/add"
	u.RawPath = ""
	return &Client{
		url:  u.String(),
		opts: opts,
		hc: &http.Client{
			Transport: tr,
			Timeout:   RequestTimeout,
			// A submission is never redirected: the answer is returned as
			// it is, and Submit refuses it.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

// loopbackName reports whether host is a loopback IP address or
// "localhost" (whose connections are checked to reach a loopback address).
func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL returns the URL submissions are posted to.
func (c *Client) URL() string { return c.url }

// A RefusedError is a final answer other than 200: the server refused the
// submission (400 unreadable, 401 token, 413 too large, 422 invalid
// evidence, …). Body is the answer, at most MaxAnswerBytes.
type RefusedError struct {
	Status int
	Body   []byte
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the log server refused the submission (HTTP %d): %s", e.Status, bytes.TrimSpace(e.Body))
}

// Invalid reports whether the server refused the submission as invalid
// evidence (422, tlog/server.AdmitEvidence), not as a request it could
// not take: the verdict `mcpres log add` exits 1 for.
func (e *RefusedError) Invalid() bool { return e.Status == http.StatusUnprocessableEntity }

// ErrTooLarge is returned by Submit for a body larger than any log service
// reads (canonjson.MaxInputBytes, tlog/server's DefaultMaxBody).
var ErrTooLarge = fmt.Errorf("a submission is at most %d bytes, the most the strict reader takes", canonjson.MaxInputBytes)

// A RedirectError is a redirect answer, which a submission never follows.
type RedirectError struct {
	Status   int
	Location string
}

func (e *RedirectError) Error() string {
	where := e.Location
	if where == "" {
		where = "(no Location)"
	}
	return fmt.Sprintf("the log server answered HTTP %d, a redirect to %s: a submission is never redirected (give the final URL)", e.Status, where)
}

// An AnswerError is a 200 answer that is not a verifying reference for
// the bundle submitted: nothing may be written from it.
type AnswerError struct {
	Err error
}

func (e *AnswerError) Error() string { return "the log server's answer: " + e.Err.Error() }
func (e *AnswerError) Unwrap() error { return e.Err }

// A GiveUpError is the last failure of a submission that was retried
// Attempts times, or whose context ended.
type GiveUpError struct {
	Attempts int
	Last     error
	Err      error // the context's error, when it ended first
}

func (e *GiveUpError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%v after %d attempt(s) (last: %v)", e.Err, e.Attempts, e.Last)
	}
	return fmt.Sprintf("giving up after %d attempts: %v", e.Attempts, e.Last)
}

func (e *GiveUpError) Unwrap() error { return e.Last }

// A Reference is a verified answer.
type Reference struct {
	// JSON is the transparency reference, rebuilt from the verified proof
	// (attest.TransparencyReference.Marshal).
	JSON []byte
	// Proof is the C2SP tlog-proof bytes it embeds.
	Proof []byte
	// Verified is what offline verified.
	Verified *offline.Verified
	// Existing is the server's word (the Mcpres-Existing header) that the
	// bundle was already in the log: the entry is an earlier one, and the
	// server asked the witnesses missing from its checkpoint again (a
	// re-witnessed proof). It is not verified and only worded into
	// messages; the entry itself is Verified's. What the witnesses gave
	// the checkpoint is offline.Witnessed of Proof (with the consumers'
	// tlog policy) or offline.CosignatureLines (unverified).
	Existing bool
}

// Submit posts body (a bundle or an attested bundle, whose log entry is
// want) and returns the verified reference the server answers (see the
// package documentation). trust is what the answer is verified against:
// at least the log, by key and origin.
func (c *Client) Submit(ctx context.Context, body []byte, want offline.Entry, trust offline.Trust) (*Reference, error) {
	if len(body) > canonjson.MaxInputBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(body))
	}
	if len(trust.Logs) == 0 {
		return nil, errors.New("no log key to verify the answer with: a reference is never written unverified")
	}
	if err := trust.Check(); err != nil {
		return nil, err
	}
	var last error
	for attempt := 1; ; attempt++ {
		status, answer, retryAfter, location, existing, err := c.post(ctx, body)
		switch {
		case err == nil && status == http.StatusOK:
			ref, err := Verify(answer, want, trust)
			if err != nil {
				return nil, err
			}
			ref.Existing = existing
			return ref, nil
		case err == nil && status >= 300 && status < 400:
			return nil, &RedirectError{Status: status, Location: location}
		case err == nil && status != http.StatusTooManyRequests && status < 500:
			return nil, &RefusedError{Status: status, Body: answer}
		case errors.Is(err, ErrTokenOverHTTP):
			return nil, err
		case err != nil:
			last = err
		default:
			last = fmt.Errorf("HTTP %d: %s", status, bytes.TrimSpace(answer))
		}
		if ctx.Err() != nil {
			return nil, &GiveUpError{Attempts: attempt, Last: last, Err: ctx.Err()}
		}
		if attempt >= c.opts.Attempts {
			return nil, &GiveUpError{Attempts: attempt, Last: last}
		}
		wait := min(BackoffBase<<(attempt-1), BackoffMax)
		wait = wait/2 + rand.N(wait/2+1) // jitter: many pipelines retry at once
		wait = max(wait, retryAfter)
		if c.opts.OnRetry != nil {
			c.opts.OnRetry(attempt, last, wait)
		}
		select {
		case <-ctx.Done():
			return nil, &GiveUpError{Attempts: attempt, Last: last, Err: ctx.Err()}
		case <-time.After(wait):
		}
	}
}

// post sends one submission. A transport error is returned as err; an
// answer with its status, body (bounded), Retry-After, Location and
// whether the server said the entry already existed.
func (c *Client) post(ctx context.Context, body []byte) (int, []byte, time.Duration, string, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, 0, "", false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, 0, "", false, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes))
	if err != nil {
		return 0, nil, 0, "", false, fmt.Errorf("reading the answer: %w", err)
	}
	var ra time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		ra = min(time.Duration(s)*time.Second, maxRetryAfter)
	}
	return resp.StatusCode, answer, ra, resp.Header.Get("Location"), resp.Header.Get(ExistingHeader) == "true", nil
}

// ExistingHeader is the answer header in which a log service says whether
// the entry was already in the log ("true" or "false", tlog/server).
const ExistingHeader = "Mcpres-Existing"

// Verify checks a log service's answer before anything is written from it
// and returns the reference rebuilt from its verified proof: answer is a
// strict transparency reference (attest.ParseTransparencyReference), its
// proof verifies for want against trust (offline.VerifyClaimed: the
// entry, its inclusion, the checkpoint's log signature and origin, the
// witness quorum if trust has one), and its logId and entryUuid are the
// verified proof's (Verified.MatchesReference). Any failure is an
// *AnswerError.
func Verify(answer []byte, want offline.Entry, trust offline.Trust) (*Reference, error) {
	ref, proof, err := attest.ParseTransparencyReference(answer)
	if err != nil {
		return nil, &AnswerError{Err: err}
	}
	v, err := offline.VerifyClaimed(proof, want, offline.Claim{LogID: ref.LogID, EntryUUID: ref.EntryUUID}, trust)
	if err != nil {
		return nil, &AnswerError{Err: err}
	}
	if err := v.MatchesReference(ref.LogID, ref.EntryUUID); err != nil {
		return nil, &AnswerError{Err: err}
	}
	data, err := attest.NewTransparencyReference(v.LogID, v.EntryUUID, proof).Marshal()
	if err != nil {
		return nil, &AnswerError{Err: err}
	}
	return &Reference{JSON: data, Proof: proof, Verified: v}, nil
}
