package oci

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpres/mcpres/oci/ocitest"
	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// The tests of referrer floods: junk referrers listed before an honest
// one do not hide it within the bounds, and a bound reached is named.

const junkType = "application/vnd.example.junk"

// junk puts n small artifact manifests of junkType referring to subject
// and returns their descriptors as a listing would list them, with
// artifactType listed ("" for none).
func (f *fakeRegistry) junk(subject Descriptor, n int, listed string) []Descriptor {
	ds := make([]Descriptor, n)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range ds {
		body := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"` + junkType + `","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"` + emptyDigest + `","size":2},"layers":[],"subject":{"mediaType":"` + subject.MediaType + `","digest":"` + subject.Digest + `","size":` + strconv.FormatInt(subject.Size, 10) + `},"annotations":{"n":"` + strconv.Itoa(i) + `"}}`)
		f.manifests[Digest(body)] = fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: body}
		ds[i] = Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(body), Size: int64(len(body)), ArtifactType: listed}
	}
	return ds
}

// manifestGets counts the manifest requests for ds.
func (f *fakeRegistry) manifestGets(ds []Descriptor) int {
	n := 0
	for _, d := range ds {
		n += f.count("GET /v2/" + fakeRepo + "/manifests/" + d.Digest)
	}
	return n
}

// found says whether d holds the usable referrer want.
func found(d Discovery, want Descriptor) bool {
	return slices.ContainsFunc(d.Referrers, func(r Referrer) bool { return r.Descriptor.Digest == want.Digest && r.Err == nil })
}

// TestOCIFloodTagSchema: junk listed before the honest referrer in a
// referrers tag index. Listed without a type, each junk manifest is read
// (and counted as another type); listed with its type, none is.
func TestOCIFloodTagSchema(t *testing.T) {
	for _, tc := range []struct {
		n      int
		listed string
	}{{100, ""}, {100, emptyMediaType}, {1_200, junkType}, {1_200, ""}} {
		t.Run(fmt.Sprintf("%d listed as %q", tc.n, tc.listed), func(t *testing.T) {
			f := newFakeRegistry(t)
			img := f.fakeImage("a")
			junk := f.junk(img.Descriptor, tc.n, tc.listed)
			honest := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
			f.listMany(t, img, append(slices.Clone(junk), honest))
			d, err := fakeClient(t, Options{}).Discover(testContext(t), img)
			if err != nil {
				t.Fatal(err)
			}
			if !found(d, honest) || len(d.Referrers) != 1 || d.Truncated() || d.Others != tc.n || d.OtherTypes[junkType] != tc.n && d.OtherTypes[tc.listed] != tc.n || d.Listed != tc.n+1 {
				t.Fatalf("referrers %+v, floods %v, others %d %v, listed %d", d.Referrers, d.Floods, d.Others, d.OtherTypes, d.Listed)
			}
			want := tc.n
			if tc.listed == junkType {
				want = 0
			}
			if got := f.manifestGets(junk); got != want {
				t.Errorf("%d junk manifests fetched, want %d", got, want)
			}
		})
	}
}

// pagedReferrers answers the referrers API of img from ds, size
// referrers a page, each page's Link naming the next without the filter.
// With applyFilter it honours ?artifactType= on the types listed and says
// so. It records the queries.
type pagedReferrers struct {
	img         Image
	ds          []Descriptor
	size        int
	applyFilter bool

	mu      sync.Mutex
	queries []string
}

func (p *pagedReferrers) hook(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/v2/"+fakeRepo+"/referrers/"+p.img.Digest() {
		return false
	}
	p.mu.Lock()
	p.queries = append(p.queries, r.URL.RawQuery)
	p.mu.Unlock()
	list := p.ds
	if at := r.URL.Query().Get("artifactType"); p.applyFilter && at != "" {
		list = slices.DeleteFunc(slices.Clone(list), func(d Descriptor) bool { return d.ArtifactType != at })
		w.Header().Set("OCI-Filters-Applied", "artifactType")
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	end := min(from+p.size, len(list))
	idx := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
	for _, d := range list[from:end] {
		idx.Manifests = append(idx.Manifests, ocispec.Descriptor{MediaType: d.MediaType, Digest: digest.Digest(d.Digest), Size: d.Size, ArtifactType: d.ArtifactType})
	}
	if end < len(list) {
		w.Header().Set("Link", fmt.Sprintf(`</v2/%s/referrers/%s?from=%d>; rel="next"`, fakeRepo, p.img.Digest(), end))
	}
	body, _ := json.Marshal(idx)
	w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
	w.Write(body)
	return true
}

func (p *pagedReferrers) pages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.queries)
}

// TestOCIFloodReferrersAPI: 1,200 junk referrers on 13 pages of 100, the
// honest one last: every page is read, with the filter asked for on each,
// and no junk manifest is fetched; a registry that ignores the filter is
// filtered here.
func TestOCIFloodReferrersAPI(t *testing.T) {
	for _, applyFilter := range []bool{false, true} {
		t.Run(fmt.Sprintf("filter applied %t", applyFilter), func(t *testing.T) {
			f := newFakeRegistry(t)
			img := f.fakeImage("a")
			junk := f.junk(img.Descriptor, 1_200, junkType)
			honest := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
			p := &pagedReferrers{img: img, ds: append(slices.Clone(junk), honest), size: 100, applyFilter: applyFilter}
			f.hook = p.hook
			d, err := fakeClient(t, Options{}).Discover(testContext(t), img)
			if err != nil {
				t.Fatal(err)
			}
			wantOthers, wantPages := 1_200, 13
			if applyFilter {
				wantOthers, wantPages = 0, 1
			}
			if d.Via != ViaReferrersAPI || !found(d, honest) || len(d.Referrers) != 1 || d.Truncated() || d.Others != wantOthers || d.Filtered != applyFilter {
				t.Fatalf("via %s, referrers %+v, floods %v, others %d, filtered %t", d.Via, d.Referrers, d.Floods, d.Others, d.Filtered)
			}
			qs := p.pages()
			if len(qs) != wantPages {
				t.Errorf("%d pages requested, want %d", len(qs), wantPages)
			}
			for _, q := range qs {
				if !strings.Contains(q, "artifactType="+strings.NewReplacer("/", "%2F", "+", "%2B").Replace(ArtifactType)) {
					t.Errorf("a page asked for without the filter: %q", q)
				}
			}
			if n := f.manifestGets(junk); n != 0 {
				t.Errorf("%d junk manifests fetched", n)
			}
		})
	}
}

// TestOCIFloodFilterDisagrees: a registry that applies the filter to
// what it lists, but lists the honest referrer by its config media type
// (as go-containerregistry's registry lists every referrer), filters it
// out; the listing is asked for again without the filter.
func TestOCIFloodFilterDisagrees(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	honest := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	honest.ArtifactType = emptyMediaType
	p := &pagedReferrers{img: img, ds: append(f.junk(img.Descriptor, 3, junkType), honest), size: 100, applyFilter: true}
	f.hook = p.hook
	d, err := fakeClient(t, Options{}).Discover(testContext(t), img)
	if err != nil {
		t.Fatal(err)
	}
	if !found(d, honest) || d.Filtered || d.Others != 3 || len(p.pages()) != 2 || strings.Contains(p.pages()[1], "artifactType") {
		t.Fatalf("referrers %+v, filtered %t, others %d, queries %q", d.Referrers, d.Filtered, d.Others, p.pages())
	}
}

// TestOCIFloodBounds: past each bound the flood is named, and what
// beyond it was not seen; the controls are the same registries with the
// bound not reached.
func TestOCIFloodBounds(t *testing.T) {
	ctx := testContext(t)
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	junk := f.junk(img.Descriptor, 1_200, junkType)
	honest := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	f.listMany(t, img, append(slices.Clone(junk), honest))

	// Listed: the first 500 of 1,201.
	d, err := fakeClient(t, Options{MaxListed: 500}).Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if found(d, honest) || len(d.Floods) != 1 || d.Floods[0].Bound != BoundListed || d.Listed != 500 {
		t.Fatalf("MaxListed 500: referrers %+v, floods %+v, listed %d", d.Referrers, d.Floods, d.Listed)
	}
	for _, want := range []string{"the image has more than 500 referrers (a referrer flood?)", "the first 500 listed were examined", `500 of other artifact types; the commonest: "` + junkType + `", 500; 0 MCP-RES`, "an MCP-RES bundle listed after them was not seen"} {
		if s := d.Floods[0].String(); !strings.Contains(s, want) {
			t.Errorf("%q\ndoes not say %q", s, want)
		}
	}
	// Control: at exactly the number listed, nothing is left out.
	if d, err := fakeClient(t, Options{MaxListed: 1_201}).Discover(ctx, img); err != nil || d.Truncated() || !found(d, honest) {
		t.Errorf("MaxListed 1,201: floods %+v, %v", d.Floods, err)
	}

	// Manifests: junk listed without a type costs a manifest each. The
	// honest referrer, listed as ours, is read first whatever its place;
	// listed without a type too, it is beyond the bound.
	untyped := f.junk(img.Descriptor, 300, "")
	f.listMany(t, img, append(slices.Clone(untyped), honest))
	d, err = fakeClient(t, Options{MaxManifests: 100}).Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if !found(d, honest) || len(d.Floods) != 1 || d.Floods[0].Bound != BoundManifests || d.Others != 99 ||
		!strings.Contains(d.Floods[0].String(), "more than 100 referrers of the image are listed as MCP-RES artifacts or without a telling artifactType (a referrer flood?)") {
		t.Fatalf("MaxManifests 100: referrers %+v, floods %+v, others %d", d.Referrers, d.Floods, d.Others)
	}
	if n := f.manifestGets(untyped); n != 99 {
		t.Errorf("%d junk manifests fetched, want 99", n)
	}
	hidden := honest
	hidden.ArtifactType = ""
	f.listMany(t, img, append(slices.Clone(untyped), hidden))
	if d, err := fakeClient(t, Options{MaxManifests: 100}).Discover(ctx, img); err != nil || found(d, honest) || len(d.Floods) != 1 {
		t.Errorf("MaxManifests 100, the honest one untyped: referrers %+v, floods %+v, %v", d.Referrers, d.Floods, err)
	}

	// Pages: a registry that lists one referrer a page, 1,201 pages.
	p := &pagedReferrers{img: img, ds: append(slices.Clone(junk), honest), size: 1}
	f.hook = p.hook
	d, err = fakeClient(t, Options{}).Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if found(d, honest) || len(d.Floods) != 1 || d.Floods[0].Bound != BoundPages || d.Listed != maxReferrerPages ||
		!strings.Contains(d.Floods[0].String(), "has more than 1000 pages (a referrer flood?): the 1000 referrers of the first 1000 were examined") {
		t.Fatalf("1,201 pages: referrers %+v, floods %+v, listed %d", d.Referrers, d.Floods, d.Listed)
	}
	// Control: 10 a page.
	p.size = 10
	if d, err := fakeClient(t, Options{}).Discover(ctx, img); err != nil || d.Truncated() || !found(d, honest) {
		t.Errorf("10 a page: floods %+v, %v", d.Floods, err)
	}
}

// TestOCIFloodBundles: junk of our own type does not stop the honest
// referrer: a manifest with the wrong layer is a referrer with its error,
// a layer that is not a bundle is downloaded (verification refuses it);
// past MaxBundles usable referrers, the others are not downloaded and
// the bound is named.
func TestOCIFloodBundles(t *testing.T) {
	ctx := testContext(t)
	f := newFakeRegistry(t)
	img := f.fakeImage("a")
	notBundle := f.fakeReferrer(t, img.Descriptor, []byte("not a bundle"), 12)
	wrongLayer := f.fakeReferrer(t, img.Descriptor, []byte("wrong layer"), 11)
	f.mu.Lock()
	wl := f.manifests[wrongLayer.Digest]
	wl.body = []byte(strings.Replace(string(wl.body), `"mediaType":"`+LayerMediaType+`"`, `"mediaType":"application/octet-stream"`, 1))
	f.manifests[Digest(wl.body)] = wl
	f.mu.Unlock()
	wrongLayer.Digest, wrongLayer.Size = Digest(wl.body), int64(len(wl.body))
	honest := f.fakeReferrer(t, img.Descriptor, bundleAbout, int64(len(bundleAbout)))
	f.listMany(t, img, []Descriptor{notBundle, wrongLayer, honest})

	pull := func(o Options) (Discovery, map[string]Pulled) {
		t.Helper()
		got := map[string]Pulled{}
		d, err := fakeClient(t, o).Pull(ctx, img, func(p Pulled) error { got[p.Descriptor.Digest] = p; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return d, got
	}
	d, got := pull(Options{})
	if len(got) != 3 || d.Truncated() || got[honest.Digest].Err != nil || string(got[honest.Digest].Data) != string(bundleAbout) ||
		got[notBundle.Digest].Err != nil || string(got[notBundle.Digest].Data) != "not a bundle" ||
		got[wrongLayer.Digest].Err == nil || !strings.Contains(got[wrongLayer.Digest].Err.Error(), "layers[0].mediaType") {
		t.Fatalf("floods %+v, pulled %+v", d.Floods, got)
	}
	// MaxBundles 1: the first usable referrer's bundle only; the wrong
	// layer, which downloads nothing, is still handed over.
	d, got = pull(Options{MaxBundles: 1})
	if len(got) != 2 || got[notBundle.Digest].Err != nil || got[wrongLayer.Digest].Err == nil || len(d.Floods) != 1 || d.Floods[0].Bound != BoundBundles ||
		!strings.Contains(d.Floods[0].String(), "more than 1 usable MCP-RES referrers (a referrer flood?): the bundles of the first 1 were downloaded; 1 after them were not") {
		t.Fatalf("MaxBundles 1: floods %+v, pulled %+v", d.Floods, got)
	}
	if n := f.count("GET /v2/" + fakeRepo + "/blobs/" + Digest(bundleAbout)); n != 1 {
		t.Errorf("the honest bundle was downloaded %d times over both pulls, want 1", n)
	}
}

// TestOCIFloodRegistries: junk referrers pushed to the real registries
// before the honest bundle is attached. On distribution (the tag schema):
// 150 listed without a telling type, as a careless index writer may, each
// then read (before the bounds, the honest bundle listed after 100 such
// was not examined), and 1,200 of another type, listed so. On
// go-containerregistry's registry (the referrers API), which lists every
// referrer by its config media type (the empty type, so each is read) in
// random order: 100 and 1,200 of another type. The honest bundle is found
// without a flood; with MaxListed lowered to 500 the flood is named (and
// on distribution, whose index lists the honest bundle last, the bundle
// is not seen).
func TestOCIFloodRegistries(t *testing.T) {
	for name, r := range map[string]func(t *testing.T) *ocitest.Registry{
		"distribution":  func(t *testing.T) *ocitest.Registry { return ocitest.Distribution(t, ocitest.DistributionOptions{}) },
		"referrers API": func(t *testing.T) *ocitest.Registry { return ocitest.ReferrersRegistry(t) },
	} {
		t.Run(name, func(t *testing.T) {
			r := r(t)
			tagSchema := name == "distribution"
			type junk struct {
				tag  string
				junk ocitest.Junk
			}
			cases := []junk{{"100", ocitest.Junk{N: 100}}, {"1200", ocitest.Junk{N: 1_200}}}
			if tagSchema {
				cases[0].junk = ocitest.Junk{N: 150, Untyped: true}
			}
			for _, tc := range cases {
				ctx := testContext(t)
				pushed := r.PushImage(t, "mcp/server", tc.tag, tc.tag)
				junk := r.PushJunk(t, "mcp/server", tc.tag, tc.junk)
				c := newTestClient(t, r)
				img, err := c.Resolve(ctx, pushed.Ref)
				if err != nil {
					t.Fatal(err)
				}
				a, err := c.Attach(ctx, img, checked(t, ocitest.AttestedBundle(t, img.Digest())), AttachOptions{Created: "2026-12-01T00:00:00Z"})
				if err != nil {
					t.Fatal(err)
				}
				d, err := c.Discover(ctx, img)
				if err != nil {
					t.Fatal(err)
				}
				if !found(d, a.Manifest) || len(d.Referrers) != 1 || d.Truncated() || d.Others != len(junk) || d.Listed != len(junk)+1 {
					t.Fatalf("%d junk: referrers %+v, floods %v, others %d, listed %d", len(junk), d.Referrers, d.Floods, d.Others, d.Listed)
				}
				if tc.junk.N < 1_000 {
					continue
				}
				const bound = 500
				c, err = NewClient(Options{Credential: r.Credential(), MaxListed: bound})
				if err != nil {
					t.Fatal(err)
				}
				d, err = c.Discover(ctx, img)
				if err != nil {
					t.Fatal(err)
				}
				if len(d.Floods) != 1 || d.Floods[0].Bound != BoundListed || d.Listed != bound || tagSchema && found(d, a.Manifest) ||
					!strings.Contains(d.Floods[0].String(), fmt.Sprintf("the image has more than %d referrers (a referrer flood?)", bound)) {
					t.Fatalf("MaxListed %d: referrers %+v, floods %v, listed %d", bound, d.Referrers, d.Floods, d.Listed)
				}
			}
		})
	}
}
