package oci

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// Defaults of [Options]: the bounds on the referrers of one image. Anyone
// who may push to a repository can attach referrers to its images, and
// registries list them in no order mcpres can rely on (go-containerregistry's
// in a random one): a flood of junk referrers must not hide an honest
// bundle, and must not make discovery unbounded. Within these bounds every
// referrer is examined; beyond one, the discovery says which bound was
// reached ([Flood]).
const (
	// DefaultMaxListed is how many listed referrers (descriptors of any
	// artifact type, over all pages) of one image are examined at most. A
	// referrer listed with another artifact type costs nothing but its
	// descriptor: nothing is downloaded for it.
	DefaultMaxListed = 10_000
	// DefaultMaxManifests is how many candidate referrers' manifests
	// (referrers listed as MCP-RES artifacts or without a telling
	// artifactType) are fetched at most, manifestFetchers at a time: one
	// request of at most MaxManifestBytes each (an MCP-RES manifest is
	// about 1 KiB).
	DefaultMaxManifests = 2_000
	// DefaultMaxBundles is how many bundles (layers of at most
	// MaxBundleBytes) [Client.Pull] downloads at most.
	DefaultMaxBundles = 100
	// DefaultSettle is how long an attach to a registry without the
	// referrers API waits before it reads the referrers index again to
	// check that no concurrent attach overwrote its entry.
	DefaultSettle = 2 * time.Second
	// maxReferrerPages bounds the pages of a referrers API listing: 10
	// referrers a page on average for DefaultMaxListed.
	maxReferrerPages = 1_000
	// manifestFetchers is how many candidate manifests are fetched at
	// once.
	manifestFetchers = 4
	// maxRedirects bounds the redirects of one request.
	maxRedirects = 5
)

// Options configure a [Client]. The zero value is the default: HTTPS
// except to loopback registries, credentials from the Docker
// configuration.
type Options struct {
	// PlainHTTP allows plain HTTP to registries that are not on a loopback
	// address (127.0.0.0/8, ::1, localhost), which always use it.
	// Credentials are never sent over plain HTTP but to loopback.
	PlainHTTP bool
	// Credential returns the credential for a registry (host:port); nil
	// reads the Docker configuration as docker and oras do
	// ($DOCKER_CONFIG/config.json or ~/.docker/config.json, with its
	// credential helpers).
	Credential auth.CredentialFunc
	// MaxListed, MaxManifests and MaxBundles bound the referrers of one
	// image examined (0: DefaultMaxListed, DefaultMaxManifests,
	// DefaultMaxBundles).
	MaxListed, MaxManifests, MaxBundles int
	// Settle is the wait before an attach to a registry without the
	// referrers API checks its entry again (0: DefaultSettle).
	Settle time.Duration
	// UserAgent is sent with every request ("" sends none of ours).
	UserAgent string
}

// A Client talks to OCI registries. Every call takes a context: its
// deadline bounds the whole operation, each request and each body read.
// It is safe for concurrent use.
type Client struct {
	opts  Options
	cred  auth.CredentialFunc
	cache auth.Cache

	mu      sync.Mutex
	clients map[string]*auth.Client // by registry host:port

	// beforeIndexPut, when set (tests), runs before each write of a
	// referrers index.
	beforeIndexPut func()
}

// NewClient returns a Client. It reads the Docker configuration now
// (when Options.Credential is nil); a configuration that cannot be read
// is an error.
func NewClient(opts Options) (*Client, error) {
	if opts.MaxListed <= 0 {
		opts.MaxListed = DefaultMaxListed
	}
	if opts.MaxManifests <= 0 {
		opts.MaxManifests = DefaultMaxManifests
	}
	if opts.MaxBundles <= 0 {
		opts.MaxBundles = DefaultMaxBundles
	}
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	cred := opts.Credential
	if cred == nil {
		store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the Docker configuration for registry credentials: %w", err)
		}
		cred = credentials.Credential(store)
	}
	return &Client{opts: opts, cred: cred, cache: auth.NewCache(), clients: map[string]*auth.Client{}}, nil
}

// IsLoopback reports whether a registry host (host or host:port) is on a
// loopback address or is localhost: those registries are reached over
// plain HTTP, as docker and oras reach them.
func IsLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// authClient returns the authenticating HTTP client for a registry.
func (c *Client) authClient(host string) *auth.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ac := c.clients[host]; ac != nil {
		return ac
	}
	loopback := IsLoopback(host)
	ac := &auth.Client{
		Client:     newHTTPClient(c.opts.PlainHTTP),
		Credential: c.cred,
		Cache:      c.cache,
	}
	if loopback {
		// A loopback registry's token service is on loopback too.
		ac.BlockedRealmPrefixes = slices.DeleteFunc(auth.DefaultBlockedRealmPrefixes(), func(p netip.Prefix) bool {
			return p.Addr().IsLoopback()
		})
	}
	if c.opts.UserAgent != "" {
		ac.SetUserAgent(c.opts.UserAgent)
	}
	c.clients[host] = ac
	return ac
}

// newHTTPClient is the HTTP client under the authenticating one: bounded
// connection and header times, at most maxRedirects redirects, never from
// HTTPS to HTTP, credentials dropped on a redirect to another host:port,
// and plain HTTP only to loopback (or with plainHTTP), never with
// credentials but to loopback.
func newHTTPClient(plainHTTP bool) *http.Client {
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	return &http.Client{
		Transport:     &guard{next: t, plainHTTP: plainHTTP},
		CheckRedirect: checkRedirect,
	}
}

// checkRedirect is the redirect policy of newHTTPClient.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects (last to %s)", maxRedirects, redacted(req))
	}
	prev := via[len(via)-1]
	if prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing a redirect from HTTPS to %s", redacted(req))
	}
	if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
	}
	return nil
}

// redacted is a request's URL without its query (signed storage URLs
// carry credentials there).
func redacted(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// guard enforces the plain-HTTP rules of newHTTPClient on every request,
// redirects included.
type guard struct {
	next      http.RoundTripper
	plainHTTP bool
}

// ErrPlainHTTP is matched by the error for a plain-HTTP request the
// client refuses.
var ErrPlainHTTP = errors.New("plain HTTP refused")

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !IsLoopback(req.URL.Host) {
		if req.Body != nil {
			req.Body.Close()
		}
		switch {
		case req.URL.Scheme != "http":
			return nil, fmt.Errorf("refusing %s: only https (and http to loopback) is used", redacted(req))
		case !g.plainHTTP:
			return nil, fmt.Errorf("%w: %s is not a loopback registry (give --plain-http to allow it)", ErrPlainHTTP, redacted(req))
		case req.Header.Get("Authorization") != "":
			return nil, fmt.Errorf("%w: refusing to send credentials over plain HTTP to %s (only loopback registries may be reached so)", ErrPlainHTTP, req.URL.Host)
		}
	}
	return g.next.RoundTrip(req)
}

// repository returns the oras-go repository of ref, with mcpres's limits.
func (c *Client) repository(ref registry.Reference) *remote.Repository {
	return &remote.Repository{
		Client:               &condClient{next: c.authClient(ref.Registry)},
		Reference:            registry.Reference{Registry: ref.Registry, Repository: ref.Repository},
		PlainHTTP:            IsLoopback(ref.Registry) || c.opts.PlainHTTP,
		ReferrerListMaxPages: maxReferrerPages,
		MaxMetadataBytes:     MaxManifestBytes,
		SkipReferrersGC:      true,
	}
}

// condClient carries out what a request's context asks beyond oras-go:
// the conditional headers of a PUT and the entity tag of a GET answer (how
// an attach updates a referrers index only if nobody else changed it, on
// registries that honour conditional requests), and the artifactType
// filter of a referrers listing.
type condClient struct{ next remote.Client }

type condKey struct{}

// A cond is what one conditional exchange carries.
type cond struct {
	put  http.Header // headers added to a PUT
	etag string      // the ETag of the last 200 answer to a GET
}

func withCond(ctx context.Context, c *cond) context.Context {
	return context.WithValue(ctx, condKey{}, c)
}

type filterKey struct{}

// A referrersFilter asks the registry to list only the referrers of
// artifactType (distribution-spec 1.1: GET /v2/NAME/referrers/DIGEST
// ?artifactType=…) and records whether a page said it did (the
// OCI-Filters-Applied header naming artifactType). oras-go is asked for an
// unfiltered listing, so it filters nothing itself: its client-side filter
// would drop referrers listed without a telling type, which Discover
// judges by their manifests.
type referrersFilter struct {
	artifactType string

	mu      sync.Mutex
	applied bool
}

func withFilter(ctx context.Context, f *referrersFilter) context.Context {
	return context.WithValue(ctx, filterKey{}, f)
}

func (f *referrersFilter) wasApplied() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applied
}

// isReferrersRequest says whether path is a referrers API listing:
// /v2/NAME/referrers/sha256:HEX.
func isReferrersRequest(path string) bool {
	rest, ok := strings.CutPrefix(path, "/v2/")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, "/referrers/")
	return i > 0 && ValidDigest(rest[i+len("/referrers/"):])
}

// filterApplied says whether an OCI-Filters-Applied header value (a
// comma-separated list) names the artifactType filter.
func filterApplied(h string) bool {
	for f := range strings.SplitSeq(h, ",") {
		if strings.TrimSpace(f) == "artifactType" {
			return true
		}
	}
	return false
}

func (c *condClient) Do(req *http.Request) (*http.Response, error) {
	cd, _ := req.Context().Value(condKey{}).(*cond)
	if cd != nil && req.Method == http.MethodPut && len(cd.put) > 0 {
		req = req.Clone(req.Context())
		for k, v := range cd.put {
			req.Header[k] = v
		}
	}
	rf, _ := req.Context().Value(filterKey{}).(*referrersFilter)
	if rf != nil && (req.Method != http.MethodGet || !isReferrersRequest(req.URL.Path)) {
		rf = nil
	}
	if rf != nil && !req.URL.Query().Has("artifactType") {
		// The first page; the next pages are the registry's Link, which
		// should carry the filter, and get it when they do not.
		req = req.Clone(req.Context())
		q := req.URL.Query()
		q.Set("artifactType", rf.artifactType)
		req.URL.RawQuery = q.Encode()
	}
	resp, err := c.next.Do(req)
	if err == nil && cd != nil && req.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		cd.etag = resp.Header.Get("ETag")
	}
	if err == nil && rf != nil && resp.StatusCode == http.StatusOK && filterApplied(resp.Header.Get("OCI-Filters-Applied")) {
		rf.mu.Lock()
		rf.applied = true
		rf.mu.Unlock()
	}
	return resp, err
}
