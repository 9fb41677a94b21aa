package oci

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/ocitest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// A fakeRegistry is a registry on 127.0.0.1 that answers what a test
// puts in it, truthfully or not, for one repository, mcp/server.
type fakeRegistry struct {
	srv *httptest.Server

	mu        sync.Mutex
	manifests map[string]fakeObject // by tag or digest
	blobs     map[string]fakeObject // by digest
	referrers map[string][]byte     // referrers API answers by subject digest; nil: 404
	// hook, when it returns true, has answered the request itself.
	hook     func(w http.ResponseWriter, r *http.Request) bool
	requests []string // "METHOD PATH" of every request
}

// A fakeObject is a manifest or blob as served: its bytes, media type and
// the Docker-Content-Digest header ("" for the bytes' own digest).
type fakeObject struct {
	mediaType string
	body      []byte
	digest    string
}

const fakeRepo = "mcp/server"

func newFakeRegistry(t *testing.T) *fakeRegistry {
	f := &fakeRegistry{manifests: map[string]fakeObject{}, blobs: map[string]fakeObject{}}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRegistry) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fakeRegistry) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	hook := f.hook
	f.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	if r.URL.Path == "/v2/" {
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v2/"+fakeRepo+"/")
	kind, ref, _ := strings.Cut(rest, "/")
	f.mu.Lock()
	defer f.mu.Unlock()
	var obj fakeObject
	switch {
	case !ok:
	case kind == "manifests":
		obj, ok = f.manifests[ref]
	case kind == "blobs":
		obj, ok = f.blobs[ref]
	case kind == "referrers" && f.referrers != nil:
		body := f.referrers[ref]
		if body == nil {
			body = []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`)
		}
		obj, ok = fakeObject{mediaType: ocispec.MediaTypeImageIndex, body: body}, true
	default:
		ok = false
	}
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"not here"}]}`)
		return
	}
	dg := obj.digest
	if dg == "" {
		dg = Digest(obj.body)
	}
	w.Header().Set("Content-Type", obj.mediaType)
	w.Header().Set("Docker-Content-Digest", dg)
	w.Header().Set("Content-Length", strconv.Itoa(len(obj.body)))
	if r.Method != http.MethodHead {
		w.Write(obj.body)
	}
}

// fakeImage puts an image manifest under tag 1.0 and its digest.
func (f *fakeRegistry) fakeImage(seed string) Image {
	body := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"` + Digest([]byte(seed)) + `","size":1},"layers":[]}`)
	o := fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: body}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifests["1.0"] = o
	f.manifests[Digest(body)] = o
	return Image{Name: f.host() + "/" + fakeRepo + ":1.0", Registry: f.host(), Repository: fakeRepo,
		Descriptor: Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(body), Size: int64(len(body))}}
}

// fakeReferrer puts an MCP-RES artifact with layer bytes bundle referring
// to subject, and returns its manifest descriptor.
func (f *fakeRegistry) fakeReferrer(t *testing.T, subject Descriptor, bundle []byte, layerSize int64) Descriptor {
	t.Helper()
	layer := Descriptor{MediaType: LayerMediaType, Digest: Digest(bundle), Size: layerSize}
	m, err := artifactManifest(layer, subject, map[string]string{AnnotationSubjectName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	d := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(m), Size: int64(len(m)), ArtifactType: ArtifactType}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifests[d.Digest] = fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: m}
	f.blobs[layer.Digest] = fakeObject{mediaType: LayerMediaType, body: bundle}
	return d
}

// list makes ds the referrers of img through the referrers tag schema.
func (f *fakeRegistry) list(t *testing.T, img Image, ds ...Descriptor) {
	t.Helper()
	idx := newReferrersIndex()
	var body []byte
	for _, d := range ds {
		var err error
		if body, err = idx.with(d); err != nil {
			t.Fatal(err)
		}
		idx, _ = parseReferrersIndex(body)
	}
	if body == nil {
		body, _ = idx.with(Descriptor{})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifests[ReferrersTag(img)] = fakeObject{mediaType: ocispec.MediaTypeImageIndex, body: body}
}

func fakeClient(t *testing.T, o Options) *Client {
	t.Helper()
	if o.Credential == nil {
		o.Credential = auth.StaticCredential("", auth.EmptyCredential)
	}
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOCIHostileResolve(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	c := fakeClient(t, Options{})
	ctx := testContext(t)
	// Controls: honest answers by tag and by digest.
	for _, name := range []string{img.Name, img.String()} {
		got, err := c.Resolve(ctx, name)
		if err != nil || got.Digest() != img.Digest() || got.Descriptor.Size != img.Descriptor.Size {
			t.Fatalf("%s: %+v, %v", name, got, err)
		}
	}
	// Other bytes under the digest asked for.
	o := f.manifests[img.Digest()]
	f.mu.Lock()
	f.manifests[img.Digest()] = fakeObject{mediaType: o.mediaType, body: append(bytes.Clone(o.body), ' '), digest: img.Digest()}
	f.mu.Unlock()
	if _, err := c.Resolve(ctx, img.String()); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("other bytes under the digest: %v", err)
	}
	// A tag whose Docker-Content-Digest names other bytes.
	f.mu.Lock()
	f.manifests["1.0"] = fakeObject{mediaType: o.mediaType, body: o.body, digest: Digest([]byte("elsewhere"))}
	f.mu.Unlock()
	if _, err := c.Resolve(ctx, img.Name); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a lying digest header: %v", err)
	}
	// References mcpres does not guess at.
	for _, name := range []string{f.host() + "/" + fakeRepo, f.host() + "/" + fakeRepo + "@sha512:" + strings.Repeat("a", 128), "not a reference"} {
		var re *ReferenceError
		if _, err := c.Resolve(ctx, name); !errors.As(err, &re) {
			t.Errorf("%s: %v, want a *ReferenceError", name, err)
		}
	}
}

// bundleAbout is a stand-in for an attested bundle: discovery and
// download check digests and shapes, not bundles.
var bundleAbout = []byte(`{"schemaVersion":"mcp-res.attested-conformance-bundle/0.2.0"}`)

func TestOCIHostileReferrers(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	other := f.fakeImage("b")
	f.fakeImage("a") // 1.0 back to the first
	c := fakeClient(t, Options{})
	ctx := testContext(t)

	good := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	aboutOther := f.fakeReferrer(t, other.Descriptor, []byte("other"), 5)
	// Listed with one digest, served as other bytes under it.
	forged := f.fakeReferrer(t, img.Descriptor, []byte("forged"), 6)
	f.mu.Lock()
	fo := f.manifests[forged.Digest]
	fo.body = bytes.Replace(fo.body, []byte(`"s"`), []byte(`"t"`), 1)
	fo.digest = forged.Digest
	f.manifests[forged.Digest] = fo
	f.mu.Unlock()
	// A layer whose bytes do not match their descriptor.
	badLayer := f.fakeReferrer(t, img.Descriptor, []byte("layer as described"), 18)
	f.mu.Lock()
	f.blobs[Digest([]byte("layer as described"))] = fakeObject{mediaType: LayerMediaType, body: []byte("layer as delivered"), digest: Digest([]byte("layer as described"))}
	f.mu.Unlock()
	// A 1 GB layer, never to be requested.
	huge := f.fakeReferrer(t, img.Descriptor, []byte("huge"), 1<<30)
	f.list(t, img, good, aboutOther, forged, badLayer, huge)

	d, err := c.Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if d.Via != ViaReferrersTag || len(d.Referrers) != 5 {
		t.Fatalf("via %s, %d referrers", d.Via, len(d.Referrers))
	}
	want := map[string]string{
		good.Digest:       "",
		aboutOther.Digest: "refers to another image",
		forged.Digest:     "digest",
		huge.Digest:       "the bundle limit",
		badLayer.Digest:   "", // the manifest is fine; the layer is not
	}
	byDigest := map[string]Referrer{}
	for _, r := range d.Referrers {
		byDigest[r.Descriptor.Digest] = r
		w := want[r.Descriptor.Digest]
		if w == "" && r.Err != nil || w != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), w)) {
			t.Errorf("referrer %s: %v, want %q", r.Descriptor.Digest, r.Err, w)
		}
	}
	if data, err := c.Fetch(ctx, img, byDigest[good.Digest]); err != nil || !bytes.Equal(data, bundleAbout) {
		t.Errorf("good layer: %q, %v", data, err)
	}
	if _, err := c.Fetch(ctx, img, byDigest[badLayer.Digest]); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("mismatching layer: %v", err)
	}
	if n := f.count("GET /v2/" + fakeRepo + "/blobs/" + Digest([]byte("huge"))); n != 0 {
		t.Errorf("the 1 GB layer was requested %d times", n)
	}

	// A layer that streams more than its descriptor says is cut and
	// refused.
	f.mu.Lock()
	f.blobs[Digest(bundleAbout)] = fakeObject{mediaType: LayerMediaType, body: bytes.Repeat([]byte("x"), 1<<20), digest: Digest(bundleAbout)}
	f.mu.Unlock()
	if _, err := c.Fetch(ctx, img, byDigest[good.Digest]); err == nil {
		t.Error("an overlong layer was accepted")
	}
}

// TestOCIManyReferrers: an index listing 3,000 MCP-RES referrers (whose manifests are missing) costs
// at most MaxManifests manifest requests and names the bound reached.
func TestOCIManyReferrers(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	ds := make([]Descriptor, 3_000)
	for i := range ds {
		ds[i] = Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest([]byte(strconv.Itoa(i))), Size: 900, ArtifactType: ArtifactType}
	}
	f.listMany(t, img, ds)
	c := fakeClient(t, Options{})
	d, err := c.Discover(testContext(t), img)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Floods) != 1 || d.Floods[0].Bound != BoundManifests || len(d.Referrers) != DefaultMaxManifests || d.Listed != 3_000 {
		t.Fatalf("floods %+v, %d referrers examined of %d listed, want %d", d.Floods, len(d.Referrers), d.Listed, DefaultMaxManifests)
	}
	if n := f.count("GET /v2/" + fakeRepo + "/manifests/sha256:"); n > DefaultMaxManifests+2 {
		t.Errorf("%d manifest requests for %d examined", n, DefaultMaxManifests)
	}
	// Control: at the bound nothing is truncated.
	c = fakeClient(t, Options{MaxManifests: 3_000})
	if d, err := c.Discover(testContext(t), img); err != nil || d.Truncated() || len(d.Referrers) != 3_000 {
		t.Errorf("bound 3,000: floods %+v, %d, %v", d.Floods, len(d.Referrers), err)
	}
}

// TestOCIReferrersRule: the referrers API when it answers, the tag schema
// on 404, and any other answer fails; referrers listed without a telling
// type are judged by their manifest.
func TestOCIReferrersRule(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	c := fakeClient(t, Options{})
	ctx := testContext(t)
	ours := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	// Listed as the config media type, as go-containerregistry's registry
	// does: the manifest tells.
	listed := ours
	listed.ArtifactType = emptyMediaType
	// Another artifact listed without a type.
	sig := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.example.sig","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"` + emptyDigest + `","size":2},"layers":[]}`)
	f.manifests[Digest(sig)] = fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: sig}
	sigDesc := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(sig), Size: int64(len(sig))}
	// A signature listed with its own type is not even fetched.
	typed := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest([]byte("cosign")), Size: 10, ArtifactType: "application/vnd.dev.cosign.artifact.sig.v1+json"}
	idx, _ := newReferrersIndex().with(listed)
	i2, _ := parseReferrersIndex(idx)
	idx, _ = i2.with(sigDesc)
	i3, _ := parseReferrersIndex(idx)
	idx, _ = i3.with(typed)
	f.referrers = map[string][]byte{img.Digest(): idx}

	d, err := c.Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if d.Via != ViaReferrersAPI || len(d.Referrers) != 1 || d.Referrers[0].Err != nil || d.Others != 2 {
		t.Fatalf("via %s, referrers %+v, others %d", d.Via, d.Referrers, d.Others)
	}
	if n := f.count("GET /v2/" + fakeRepo + "/manifests/" + typed.Digest); n != 0 {
		t.Errorf("a referrer of another type was fetched %d times", n)
	}
	if n := f.count("GET /v2/" + fakeRepo + "/manifests/" + ReferrersTag(img)); n != 0 {
		t.Errorf("the referrers tag was read from a registry with the API")
	}

	// Any answer but 200 and 404 fails, never falls back.
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/referrers/") {
			w.WriteHeader(http.StatusInternalServerError)
			return true
		}
		return false
	}
	if _, err := fakeClient(t, Options{}).Discover(ctx, img); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("referrers API answering 500: %v", err)
	}
	// 404: the tag schema.
	f.hook = nil
	f.referrers = nil
	f.list(t, img, ours)
	if d, err := fakeClient(t, Options{}).Discover(ctx, img); err != nil || d.Via != ViaReferrersTag || len(d.Referrers) != 1 {
		t.Errorf("no API: via %s, %d referrers, %v", d.Via, len(d.Referrers), err)
	}
}

func TestOCIRedirects(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	ctx := testContext(t)

	// A loop.
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/manifests/") {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
			return true
		}
		return false
	}
	if _, err := fakeClient(t, Options{}).Resolve(ctx, img.Name); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("redirect loop: %v", err)
	}

	// Credentials stay with the registry: a blob redirected to another
	// host (as registries send downloads to storage) arrives there without
	// them.
	var storageAuth atomic.Value
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		storageAuth.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("Cookie"))
		w.Write(bundleAbout)
	}))
	defer storage.Close()
	ref := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	f.list(t, img, ref)
	var registryAuth atomic.Int64
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "u" || pass != "p" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		registryAuth.Add(1)
		if strings.Contains(r.URL.Path, "/blobs/") && r.Method == http.MethodGet {
			http.Redirect(w, r, storage.URL+"/storage/blob?X-Signature=secret", http.StatusTemporaryRedirect)
			return true
		}
		return false
	}
	c := fakeClient(t, Options{Credential: auth.StaticCredential(f.host(), auth.Credential{Username: "u", Password: "p"})})
	var got []Pulled
	if _, err := c.Pull(ctx, img, func(p Pulled) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Err != nil || !bytes.Equal(got[0].Data, bundleAbout) {
		t.Fatalf("pulled %+v", got)
	}
	if registryAuth.Load() == 0 {
		t.Fatal("the registry never saw the credentials: the test proves nothing")
	}
	if a, _ := storageAuth.Load().(string); a != "|" {
		t.Errorf("the storage host received credentials: %q", a)
	}
}

func TestOCISlowRegistry(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	release := make(chan struct{})
	defer close(release)
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/manifests/") {
			return false
		}
		// Headers at once, then the body a byte at a time, forever.
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		w.Header().Set("Content-Length", "100000")
		w.Header().Set("Docker-Content-Digest", img.Digest())
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return true
		}
		for {
			select {
			case <-release:
				return true
			case <-r.Context().Done():
				return true
			case <-time.After(50 * time.Millisecond):
				w.Write([]byte(" "))
				w.(http.Flusher).Flush()
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := fakeClient(t, Options{}).Resolve(ctx, img.Name)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("slow registry: %v, want the deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Resolve outlived its deadline by 30 s")
	}
}

func TestOCIPlainHTTPAndLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1:5000": true, "127.8.9.1": true, "localhost:5000": true, "LOCALHOST": true, "[::1]:5000": true,
		"::1": true, "10.0.0.1:5000": false, "localhost.example.com": false, "ghcr.io": false, "[::2]:5000": false} {
		if IsLoopback(host) != want {
			t.Errorf("IsLoopback(%q) = %t", host, !want)
		}
	}
	get := func(plain bool, url string, header http.Header) error {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := newHTTPClient(plain).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	// Refused before any connection: no name is even resolved.
	if err := get(false, "http://registry.invalid/v2/", nil); !errors.Is(err, ErrPlainHTTP) {
		t.Errorf("plain HTTP elsewhere: %v", err)
	}
	if err := get(true, "http://registry.invalid/v2/", http.Header{"Authorization": {"Basic dTpw"}}); !errors.Is(err, ErrPlainHTTP) {
		t.Errorf("credentials over plain HTTP elsewhere: %v", err)
	}
	// Controls: --plain-http without credentials gets as far as the
	// network, and loopback is reached.
	if err := get(true, "http://registry.invalid/v2/", nil); errors.Is(err, ErrPlainHTTP) {
		t.Errorf("--plain-http refused: %v", err)
	}
	f := newFakeRegistry(t)
	if err := get(false, f.srv.URL+"/v2/", http.Header{"Authorization": {"Basic dTpw"}}); err != nil {
		t.Errorf("loopback: %v", err)
	}

	// Redirect rules.
	mk := func(u string) *http.Request { r, _ := http.NewRequest(http.MethodGet, u, nil); return r }
	if err := checkRedirect(mk("http://127.0.0.1:1/x"), []*http.Request{mk("https://127.0.0.1:1/v2/")}); err == nil {
		t.Error("a redirect from HTTPS to HTTP was followed")
	}
	same := mk("https://reg.example/v2/b")
	same.Header.Set("Authorization", "Bearer t")
	if err := checkRedirect(same, []*http.Request{mk("https://reg.example/v2/a")}); err != nil || same.Header.Get("Authorization") == "" {
		t.Errorf("same host: %v, authorization %q", err, same.Header.Get("Authorization"))
	}
	sub := mk("https://cdn.reg.example/b")
	sub.Header.Set("Authorization", "Bearer t")
	if err := checkRedirect(sub, []*http.Request{mk("https://reg.example/v2/a")}); err != nil || sub.Header.Get("Authorization") != "" {
		t.Errorf("another host (a subdomain): %v, authorization %q", err, sub.Header.Get("Authorization"))
	}
}

// ifMatchRegistry is go-containerregistry's registry (no referrers API)
// behind conditional requests on manifests: ETag is the quoted digest,
// and a PUT with If-Match or If-None-Match that does not hold is refused
// with 412, as a registry that honours them does.
type ifMatchRegistry struct {
	next http.Handler
	// between, when set, runs once when the first conditional write
	// arrives, before it is checked: a concurrent writer that got there
	// first.
	between func()
	refused atomic.Int64
}

func (m *ifMatchRegistry) current(path string) (string, bool) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept", ocispec.MediaTypeImageIndex+","+ocispec.MediaTypeImageManifest)
	m.next.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return "", false
	}
	return `"` + Digest(rec.Body.Bytes()) + `"`, true
}

func (m *ifMatchRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, "/manifests/") {
		im, inm := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
		if r.Method == http.MethodPut && (im != "" || inm != "") && m.between != nil {
			b := m.between
			m.between = nil
			b()
		}
		etag, exists := m.current(r.URL.Path)
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			if exists {
				w.Header().Set("ETag", etag)
			}
		case http.MethodPut:
			if im != "" && im != etag || inm == "*" && exists {
				m.refused.Add(1)
				w.WriteHeader(http.StatusPreconditionFailed)
				return
			}
		}
	}
	m.next.ServeHTTP(w, r)
}

// TestOCIConditionalIndexUpdate: on a registry that honours conditional
// requests, the write of an index changed since the attach read it is
// refused (412), and the attach reads it again and merges: no entry is
// lost, and the 412 is no error.
func TestOCIConditionalIndexUpdate(t *testing.T) {
	m := &ifMatchRegistry{next: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	srv := httptest.NewServer(m)
	defer srv.Close()
	r := &ocitest.Registry{Host: strings.TrimPrefix(srv.URL, "http://")}
	ctx := testContext(t)
	pushed := r.PushImage(t, fakeRepo, "1.0", "cond")
	attach := func(seed byte) error {
		c, err := NewClient(Options{Credential: r.Credential(), Settle: 200 * time.Millisecond})
		if err != nil {
			return err
		}
		img, err := c.Resolve(ctx, pushed.Ref)
		if err != nil {
			return err
		}
		b := checked(t, ocitest.AttestedBundle(t, Digest([]byte{seed})))
		_, err = c.Attach(ctx, img, b, AttachOptions{Created: "2026-12-01T00:00:00Z", ForceSubject: true})
		return err
	}
	if err := attach(0); err != nil {
		t.Fatal(err)
	}
	var inner error
	m.between = func() { inner = attach(1) }
	err := attach(2)
	if inner != nil {
		t.Fatalf("the concurrent attach: %v", inner)
	}
	if m.refused.Load() == 0 {
		t.Fatal("no write was refused: the test proves nothing")
	}
	if err != nil {
		t.Fatalf("the attach whose write was refused: %v", err)
	}
	c := newTestClient(t, r)
	img, _ := c.Resolve(ctx, pushed.Ref)
	d, err := c.Discover(ctx, img)
	if err != nil || len(d.Referrers) != 3 {
		t.Fatalf("%d referrers after three attaches (%v)", len(d.Referrers), err)
	}
}

// listMany makes ds the referrers of img through the referrers tag
// schema, written in one piece (list would reparse the index for each).
func (f *fakeRegistry) listMany(t *testing.T, img Image, ds []Descriptor) {
	t.Helper()
	idx := newReferrersIndex()
	ms := idx.root.Get("manifests")
	for _, d := range ds {
		e, err := newReferrersIndex().with(d)
		if err != nil {
			t.Fatal(err)
		}
		ms.Items = append(ms.Items, mustParse(t, string(e)).Get("manifests").Items[0])
	}
	body, err := canonjson.Compact(idx.root)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifests[ReferrersTag(img)] = fakeObject{mediaType: ocispec.MediaTypeImageIndex, body: body}
}
