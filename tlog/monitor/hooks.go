package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"time"
)

// DefaultHookTimeout bounds one delivery of an alert to a hook.
const DefaultHookTimeout = 10 * time.Second

// An ExecHook runs Program (with Args) once per alert, the alert's JSON
// line on its standard input, within Timeout (0: DefaultHookTimeout). It
// inherits no standard output: Output, when set, receives it.
type ExecHook struct {
	Program string
	Args    []string
	Timeout time.Duration
	Output  io.Writer
}

// Deliver runs the program for a; an exit status other than 0, a failure
// to start or the timeout is an error naming the program.
func (h *ExecHook) Deliver(ctx context.Context, a *Alert) error {
	t := h.Timeout
	if t <= 0 {
		t = DefaultHookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Program, h.Args...)
	cmd.Stdin = bytes.NewReader(append(a.JSON(), '\n'))
	cmd.Stdout, cmd.Stderr = h.Output, h.Output
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("--exec %s: no answer within %v", h.Program, t)
		}
		return fmt.Errorf("--exec %s: %v", h.Program, err)
	}
	return nil
}

// A WebhookHook posts each alert's JSON to URL, an https URL or an http
// URL to a loopback address, within Timeout (0: DefaultHookTimeout). It
// follows no redirect and uses no proxy; an answer other than 2xx is an
// error.
type WebhookHook struct {
	url     string
	timeout time.Duration
	client  *http.Client
}

// NewWebhookHook checks rawURL and returns the hook.
func NewWebhookHook(rawURL string, timeout time.Duration) (*WebhookHook, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("--webhook %q: want https://HOST/PATH (or http:// to a loopback address), no user", rawURL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		ip := net.ParseIP(u.Hostname())
		if ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--webhook %q: plain http only to a loopback address (127.0.0.1, ::1): alerts name your subjects", rawURL)
		}
	default:
		return nil, fmt.Errorf("--webhook %q: want an https URL", rawURL)
	}
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	return &WebhookHook{url: u.String(), timeout: timeout, client: &http.Client{
		Transport: &http.Transport{Proxy: nil, ResponseHeaderTimeout: timeout, TLSHandshakeTimeout: timeout},
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}, nil
}

// Deliver posts a.
func (h *WebhookHook) Deliver(ctx context.Context, a *Alert) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(a.JSON()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			return fmt.Errorf("--webhook: no answer within %v", h.timeout)
		}
		return fmt.Errorf("--webhook: %v", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("--webhook answered %s (redirects are not followed)", resp.Status)
	}
	return nil
}
