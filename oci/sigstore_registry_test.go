package oci

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/ocitest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// variant is a Sigstore bundle with the same envelope as sb and other
// bytes (an unknown member k): it binds to the same envelope.
func variant(t *testing.T, sb []byte, k string) []byte {
	t.Helper()
	v := mustParse(t, string(sb))
	v.Set(k, canonjson.NewString(""))
	return compact(t, v)
}

// attachSigstore attaches the attested bundle with the Sigstore bundles
// sbs, checked by AddSigstore.
func attachSigstore(t *testing.T, c *Client, img Image, attested []byte, sbs ...[]byte) Attachment {
	t.Helper()
	b := checked(t, attested)
	for _, sb := range sbs {
		if err := b.AddSigstore(sb); err != nil {
			t.Fatal(err)
		}
	}
	a, err := c.Attach(testContext(t), img, b, AttachOptions{Created: "2026-12-01T00:00:00Z", ForceSubject: true})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sigstoreFlow: a co-signed bundle attached with both its Sigstore
// bundles is discovered with them and pulled with them, byte for byte,
// under the names attest verify reads beside the bundle; attaching the
// same again is reported, the same bundle with other Sigstore bundles (or
// none: a one-layer artifact, as before) is another artifact; referrers
// of one bundle with different Sigstore bundles get distinct file names.
func sigstoreFlow(t *testing.T, r *ocitest.Registry, wantVia string) {
	ctx := testContext(t)
	pushed := r.PushImage(t, "mcp/keyless", "1.0", "keyless")
	c := newTestClient(t, r)
	img, err := c.Resolve(ctx, pushed.Ref)
	if err != nil {
		t.Fatal(err)
	}
	attested := ocitest.CoSigned(t, ocitest.AttestedBundle(t, img.Digest()))
	sb1, sb2 := ocitest.SigstoreBundle(t, attested, 0), ocitest.SigstoreBundle(t, attested, 1)

	both := attachSigstore(t, c, img, attested, sb1, sb2)
	if both.Existing || both.Via != wantVia {
		t.Fatalf("attach: %+v", both)
	}
	// The same bundle and Sigstore bundles, in another order: reported.
	if again := attachSigstore(t, c, img, attested, sb2, sb1); !again.Existing || again.Manifest.Digest != both.Manifest.Digest {
		t.Fatalf("attaching the same again: %+v, want the existing %s", again, both.Manifest.Digest)
	}
	// The same bundle without its Sigstore bundles is another artifact
	// (before the Sigstore layers, it was taken for the same): one layer.
	bare := attachSigstore(t, c, img, attested)
	if bare.Existing || bare.Manifest.Digest == both.Manifest.Digest {
		t.Fatalf("the bundle alone after the bundle with Sigstore bundles: %+v", bare)
	}
	if again := attachSigstore(t, c, img, attested); !again.Existing || again.Manifest.Digest != bare.Manifest.Digest {
		t.Fatalf("the bundle alone again: %+v", again)
	}
	// The first Sigstore bundle and a third (the same envelope, other
	// bytes): a third artifact of the same bundle.
	sb3 := variant(t, sb1, "x")
	third := attachSigstore(t, c, img, attested, sb1, sb3)

	d, err := c.Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	byDigest := map[string]Referrer{}
	for _, r := range d.Referrers {
		if r.Err != nil {
			t.Fatalf("referrer %s: %v", r.Descriptor.Digest, r.Err)
		}
		byDigest[r.Descriptor.Digest] = r
	}
	m := byDigest[both.Manifest.Digest].Manifest
	if len(d.Referrers) != 3 || m == nil || len(m.Sigstore) != 2 || m.Sigstore[0].Digest != Digest(sb1) || m.Sigstore[1].Digest != Digest(sb2) ||
		len(byDigest[bare.Manifest.Digest].Manifest.Sigstore) != 0 || len(byDigest[third.Manifest.Digest].Manifest.Sigstore) != 2 {
		t.Fatalf("discovered %+v", d.Referrers)
	}
	title := m.Layer.Hex() + ".attested.json"
	if m.Sigstore[0].Annotations[AnnotationTitle] != title+".sigstore.json" || m.Sigstore[1].Annotations[AnnotationTitle] != title+".sigstore.2.json" {
		t.Errorf("Sigstore layer titles %v, %v", m.Sigstore[0].Annotations, m.Sigstore[1].Annotations)
	}
	v := d.Value()
	for _, r := range v.Get("referrers").Items {
		want := len(byDigest[r.Get("digest").Str].Manifest.Sigstore)
		if got := r.Get("sigstore"); !got.Is(canonjson.Array) || len(got.Items) != want {
			t.Errorf("discovery JSON of %s: sigstore %v, want %d", r.Get("digest").Str, got, want)
		}
	}

	files := map[string][]byte{} // file name -> bytes, over the pull
	n := 0
	if _, err := c.Pull(ctx, img, func(p Pulled) error {
		n++
		if p.Err != nil || !bytes.Equal(p.Data, attested) {
			t.Fatalf("pulled %s: %v", p.Descriptor.Digest, p.Err)
		}
		if len(p.Sigstore) != len(p.Manifest.Sigstore) {
			t.Fatalf("pulled %d Sigstore bundles of %d", len(p.Sigstore), len(p.Manifest.Sigstore))
		}
		for i, sb := range p.Sigstore {
			if Digest(sb) != p.Manifest.Sigstore[i].Digest {
				t.Errorf("Sigstore bundle %d: other bytes", i)
			}
			name := p.SigstoreFileName(i)
			if old, ok := files[name]; ok && !bytes.Equal(old, sb) {
				t.Errorf("%s named for two Sigstore bundles", name)
			}
			files[name] = sb
		}
		line, err := IndexLine(img, p, "2026-12-03T00:00:00Z")
		if err != nil {
			t.Fatal(err)
		}
		l := mustParse(t, string(line))
		if got := l.Get("sigstore"); len(p.Sigstore) == 0 && got != nil || len(p.Sigstore) > 0 && (!got.Is(canonjson.Array) || len(got.Items) != len(p.Sigstore) ||
			got.Items[0].Get("file").Str != p.SigstoreFileName(0) || got.Items[0].Get("digest").Str != Digest(p.Sigstore[0])) {
			t.Errorf("index line %s", line)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Three distinct Sigstore bundles of one bundle: three names, from 1,
	// no gap.
	want := []string{sigstore.MaterialName(title, 1), sigstore.MaterialName(title, 2), sigstore.MaterialName(title, 3)}
	if n != 3 || len(files) != 3 {
		t.Fatalf("pulled %d referrers, %d Sigstore files %v; want 3, %v", n, len(files), files, want)
	}
	for _, w := range want {
		if files[w] == nil {
			t.Errorf("no %s among %v", w, files)
		}
	}
}

func TestOCISigstoreReferrersAPI(t *testing.T) {
	sigstoreFlow(t, ocitest.ReferrersRegistry(t), ViaReferrersAPI)
}

func TestOCISigstoreDistribution(t *testing.T) {
	sigstoreFlow(t, ocitest.Distribution(t, ocitest.DistributionOptions{}), ViaReferrersTag)
}

// More than MaxSigstoreLayers distinct Sigstore bundles of one bundle
// over a pull's referrers: the referrer that would pass the bound is not
// pulled (verification would refuse so many beside one file); the others
// are.
func TestOCISigstorePullBound(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	ctx := testContext(t)
	pushed := r.PushImage(t, "mcp/keyless", "1.0", "bound")
	c := newTestClient(t, r)
	img, err := c.Resolve(ctx, pushed.Ref)
	if err != nil {
		t.Fatal(err)
	}
	attested := ocitest.AttestedBundle(t, img.Digest())
	sb := ocitest.SigstoreBundle(t, attested, 0)
	var sbs [][]byte
	for i := range MaxSigstoreLayers + 1 {
		sbs = append(sbs, variant(t, sb, "v"+strings.Repeat("x", i)))
	}
	full := attachSigstore(t, c, img, attested, sbs[:MaxSigstoreLayers]...)
	over := attachSigstore(t, c, img, attested, sbs[MaxSigstoreLayers])
	// Control: a referrer whose one Sigstore bundle is among the first
	// eight is pulled.
	within := attachSigstore(t, c, img, attested, sbs[0])
	got := map[string]error{}
	if _, err := c.Pull(ctx, img, func(p Pulled) error { got[p.Descriptor.Digest] = p.Err; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[within.Manifest.Digest] != nil {
		t.Fatalf("pulled %v", got)
	}
	// Which of the two is refused depends on the listing's order; one is.
	refused := 0
	for _, a := range []Attachment{full, over} {
		if e := got[a.Manifest.Digest]; e != nil {
			if !strings.Contains(e.Error(), "more than 8 Sigstore bundles") {
				t.Errorf("%s: %v", a.Manifest.Digest, e)
			}
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d referrers refused for the bound, want 1: %v", refused, got)
	}
}

// fakeSigstoreReferrer puts an MCP-RES artifact of bundle with the
// Sigstore layers sbs (served as served[i] when given) referring to
// subject.
func (f *fakeRegistry) fakeSigstoreReferrer(t *testing.T, subject Descriptor, bundle []byte, sbs, served [][]byte) Descriptor {
	t.Helper()
	layer := Descriptor{MediaType: LayerMediaType, Digest: Digest(bundle), Size: int64(len(bundle))}
	var ls []Descriptor
	for _, sb := range sbs {
		ls = append(ls, Descriptor{MediaType: SigstoreMediaType, Digest: Digest(sb), Size: int64(len(sb))})
	}
	m, err := artifactManifestWith(layer, ls, subject, map[string]string{AnnotationSubjectName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	d := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(m), Size: int64(len(m)), ArtifactType: ArtifactType}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifests[d.Digest] = fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: m}
	f.blobs[layer.Digest] = fakeObject{mediaType: LayerMediaType, body: bundle}
	for i, sb := range sbs {
		body := sb
		if i < len(served) && served[i] != nil {
			body = served[i]
		}
		f.blobs[ls[i].Digest] = fakeObject{mediaType: SigstoreMediaType, body: body}
	}
	return d
}

// A hostile registry: a Sigstore layer of another attested bundle, one
// whose bytes are not its digest's, and a foreign layer after the bundle
// are each one referrer that is not used; the honest referrer with its
// Sigstore bundle is pulled, and so is a one-layer artifact.
func TestOCIHostileSigstore(t *testing.T) {
	f := newFakeRegistry(t)
	img := f.fakeImage("keyless")
	c := fakeClient(t, Options{})
	ctx := testContext(t)
	attested := ocitest.AttestedBundle(t, img.Digest())
	other := ocitest.AttestedBundle(t, Digest([]byte("another image")))
	sb, otherSB := ocitest.SigstoreBundle(t, attested, 0), ocitest.SigstoreBundle(t, other, 0)

	honest := f.fakeSigstoreReferrer(t, img.Descriptor, attested, [][]byte{sb}, nil)
	oneLayer := f.fakeReferrer(t, img.Descriptor, attested, int64(len(attested)))
	foreignSB := f.fakeSigstoreReferrer(t, img.Descriptor, attested, [][]byte{otherSB}, nil)
	tampered := f.fakeSigstoreReferrer(t, img.Descriptor, attested, [][]byte{variant(t, sb, "y")}, [][]byte{variant(t, sb, "z")})
	// A layer of another type after the bundle, as another tool might add.
	layer := Descriptor{MediaType: LayerMediaType, Digest: Digest(attested), Size: int64(len(attested))}
	sbom := Descriptor{MediaType: "application/spdx+json", Digest: Digest([]byte("sbom")), Size: 4}
	m, err := artifactManifestWith(layer, []Descriptor{sbom}, img.Descriptor, nil)
	if err != nil {
		t.Fatal(err)
	}
	foreignLayer := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(m), Size: int64(len(m)), ArtifactType: ArtifactType}
	f.mu.Lock()
	f.manifests[foreignLayer.Digest] = fakeObject{mediaType: ocispec.MediaTypeImageManifest, body: m}
	f.mu.Unlock()
	f.list(t, img, honest, oneLayer, foreignSB, tampered, foreignLayer)

	got := map[string]Pulled{}
	if _, err := c.Pull(ctx, img, func(p Pulled) error { got[p.Descriptor.Digest] = p; return nil }); err != nil {
		t.Fatal(err)
	}
	if p := got[honest.Digest]; p.Err != nil || len(p.Sigstore) != 1 || !bytes.Equal(p.Sigstore[0], sb) || !bytes.Equal(p.Data, attested) {
		t.Errorf("the honest referrer: %v, %d Sigstore bundles", p.Err, len(p.Sigstore))
	}
	if p := got[oneLayer.Digest]; p.Err != nil || p.Sigstore != nil || !bytes.Equal(p.Data, attested) {
		t.Errorf("the one-layer referrer: %v, %d Sigstore bundles", p.Err, len(p.Sigstore))
	}
	var se *SigstoreError
	if p := got[foreignSB.Digest]; !errors.As(p.Err, &se) || p.Data != nil || p.Sigstore != nil {
		t.Errorf("a Sigstore bundle of another attested bundle: %v", p.Err)
	}
	if p := got[tampered.Digest]; p.Err == nil || !strings.Contains(p.Err.Error(), "fetching the Sigstore bundle layer") || p.Data != nil {
		t.Errorf("a Sigstore layer with other bytes: %v", p.Err)
	}
	if p := got[foreignLayer.Digest]; p.Err == nil || !strings.Contains(p.Err.Error(), `layers[1].mediaType is "application/spdx+json"`) {
		t.Errorf("a foreign layer: %v", p.Err)
	}
	if f.count("/v2/"+fakeRepo+"/blobs/"+sbom.Digest) != 0 {
		t.Error("the foreign layer was requested")
	}
	// --oci's fetch: FetchSigstore of the honest referrer alone.
	var honestRef Referrer
	d, err := c.Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Referrers {
		if r.Descriptor.Digest == honest.Digest {
			honestRef = r
		}
	}
	if sbs, err := c.FetchSigstore(ctx, img, honestRef); err != nil || len(sbs) != 1 || !bytes.Equal(sbs[0], sb) {
		t.Errorf("FetchSigstore: %d, %v", len(sbs), err)
	}
}
