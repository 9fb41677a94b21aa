package keyless

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcpres/mcpres/internal/regularfile"
)

// Audience is the audience an identity token for Fulcio must carry.
const Audience = "sigstore"

// MaxTokenSize bounds an identity token (and the Actions endpoint's
// answer): GitHub's are about 1.5 KB.
const MaxTokenSize = 16 << 10

// ErrToken is the error when the identity token is unusable (unreadable, malformed, wrong
// audience, expired). Its messages never quote the token.
var ErrToken = errors.New("identity token")

// Token is an OIDC identity token. It prints as "[redacted]" in every
// format, so that it cannot reach a log or an error by accident; only
// the Fulcio request reads its value.
type Token struct {
	raw    string
	claims Claims
}

// Claims are the unverified claims of a token that signing uses: Fulcio
// verifies the token, these only choose the proof of possession and give
// early, clear refusals.
type Claims struct {
	Issuer        string `json:"iss"`
	Subject       string `json:"sub"`
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	Audience      any    `json:"aud"`
	Expiry        int64  `json:"exp"`
}

// String keeps the token out of every output (so do GoString and
// Format).
func (t *Token) String() string   { return "[redacted]" }
func (t *Token) GoString() string { return "[redacted]" }
func (t *Token) Format(f fmt.State, _ rune) {
	io.WriteString(f, "[redacted]")
}

// Claims returns the token's unverified claims.
func (t *Token) Claims() Claims { return t.claims }

// ParseToken checks the shape of a compact JWS, that its audience
// includes [Audience] and that it has not expired at now, and returns it.
// It does not verify the issuer's signature: Fulcio does.
func ParseToken(raw string, now time.Time) (*Token, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("%w: empty", ErrToken)
	}
	if len(raw) > MaxTokenSize {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrToken, len(raw), MaxTokenSize)
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: not a compact JWS (three base64url parts separated by dots)", ErrToken)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, fmt.Errorf("%w: the payload is not base64url", ErrToken)
	}
	var c Claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("%w: the payload is not a JSON object of claims", ErrToken)
	}
	if c.Issuer == "" || c.Subject == "" {
		return nil, fmt.Errorf("%w: no iss or no sub claim", ErrToken)
	}
	if !hasAudience(c.Audience, Audience) {
		return nil, fmt.Errorf("%w: its audience does not include %q (request the token for audience %s)", ErrToken, Audience, Audience)
	}
	if c.Expiry == 0 {
		return nil, fmt.Errorf("%w: no exp claim", ErrToken)
	}
	if exp := time.Unix(c.Expiry, 0); !now.Before(exp) {
		return nil, fmt.Errorf("%w: expired at %s", ErrToken, exp.UTC().Format(time.RFC3339))
	}
	return &Token{raw: raw, claims: c}, nil
}

func hasAudience(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}

// proofSubject is what the proof of possession signs: the email claim when
// the token has one (email issuers), else sub (GitHub Actions and other
// workload issuers), as Fulcio checks it.
func (t *Token) proofSubject() (string, error) {
	if t.claims.Email != "" {
		if v, ok := t.claims.EmailVerified.(bool); !ok || !v {
			return "", fmt.Errorf("%w: its email is not verified by the issuer (email_verified is not true)", ErrToken)
		}
		return t.claims.Email, nil
	}
	return t.claims.Subject, nil
}

// ReadToken reads a token from a reference: "env:NAME" (the variable
// NAME) or a file path.
func ReadToken(ref string, now time.Time) (*Token, error) {
	var raw string
	if name, ok := strings.CutPrefix(ref, "env:"); ok {
		v, set := os.LookupEnv(name)
		if !set || v == "" {
			return nil, fmt.Errorf("%w: the environment variable %s is not set or empty", ErrToken, name)
		}
		raw = v
	} else {
		// A regular file only: a FIFO or a device is refused before it is
		// read (it could block or never end).
		b, err := regularfile.ReadFile(ref, MaxTokenSize+1)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrToken, err)
		}
		raw = string(b)
	}
	return ParseToken(raw, now)
}

// The variables GitHub Actions sets in a job with permissions id-token:
// write.
const (
	ActionsURLEnv   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	ActionsTokenEnv = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
)

// InActions reports whether env (os.Getenv) names a GitHub Actions token
// endpoint.
func InActions(getenv func(string) string) bool {
	return getenv(ActionsURLEnv) != "" && getenv(ActionsTokenEnv) != ""
}

// ActionsToken fetches an identity token for audience sigstore from the
// GitHub Actions endpoint named by $ACTIONS_ID_TOKEN_REQUEST_URL, with
// $ACTIONS_ID_TOKEN_REQUEST_TOKEN as bearer (getenv is os.Getenv). A nil
// client means one with a one-minute timeout.
func ActionsToken(ctx context.Context, client *http.Client, getenv func(string) string, now time.Time) (*Token, error) {
	if client == nil {
		client = defaultClient()
	}
	endpoint, bearer := getenv(ActionsURLEnv), getenv(ActionsTokenEnv)
	if endpoint == "" || bearer == "" {
		return nil, fmt.Errorf("%w: %s and %s are not both set (in GitHub Actions, give the job permissions: id-token: write)", ErrToken, ActionsURLEnv, ActionsTokenEnv)
	}
	u, err := checkURL(endpoint, ActionsURLEnv)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("audience", Audience)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrToken, ActionsURLEnv, err)
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: requesting it from the Actions endpoint failed (%s)", ErrToken, redactURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxTokenSize+1024))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the Actions endpoint's answer: %v", ErrToken, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: the Actions endpoint answered %s", ErrToken, resp.Status)
	}
	var answer struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Value == "" {
		return nil, fmt.Errorf("%w: the Actions endpoint's answer is not {\"value\": TOKEN}", ErrToken)
	}
	return ParseToken(answer.Value, now)
}

// redactURLError keeps the kind of a transport error without the URL it
// quotes (which could carry a query secret).
func redactURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}

// checkURL parses an endpoint URL: https, or http on a loopback address
// only (for tests).
func checkURL(raw, what string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%s is not an absolute URL", what)
	}
	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			return u, nil
		}
		return nil, fmt.Errorf("%s is plain HTTP to %s: only https is accepted, or http on a loopback address (tests)", what, u.Hostname())
	}
	return nil, fmt.Errorf("%s has the scheme %q: only https is accepted", what, u.Scheme)
}

// defaultClient is the HTTP client of a nil Options.Client: a one-minute
// timeout, no redirects followed (a redirect could carry the bearer
// token elsewhere).
func defaultClient() *http.Client {
	return &http.Client{
		Timeout:       time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
