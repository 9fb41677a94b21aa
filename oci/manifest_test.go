package oci

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

var (
	testLayer   = Descriptor{MediaType: LayerMediaType, Digest: Digest([]byte("bundle")), Size: 6, Annotations: map[string]string{AnnotationTitle: "x.attested.json"}}
	testSubject = Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest([]byte("image")), Size: 5}
)

// goodManifest is a manifest as Attach writes it, as a tree to mutate.
func goodManifest(t testing.TB) *canonjson.Value {
	t.Helper()
	data, err := artifactManifest(testLayer, testSubject, map[string]string{AnnotationSubjectName: "s", AnnotationCreated: "2026-12-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := canonjson.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return v.Clone()
}

func compact(t testing.TB, v *canonjson.Value) []byte {
	t.Helper()
	b, err := canonjson.Compact(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every rule of ParseArtifactManifest fires for its own fault; the
// manifest Attach writes, and one with members OCI does not define, pass.
func TestParseArtifactManifest(t *testing.T) {
	m, err := ParseArtifactManifest(compact(t, goodManifest(t)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Layer.Digest != testLayer.Digest || m.Layer.Size != 6 || m.Subject.Digest != testSubject.Digest || m.Subject.Size != 5 || m.Annotations[AnnotationSubjectName] != "s" {
		t.Fatalf("read %+v", m)
	}
	if m.Sigstore != nil {
		t.Errorf("a one-layer artifact read with Sigstore layers %v", m.Sigstore)
	}
	// Sigstore bundles after the attested bundle, up to the bound.
	full := goodManifest(t)
	for i := range MaxSigstoreLayers {
		full.Get("layers").Items = append(full.Get("layers").Items, sigstoreLayerValue(i, SigstoreMediaType, int64(100+i)))
	}
	m, err = ParseArtifactManifest(compact(t, full))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sigstore) != MaxSigstoreLayers || m.Sigstore[3].Digest != Digest([]byte("sigstore 3")) || m.Sigstore[3].Size != 103 ||
		m.Sigstore[3].MediaType != SigstoreMediaType || m.Layer.Digest != testLayer.Digest {
		t.Fatalf("read %+v", m)
	}
	extra := goodManifest(t)
	extra.Set("futureMember", canonjson.NewString("ignored"))
	extra.Get("layers").Items[0].Set("urls", canonjson.NewArray(canonjson.NewString("https://example.invalid/x")))
	if _, err := ParseArtifactManifest(compact(t, extra)); err != nil {
		t.Errorf("members the OCI specification does not define: %v", err)
	}

	s, n := canonjson.NewString, canonjson.NewInt
	for _, tc := range []struct {
		name string
		edit func(v *canonjson.Value)
		want string
	}{
		{"schemaVersion 1", func(v *canonjson.Value) { v.Set("schemaVersion", n(1)) }, "schemaVersion is 1"},
		{"no mediaType", func(v *canonjson.Value) { v.Delete("mediaType") }, "mediaType is absent"},
		{"index mediaType", func(v *canonjson.Value) { v.Set("mediaType", s(ocispec.MediaTypeImageIndex)) }, "mediaType is"},
		{"other artifactType", func(v *canonjson.Value) { v.Set("artifactType", s("application/vnd.dev.sigstore.bundle.v0.3+json")) }, "artifactType is"},
		{"no artifactType", func(v *canonjson.Value) { v.Delete("artifactType") }, "artifactType is absent"},
		{"config not empty", func(v *canonjson.Value) { v.Get("config").Set("size", n(3)) }, "config is not the empty descriptor"},
		{"config image", func(v *canonjson.Value) { v.Get("config").Set("mediaType", s(ocispec.MediaTypeImageConfig)) }, "config is not the empty descriptor"},
		{"no layers", func(v *canonjson.Value) { v.Set("layers", canonjson.NewArray()) }, "0 layers"},
		{"two bundle layers", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append(l.Items, l.Items[0].Clone())
		}, "layers[1].mediaType is"},
		{"a foreign layer after the bundle", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append(l.Items, sigstoreLayerValue(1, "application/vnd.example.sbom+json", 10))
		}, `layers[1].mediaType is "application/vnd.example.sbom+json"`},
		{"a foreign layer after a Sigstore bundle", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append(l.Items, sigstoreLayerValue(1, SigstoreMediaType, 10), sigstoreLayerValue(2, ocispec.MediaTypeImageLayer, 10))
		}, "layers[2].mediaType is"},
		{"a Sigstore bundle first", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append([]*canonjson.Value{sigstoreLayerValue(1, SigstoreMediaType, 10)}, l.Items...)
		}, "layers[0].mediaType is"},
		{"an empty Sigstore layer", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append(l.Items, sigstoreLayerValue(1, SigstoreMediaType, 0))
		}, "layers[1].size is 0 bytes"},
		{"a Sigstore layer over 1 MiB", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append(l.Items, sigstoreLayerValue(1, SigstoreMediaType, MaxSigstoreBytes+1))
		}, "layers[1].size is 1048577 bytes"},
		{"a Sigstore layer twice", func(v *canonjson.Value) {
			l := v.Get("layers")
			l.Items = append(l.Items, sigstoreLayerValue(1, SigstoreMediaType, 10), sigstoreLayerValue(1, SigstoreMediaType, 10))
		}, "layers[2].digest"},
		{"a Sigstore layer with a bad digest", func(v *canonjson.Value) {
			l := v.Get("layers")
			sl := sigstoreLayerValue(1, SigstoreMediaType, 10)
			sl.Set("digest", s("sha256:zz"))
			l.Items = append(l.Items, sl)
		}, "layers[1]: digest is"},
		{"too many Sigstore layers", func(v *canonjson.Value) {
			l := v.Get("layers")
			for i := range MaxSigstoreLayers + 1 {
				l.Items = append(l.Items, sigstoreLayerValue(i, SigstoreMediaType, 10))
			}
		}, "10 layers"},
		{"layers not an array", func(v *canonjson.Value) { v.Set("layers", s("x")) }, "not an array"},
		{"layer tar", func(v *canonjson.Value) { v.Get("layers").Items[0].Set("mediaType", s(ocispec.MediaTypeImageLayer)) }, "layers[0].mediaType is"},
		{"layer empty", func(v *canonjson.Value) { v.Get("layers").Items[0].Set("size", n(0)) }, "layers[0].size is 0 bytes"},
		{"layer 1 GB", func(v *canonjson.Value) { v.Get("layers").Items[0].Set("size", n(1<<30)) }, "layers[0].size is 1073741824 bytes"},
		{"layer negative", func(v *canonjson.Value) { v.Get("layers").Items[0].Set("size", n(-1)) }, "layers[0]: size is -1"},
		{"layer sha512", func(v *canonjson.Value) {
			v.Get("layers").Items[0].Set("digest", s("sha512:"+strings.Repeat("ab", 64)))
		}, "layers[0]: digest is"},
		{"layer uppercase hex", func(v *canonjson.Value) {
			v.Get("layers").Items[0].Set("digest", s("sha256:"+strings.Repeat("AB", 32)))
		}, "layers[0]: digest is"},
		{"no subject", func(v *canonjson.Value) { v.Delete("subject") }, "subject is absent"},
		{"subject not an object", func(v *canonjson.Value) { v.Set("subject", s(testSubject.Digest)) }, "subject: is"},
		{"subject short digest", func(v *canonjson.Value) { v.Get("subject").Set("digest", s("sha256:abc")) }, "subject: digest is"},
		{"subject without mediaType", func(v *canonjson.Value) { v.Get("subject").Delete("mediaType") }, "subject: mediaType is absent, want a media type"},
		{"subject empty mediaType", func(v *canonjson.Value) { v.Get("subject").Set("mediaType", s("")) }, `subject: mediaType is "", want a media type`},
		{"subject artifactType a number", func(v *canonjson.Value) { v.Get("subject").Set("artifactType", n(1)) }, "subject: artifactType is 1, want a string"},
		{"annotation number", func(v *canonjson.Value) { v.Get("annotations").Set("n", n(1)) }, `annotations["n"] is 1`},
		{"annotations array", func(v *canonjson.Value) { v.Set("annotations", canonjson.NewArray()) }, "annotations is a JSON array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := goodManifest(t)
			tc.edit(v)
			_, err := ParseArtifactManifest(compact(t, v))
			var me *ManifestError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a *ManifestError containing %q", err, tc.want)
			}
		})
	}

	// The strict reader: a duplicate key (another reader could take the
	// other subject) and trailing data.
	good := compact(t, goodManifest(t))
	dup := bytes.Replace(good, []byte(`"subject":`), []byte(`"subject":{"mediaType":"x","digest":"`+testLayer.Digest+`","size":1},"subject":`), 1)
	if _, err := ParseArtifactManifest(dup); err == nil || !strings.Contains(err.Error(), "not strict JSON") {
		t.Errorf("duplicate subject: %v", err)
	}
	if _, err := ParseArtifactManifest(append(good, []byte(" {}")...)); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := ParseArtifactManifest(bytes.Repeat([]byte(" "), MaxManifestBytes+1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized manifest: %v", err)
	}
}

func TestParseReferrersIndex(t *testing.T) {
	other := `{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + Digest([]byte("sig")) + `","size":10,"artifactType":"application/vnd.dev.cosign.artifact.sig.v1+json","platform":{"os":"linux"}}`
	idx, err := parseReferrersIndex([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + other + `],"annotations":{"k":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	entry := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest([]byte("ours")), Size: 900, ArtifactType: ArtifactType, Annotations: map[string]string{AnnotationClaimedLevel: "SIGNED"}}
	out, err := idx.with(entry)
	if err != nil {
		t.Fatal(err)
	}
	// Another tool's entry and the index's own members are kept as they
	// were; the new entry is listed after them.
	if !bytes.Contains(out, []byte(other)) || !bytes.Contains(out, []byte(`"annotations":{"k":"v"}`)) {
		t.Errorf("rewritten index lost what it had: %s", out)
	}
	again, err := parseReferrersIndex(out)
	if err != nil || !again.digests[entry.Digest] || len(again.digests) != 2 {
		t.Fatalf("rewritten index: %v, %v", again, err)
	}
	if out2, _ := again.with(entry); !bytes.Equal(out2, out) {
		t.Error("adding an entry the index lists changed it")
	}
	// An absent mediaType gets the index media type; no manifests is an
	// empty index.
	out, err = (&referrersIndex{root: mustParse(t, `{"schemaVersion":2}`), digests: map[string]bool{}}).with(entry)
	if err != nil || !bytes.Contains(out, []byte(`"mediaType":"application/vnd.oci.image.index.v1+json"`)) {
		t.Errorf("index without mediaType: %s, %v", out, err)
	}

	for _, tc := range []struct{ doc, want string }{
		{`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","manifests":[]}`, "mediaType is"},
		{`{"schemaVersion":1,"manifests":[]}`, "schemaVersion is 1"},
		{`{"schemaVersion":2,"manifests":{}}`, "manifests is a JSON object"},
		{`{"schemaVersion":2,"manifests":[{"mediaType":"x","digest":"sha256:zz","size":1}]}`, "manifests[0]: digest is"},
		{`{"schemaVersion":2,"manifests":[{"digest":"` + Digest([]byte("sig")) + `","size":1}]}`, "manifests[0]: mediaType is absent, want a media type"},
		{`{"schemaVersion":2,"manifests":[{"mediaType":"x","digest":"` + Digest([]byte("sig")) + `","size":1,"artifactType":["x"]}]}`, "manifests[0]: artifactType is a JSON array, want a string"},
		{`{"schemaVersion":2,"manifests":[],"manifests":[]}`, "not strict JSON"},
		{`[]`, "not a JSON object"},
	} {
		if _, err := parseReferrersIndex([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
}

// sigstoreLayerValue is a layer descriptor of media type mt and size,
// the digest of "sigstore i".
func sigstoreLayerValue(i int, mt string, size int64) *canonjson.Value {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	return canonjson.NewObject(m("mediaType", canonjson.NewString(mt)),
		m("digest", canonjson.NewString(Digest([]byte("sigstore "+strconv.Itoa(i))))), m("size", canonjson.NewInt(size)))
}

func mustParse(t testing.TB, s string) *canonjson.Value {
	t.Helper()
	v, err := canonjson.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.Clone()
}

// FuzzParseArtifactManifest: no input panics, and an accepted manifest
// has sha256 digests, a bundle layer within the bundle limit, at most
// MaxSigstoreLayers Sigstore layers within theirs, no digest twice, and
// reads the same when written again as Attach writes manifests.
func FuzzParseArtifactManifest(f *testing.F) {
	f.Add(compact(f, goodManifest(f)))
	f.Add([]byte(`{"schemaVersion":2}`))
	withSigstore := goodManifest(f)
	l := withSigstore.Get("layers")
	l.Items = append(l.Items, sigstoreLayerValue(1, SigstoreMediaType, 4000), sigstoreLayerValue(2, SigstoreMediaType, 5000))
	f.Add(compact(f, withSigstore))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseArtifactManifest(data)
		if err != nil {
			return
		}
		if !ValidDigest(m.Layer.Digest) || !ValidDigest(m.Subject.Digest) || m.Layer.Size < 1 || m.Layer.Size > MaxBundleBytes || m.Layer.MediaType != LayerMediaType ||
			len(m.Sigstore) > MaxSigstoreLayers {
			t.Fatalf("accepted %+v", m)
		}
		seen := map[string]bool{m.Layer.Digest: true}
		for _, d := range m.Sigstore {
			if !ValidDigest(d.Digest) || seen[d.Digest] || d.Size < 1 || d.Size > MaxSigstoreBytes || d.MediaType != SigstoreMediaType {
				t.Fatalf("accepted the Sigstore layer %+v", d)
			}
			seen[d.Digest] = true
		}
		again, err := artifactManifestWith(m.Layer, m.Sigstore, m.Subject, m.Annotations)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseArtifactManifest(again)
		if err != nil || m2.Layer.Digest != m.Layer.Digest || m2.Subject.Digest != m.Subject.Digest || len(m2.Annotations) != len(m.Annotations) ||
			!sameDigests(m2.Sigstore, m.Sigstore) {
			t.Fatalf("written again: %+v, %v", m2, err)
		}
	})
}

// FuzzParseReferrersIndex: no input panics, and adding an entry to an
// accepted index gives an index that is accepted and lists it and every
// entry it listed.
func FuzzParseReferrersIndex(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`))
	f.Add([]byte(`{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + Digest([]byte("x")) + `","size":3,"annotations":{"a":"b"}}]}`))
	entry := Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest([]byte("ours")), Size: 900, ArtifactType: ArtifactType}
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseReferrersIndex(data)
		if err != nil {
			return
		}
		out, err := idx.with(entry)
		if err != nil {
			return // a string the encoder cannot write (a lone surrogate)
		}
		again, err := parseReferrersIndex(out)
		if err != nil || !again.digests[entry.Digest] {
			t.Fatalf("with an entry: %v", err)
		}
		for d := range idx.digests {
			if !again.digests[d] {
				t.Fatalf("lost %s", d)
			}
		}
	})
}
