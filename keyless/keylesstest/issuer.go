// Package keylesstest starts what keyless signing talks to, on 127.0.0.1
// only, for tests: an OIDC issuer that mints ID tokens (two issuers on one
// server: an email issuer and one shaped like GitHub Actions'), an
// endpoint shaped like the Actions token endpoint, and real Fulcio and
// sigstore timestamp-authority processes (Stack), skipping the test with
// the go install command when they are not installed.
package keylesstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"testing"
	"time"
)

// Issuer is an OIDC issuer on 127.0.0.1: discovery documents and a JWKS
// for two issuer URLs, EmailIssuer and GitHubIssuer, signing ES256 ID
// tokens with one throwaway key.
type Issuer struct {
	// EmailIssuer and GitHubIssuer are the two issuers' URLs
	// (http://127.0.0.1:PORT/email and …/github).
	EmailIssuer, GitHubIssuer string
	key                       *ecdsa.PrivateKey
}

const kid = "keylesstest-1"

// NewIssuer starts an issuer for the duration of the test.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, nil)
	iss := &Issuer{EmailIssuer: base.url + "/email", GitHubIssuer: base.url + "/github", key: key}
	mux := http.NewServeMux()
	for _, u := range []string{"/email", "/github"} {
		issuerURL := base.url + u
		mux.HandleFunc("GET "+u+"/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, map[string]any{
				"issuer":                                issuerURL,
				"jwks_uri":                              base.url + "/jwks",
				"authorization_endpoint":                issuerURL + "/auth",
				"token_endpoint":                        issuerURL + "/token",
				"response_types_supported":              []string{"id_token"},
				"subject_types_supported":               []string{"public"},
				"id_token_signing_alg_values_supported": []string{"ES256"},
			})
		})
	}
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		pub := key.PublicKey
		b := func(n []byte) string { return base64.RawURLEncoding.EncodeToString(n) }
		raw, _ := pub.Bytes() // uncompressed point 04||X||Y
		writeJSON(w, map[string]any{"keys": []map[string]any{{
			"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
			"x": b(raw[1:33]), "y": b(raw[33:65]),
		}}})
	})
	base.handler = mux
	return iss
}

// EmailToken mints a token from the email issuer for email (verified),
// audience sigstore, valid for ten minutes from now; extra claims are
// added (or replace these).
func (i *Issuer) EmailToken(t testing.TB, email string, extra map[string]any) string {
	t.Helper()
	c := map[string]any{"iss": i.EmailIssuer, "sub": "user-" + email, "aud": "sigstore", "email": email, "email_verified": true}
	maps.Copy(c, extra)
	return i.Mint(t, c)
}

// GitHubRepo and GitHubWorkflowRef are the repository and job workflow
// ref of GitHubToken's claims; GitHubIdentity is the certificate identity
// Fulcio derives from them.
const (
	GitHubRepo        = "acme/weather-mcp"
	GitHubWorkflowRef = "acme/weather-mcp/.github/workflows/release.yml@refs/tags/v1.4.0"
	GitHubIdentity    = "https://github.com/" + GitHubWorkflowRef
)

// GitHubClaims are the claims of a GitHub Actions ID token of the
// release workflow of GitHubRepo at tag v1.4.0, with every claim Fulcio's
// github-workflow issuer type requires.
func (i *Issuer) GitHubClaims() map[string]any {
	return map[string]any{
		"iss": i.GitHubIssuer, "aud": "sigstore",
		"sub":                   "repo:" + GitHubRepo + ":ref:refs/tags/v1.4.0",
		"repository":            GitHubRepo,
		"repository_owner":      "acme",
		"repository_id":         "1001",
		"repository_owner_id":   "2002",
		"repository_visibility": "public",
		"workflow":              "release",
		"workflow_ref":          GitHubWorkflowRef,
		"workflow_sha":          "0123456789abcdef0123456789abcdef01234567",
		"job_workflow_ref":      GitHubWorkflowRef,
		"job_workflow_sha":      "0123456789abcdef0123456789abcdef01234567",
		"ref":                   "refs/tags/v1.4.0",
		"sha":                   "0123456789abcdef0123456789abcdef01234567",
		"event_name":            "push",
		"runner_environment":    "github-hosted",
		"run_id":                "42",
		"run_attempt":           "1",
	}
}

// GitHubToken mints a GitHub Actions-shaped token (GitHubClaims, then
// extra).
func (i *Issuer) GitHubToken(t testing.TB, extra map[string]any) string {
	t.Helper()
	c := i.GitHubClaims()
	maps.Copy(c, extra)
	return i.Mint(t, c)
}

// Mint signs claims as a compact ES256 JWS, adding iat and exp (ten
// minutes) unless given.
func (i *Issuer) Mint(t testing.TB, claims map[string]any) string {
	t.Helper()
	now := time.Now()
	c := map[string]any{"iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(10 * time.Minute).Unix()}
	maps.Copy(c, claims)
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]any{"alg": "ES256", "typ": "JWT", "kid": kid}) + "." + enc(c)
	h := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, i.key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// ActionsEndpoint starts an endpoint shaped like GitHub Actions' ID-token
// endpoint: GET with "Authorization: Bearer BEARER" and ?audience=AUD
// answers {"value": token(AUD)}; anything else 401/400. It returns the
// URL (for ACTIONS_ID_TOKEN_REQUEST_URL, with a query as GitHub's has)
// and the bearer (for ACTIONS_ID_TOKEN_REQUEST_TOKEN).
func ActionsEndpoint(t testing.TB, token func(audience string) string) (url, bearer string) {
	t.Helper()
	bearer = "actions-request-token-" + base64.RawURLEncoding.EncodeToString(randBytes(t, 12))
	s := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Authorization") != "Bearer "+bearer {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		aud := r.URL.Query().Get("audience")
		if aud == "" {
			http.Error(w, "no audience", http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]string{"value": token(aud)})
	}))
	return s.url + "/_apis/distributedtask/hubs/build/plans/p/jobs/j/idtoken?api-version=2.0", bearer
}

func randBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// server is an HTTP server on 127.0.0.1 whose handler may be set after
// its URL is known.
type server struct {
	url     string
	handler http.Handler
}

func serve(t testing.TB, h http.Handler) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{url: "http://" + l.Addr().String(), handler: h}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return s
}
