package oci

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// TestOCIHostileListing: what a referrers listing says of a candidate is
// checked before its manifest is fetched (a digest that is not sha256, a
// size over the manifest limit: refused, nothing fetched), a manifest
// whose subject names the image with another size or media type is
// refused, a candidate listed twice is read once, and a candidate listed
// without a type whose manifest has none, or listed as an index, counts
// as another artifact type. The control, an honest referrer listed
// beside them, is found without an error.
func TestOCIHostileListing(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	c := fakeClient(t, Options{})
	ctx := testContext(t)

	good := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	sha512 := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: "sha512:" + strings.Repeat("ab", 64), Size: 100, ArtifactType: ArtifactType}
	big := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest([]byte("big")), Size: MaxManifestBytes + 1, ArtifactType: ArtifactType}
	sized := img.Descriptor
	sized.Size++
	otherSize := f.fakeReferrer(t, sized, []byte("size"), 4)
	typed := img.Descriptor
	typed.MediaType = ocispec.MediaTypeImageIndex
	otherType := f.fakeReferrer(t, typed, []byte("type"), 4)
	// An image manifest with no artifactType, listed with none.
	plain := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"` + emptyDigest + `","size":2},"layers":[]}`)
	untyped := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(plain), Size: int64(len(plain))}
	f.mu.Lock()
	f.manifests[untyped.Digest] = fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: plain}
	f.mu.Unlock()
	index := Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: Digest([]byte("an index")), Size: 10, ArtifactType: ArtifactType}
	// The listing, written by hand (the index writer refuses what a
	// hostile registry may list): good twice, then the others.
	var entries []string
	for _, d := range []Descriptor{good, good, sha512, big, otherSize, otherType, untyped, index} {
		e := `{"mediaType":"` + d.MediaType + `","digest":"` + d.Digest + `","size":` + strconv.FormatInt(d.Size, 10)
		if d.ArtifactType != "" {
			e += `,"artifactType":"` + d.ArtifactType + `"`
		}
		entries = append(entries, e+"}")
	}
	f.mu.Lock()
	f.manifests[ReferrersTag(img)] = fakeObject{mediaType: ocispec.MediaTypeImageIndex,
		body: []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + strings.Join(entries, ",") + `]}`)}
	f.mu.Unlock()

	d, err := c.Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if d.Listed != 8 || len(d.Referrers) != 5 || d.Others != 2 || d.OtherTypes[""] != 1 || d.OtherTypes[ArtifactType] != 1 {
		t.Fatalf("listed %d, %d referrers, others %d %v; want 8 listed, 5 referrers, 2 others", d.Listed, len(d.Referrers), d.Others, d.OtherTypes)
	}
	want := map[string]string{
		good.Digest:      "",
		sha512.Digest:    "listed with a digest that is not sha256: and 64 lowercase hexadecimal digits",
		big.Digest:       "listed as 4194305 bytes, more than the manifest limit of 4194304 (not fetched)",
		otherSize.Digest: "does not describe the image",
		otherType.Digest: "does not describe the image",
	}
	for _, r := range d.Referrers {
		w, ok := want[r.Descriptor.Digest]
		if !ok || w == "" && r.Err != nil || w != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), w)) {
			t.Errorf("referrer %s: %v, want %q", r.Descriptor.Digest, r.Err, w)
		}
	}
	for _, dg := range []string{sha512.Digest, big.Digest, index.Digest} {
		if n := f.count("GET /v2/" + fakeRepo + "/manifests/" + dg); n != 0 {
			t.Errorf("the manifest %s was fetched %d times", dg, n)
		}
	}
	if n := f.count("GET /v2/" + fakeRepo + "/manifests/" + good.Digest); n != 1 {
		t.Errorf("the manifest listed twice was fetched %d times, want once", n)
	}
}

// TestOCIHostileResolveAnswers: a manifest served with no media type
// (oras-go refuses it before Resolve's own check) and one announced over
// the manifest limit are refused when resolving; the control is the same
// image honestly served.
func TestOCIHostileResolveAnswers(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	c := fakeClient(t, Options{})
	ctx := testContext(t)
	if _, err := c.Resolve(ctx, img.Name); err != nil {
		t.Fatalf("control: %v", err)
	}
	o := f.manifests["1.0"]
	f.mu.Lock()
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v2/"+fakeRepo+"/manifests/1.0" {
			return false
		}
		w.Header()["Content-Type"] = nil // no header, and no sniffing
		w.Header().Set("Docker-Content-Digest", img.Digest())
		w.Header().Set("Content-Length", strconv.Itoa(len(o.body)))
		w.Write(o.body)
		return true
	}
	f.mu.Unlock()
	if _, err := c.Resolve(ctx, img.Name); err == nil || !strings.Contains(err.Error(), "no media type") {
		t.Errorf("no media type: %v", err)
	}
	f.mu.Lock()
	f.hook = nil
	f.manifests["1.0"] = fakeObject{mediaType: o.mediaType, body: append(o.body, strings.Repeat(" ", MaxManifestBytes)...)}
	f.mu.Unlock()
	if _, err := c.Resolve(ctx, img.Name); err == nil || !strings.Contains(err.Error(), "more than the limit of 4194304") {
		t.Errorf("an oversized manifest: %v", err)
	}
}
