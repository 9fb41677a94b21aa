package oci

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/pulled"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// The media types and annotations of an MCP-RES artifact (see the package
// documentation). They are stable: changing one would hide every artifact
// already published.
const (
	// ArtifactType is the artifactType of the manifest of an attested
	// bundle published by mcpres, and the media type of its one layer,
	// which holds the mcp-res.attested-conformance-bundle/0.2.0 document's
	// exact bytes.
	ArtifactType = "application/vnd.mcpres.attested-bundle.v1+json"
	// LayerMediaType is the media type of the layer: ArtifactType.
	LayerMediaType = ArtifactType
	// SigstoreMediaType is the media type of the optional layers after
	// the bundle's: each a Sigstore bundle v0.3 (certificate, RFC 3161
	// timestamp and one DSSE envelope of the attested bundle) for keyless
	// verification, as attest sign --keyless writes them beside the
	// bundle file.
	SigstoreMediaType = sigstore.MediaType

	// AnnotationSubjectName and AnnotationSubjectVersion are the bundle's
	// evidence.subject name and version.
	AnnotationSubjectName    = "io.github.mcpres.subject.name"
	AnnotationSubjectVersion = "io.github.mcpres.subject.version"
	// AnnotationClaimedLevel is the attested bundle's claimed
	// classification (authenticity.claimedClassification): a claim, which
	// only verification against a trust policy can confirm.
	AnnotationClaimedLevel = "io.github.mcpres.claimed-level"
	// AnnotationCreated is when the artifact was attached (RFC 3339).
	AnnotationCreated = ocispec.AnnotationCreated
	// AnnotationTitle names the layer's file for tools that write layers
	// to files (oras pull): the bundle's digest, never a name taken from
	// the registry (mcpres names pulled files itself).
	AnnotationTitle = ocispec.AnnotationTitle
)

// The empty config descriptor of OCI image-spec 1.1 artifacts: the two
// bytes "{}".
const (
	emptyMediaType = ocispec.MediaTypeEmptyJSON
	emptyDigest    = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
	emptySize      = 2
)

var emptyJSON = []byte("{}")

// Limits on what is read from a registry. A descriptor whose size exceeds
// its limit is refused before anything is requested.
const (
	// MaxManifestBytes bounds an image manifest, an image index and one
	// page of a referrers list (the limit most registries apply to
	// manifests).
	MaxManifestBytes = 4 << 20
	// MaxBundleBytes bounds a layer: the strict reader's input limit
	// (canonjson.MaxInputBytes), so that nothing is downloaded that could
	// not be verified.
	MaxBundleBytes = canonjson.MaxInputBytes
	// MaxSigstoreBytes bounds a Sigstore bundle layer (1 MiB, as
	// attest verify bounds a Sigstore bundle file).
	MaxSigstoreBytes = pulled.MaxSigstoreBytes
	// MaxSigstoreLayers bounds the Sigstore bundle layers of one artifact:
	// one per keyless envelope (sigstore.MaxMaterial).
	MaxSigstoreLayers = sigstore.MaxMaterial
)

// A Descriptor is an OCI content descriptor as mcpres reads it: only
// sha256 digests are accepted.
type Descriptor struct {
	MediaType    string
	Digest       string // "sha256:" and 64 lowercase hexadecimal digits
	Size         int64
	ArtifactType string
	Annotations  map[string]string
}

// Hex is the digest's hexadecimal part.
func (d Descriptor) Hex() string { return d.Digest[len("sha256:"):] }

// A ManifestError says why a manifest or an index is not what mcpres
// accepts; Digest names it when known.
type ManifestError struct {
	Digest string
	Reason string
}

func (e *ManifestError) Error() string {
	if e.Digest == "" {
		return e.Reason
	}
	return e.Digest + ": " + e.Reason
}

// ValidDigest reports whether d is "sha256:" followed by 64 lowercase
// hexadecimal digits, the only digest form mcpres accepts.
func ValidDigest(d string) bool {
	h, ok := cutSha256(d)
	return ok && validHex(h)
}

func cutSha256(d string) (string, bool) {
	const p = "sha256:"
	if len(d) != len(p)+64 || d[:len(p)] != p {
		return "", false
	}
	return d[len(p):], true
}

func validHex(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := range len(h) {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Digest returns the sha256 digest of b as "sha256:HEX".
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// An ArtifactManifest is the image manifest of an MCP-RES artifact, read
// by [ParseArtifactManifest].
type ArtifactManifest struct {
	// Layer is the first layer: the attested bundle.
	Layer Descriptor
	// Sigstore are the further layers, in order: the attested bundle's
	// Sigstore bundles (none for an artifact of a key-signed bundle, or
	// one attached before they were carried).
	Sigstore []Descriptor
	// Subject is the image the artifact refers to.
	Subject Descriptor
	// Annotations are the manifest's annotations (nil when absent).
	Annotations map[string]string
}

// ParseArtifactManifest reads an OCI image manifest of an MCP-RES
// artifact: the strict reader (no duplicate keys, so that no two readers
// see different manifests in the same bytes), schemaVersion 2, the image
// manifest media type, artifactType [ArtifactType], the empty config
// descriptor, a first layer of [LayerMediaType] of 1 to [MaxBundleBytes]
// bytes followed by at most [MaxSigstoreLayers] layers of
// [SigstoreMediaType] of 1 to [MaxSigstoreBytes] bytes each (any other
// layer is refused, and no two layers have the same digest), and a
// subject. Digests are sha256. Members the
// OCI image specification does not define are ignored, as it requires;
// the layer's and config's urls and data are never used.
func ParseArtifactManifest(data []byte) (*ArtifactManifest, error) {
	fail := func(format string, args ...any) (*ArtifactManifest, error) {
		return nil, &ManifestError{Reason: fmt.Sprintf(format, args...)}
	}
	root, err := parseObject(data, "manifest")
	if err != nil {
		return nil, err
	}
	if err := schemaVersion2(root); err != nil {
		return nil, err
	}
	if mt := root.Get("mediaType"); !mt.Is(canonjson.String) || mt.Str != ocispec.MediaTypeImageManifest {
		return fail("mediaType is %s, want %q", describe(mt), ocispec.MediaTypeImageManifest)
	}
	if at := root.Get("artifactType"); !at.Is(canonjson.String) || at.Str != ArtifactType {
		return fail("artifactType is %s, want %q", describe(at), ArtifactType)
	}
	cfg, err := descriptorAt(root.Get("config"), "config")
	if err != nil {
		return nil, err
	}
	if cfg.MediaType != emptyMediaType || cfg.Digest != emptyDigest || cfg.Size != emptySize {
		return fail("config is not the empty descriptor (%s, %s, 2 bytes)", emptyMediaType, emptyDigest)
	}
	layers := root.Get("layers")
	if !layers.Is(canonjson.Array) || len(layers.Items) < 1 || len(layers.Items) > 1+MaxSigstoreLayers {
		n := "not an array"
		if layers.Is(canonjson.Array) {
			n = strconv.Itoa(len(layers.Items)) + " layers"
		}
		return fail("layers: %s, want the attested bundle and at most %d Sigstore bundles", n, MaxSigstoreLayers)
	}
	layer, err := descriptorAt(layers.Items[0], "layers[0]")
	if err != nil {
		return nil, err
	}
	if layer.MediaType != LayerMediaType {
		return fail("layers[0].mediaType is %q, want %q", layer.MediaType, LayerMediaType)
	}
	if layer.Size < 1 || layer.Size > MaxBundleBytes {
		return fail("layers[0].size is %d bytes, want 1 to %d (the bundle limit)", layer.Size, MaxBundleBytes)
	}
	seen := map[string]bool{layer.Digest: true}
	var sb []Descriptor
	for i, it := range layers.Items[1:] {
		where := "layers[" + strconv.Itoa(i+1) + "]"
		d, err := descriptorAt(it, where)
		if err != nil {
			return nil, err
		}
		if d.MediaType != SigstoreMediaType {
			return fail("%s.mediaType is %q, want %q (a Sigstore bundle; no other layer follows the attested bundle)", where, d.MediaType, SigstoreMediaType)
		}
		if d.Size < 1 || d.Size > MaxSigstoreBytes {
			return fail("%s.size is %d bytes, want 1 to %d (the Sigstore bundle limit)", where, d.Size, MaxSigstoreBytes)
		}
		if seen[d.Digest] {
			return fail("%s.digest %s is another layer's too", where, d.Digest)
		}
		seen[d.Digest] = true
		sb = append(sb, d)
	}
	if !root.Has("subject") {
		return fail("subject is absent: the artifact refers to no image")
	}
	subject, err := descriptorAt(root.Get("subject"), "subject")
	if err != nil {
		return nil, err
	}
	ann, err := annotations(root.Get("annotations"), "annotations")
	if err != nil {
		return nil, err
	}
	return &ArtifactManifest{Layer: layer, Sigstore: sb, Subject: subject, Annotations: ann}, nil
}

// parseObject reads data with the strict reader; the root must be an
// object.
func parseObject(data []byte, what string) (*canonjson.Value, error) {
	if len(data) > MaxManifestBytes {
		return nil, &ManifestError{Reason: fmt.Sprintf("%s is larger than %d bytes", what, MaxManifestBytes)}
	}
	root, err := canonjson.Parse(data)
	if err != nil {
		return nil, &ManifestError{Reason: what + " is not strict JSON: " + err.Error()}
	}
	if !root.Is(canonjson.Object) {
		return nil, &ManifestError{Reason: what + " is not a JSON object"}
	}
	return root, nil
}

func schemaVersion2(root *canonjson.Value) error {
	if sv := root.Get("schemaVersion"); !sv.Is(canonjson.Int) || sv.Int != 2 {
		return &ManifestError{Reason: "schemaVersion is " + describe(sv) + ", want 2"}
	}
	return nil
}

// describe renders a value for an error message: absent, its kind, or a
// short scalar.
func describe(v *canonjson.Value) string {
	switch {
	case v == nil:
		return "absent"
	case v.Kind == canonjson.String:
		s := v.Str
		if len(s) > 80 {
			s = s[:80] + "…"
		}
		return strconv.Quote(s)
	case v.Kind == canonjson.Int:
		return strconv.FormatInt(v.Int, 10)
	}
	return "a JSON " + v.Kind.String()
}

// descriptorAt reads an OCI descriptor: mediaType, a sha256 digest and a
// size are required; artifactType and annotations are read when present.
func descriptorAt(v *canonjson.Value, where string) (Descriptor, error) {
	fail := func(format string, args ...any) (Descriptor, error) {
		return Descriptor{}, &ManifestError{Reason: where + ": " + fmt.Sprintf(format, args...)}
	}
	if !v.Is(canonjson.Object) {
		return fail("is %s, want a descriptor object", describe(v))
	}
	var d Descriptor
	mt := v.Get("mediaType")
	if !mt.Is(canonjson.String) || mt.Str == "" {
		return fail("mediaType is %s, want a media type", describe(mt))
	}
	d.MediaType = mt.Str
	dg := v.Get("digest")
	if !dg.Is(canonjson.String) || !ValidDigest(dg.Str) {
		return fail("digest is %s, want sha256: and 64 lowercase hexadecimal digits", describe(dg))
	}
	d.Digest = dg.Str
	sz := v.Get("size")
	if !sz.Is(canonjson.Int) || sz.Int < 0 {
		return fail("size is %s, want a byte count", describe(sz))
	}
	d.Size = sz.Int
	if at := v.Get("artifactType"); at != nil {
		if !at.Is(canonjson.String) {
			return fail("artifactType is %s, want a string", describe(at))
		}
		d.ArtifactType = at.Str
	}
	ann, err := annotations(v.Get("annotations"), where+".annotations")
	if err != nil {
		return Descriptor{}, err
	}
	d.Annotations = ann
	return d, nil
}

// annotations reads an annotations object (string values only); nil when
// absent.
func annotations(v *canonjson.Value, where string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	if !v.Is(canonjson.Object) {
		return nil, &ManifestError{Reason: where + " is " + describe(v) + ", want an object of strings"}
	}
	m := make(map[string]string, len(v.Members))
	for _, mb := range v.Members {
		if !mb.Value.Is(canonjson.String) {
			return nil, &ManifestError{Reason: fmt.Sprintf("%s[%q] is %s, want a string", where, mb.Key, describe(mb.Value))}
		}
		m[mb.Key] = mb.Value.Str
	}
	return m, nil
}

// artifactManifest builds the manifest of an attested bundle whose bytes
// have descriptor layer, referring to subject.
func artifactManifest(layer, subject Descriptor, ann map[string]string) ([]byte, error) {
	return artifactManifestWith(layer, nil, subject, ann)
}

// artifactManifestWith builds the manifest of an attested bundle whose
// bytes have descriptor layer and whose Sigstore bundles have descriptors
// sb, referring to subject.
func artifactManifestWith(layer Descriptor, sb []Descriptor, subject Descriptor, ann map[string]string) ([]byte, error) {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	s := canonjson.NewString
	desc := func(d Descriptor, extra ...canonjson.Member) *canonjson.Value {
		ms := []canonjson.Member{m("mediaType", s(d.MediaType)), m("digest", s(d.Digest)), m("size", canonjson.NewInt(d.Size))}
		return canonjson.NewObject(append(ms, extra...)...)
	}
	cfg := desc(Descriptor{MediaType: emptyMediaType, Digest: emptyDigest, Size: emptySize}, m("data", s("e30=")))
	ls := []*canonjson.Value{desc(layer, m("annotations", stringObject(layer.Annotations)))}
	for _, d := range sb {
		ls = append(ls, desc(d, m("annotations", stringObject(d.Annotations))))
	}
	root := canonjson.NewObject(
		m("schemaVersion", canonjson.NewInt(2)),
		m("mediaType", s(ocispec.MediaTypeImageManifest)),
		m("artifactType", s(ArtifactType)),
		m("config", cfg),
		m("layers", canonjson.NewArray(ls...)),
		m("subject", desc(subject)),
		m("annotations", stringObject(ann)),
	)
	return canonjson.Compact(root)
}

// stringObject is a JSON object of m's members in canonical key order.
func stringObject(m map[string]string) *canonjson.Value {
	o := canonjson.NewObject()
	for _, k := range sortedKeys(m) {
		o.Members = append(o.Members, canonjson.Member{Key: k, Value: canonjson.NewString(m[k])})
	}
	return o
}

// A referrersIndex is an image index read from a referrers tag
// (sha256-HEX) to be rewritten with one more entry: every member of the
// document and of its entries is kept as it was.
type referrersIndex struct {
	root    *canonjson.Value
	digests map[string]bool // the entries' digests
}

// parseReferrersIndex reads an image index kept under a referrers tag,
// strictly: schemaVersion 2, the image index media type when given, and
// manifests (when present) an array of descriptors. An index mcpres
// does not understand is refused rather than rewritten without what it
// could not read.
func parseReferrersIndex(data []byte) (*referrersIndex, error) {
	root, err := parseObject(data, "referrers index")
	if err != nil {
		return nil, err
	}
	if err := schemaVersion2(root); err != nil {
		return nil, err
	}
	if mt := root.Get("mediaType"); mt != nil && (!mt.Is(canonjson.String) || mt.Str != ocispec.MediaTypeImageIndex) {
		return nil, &ManifestError{Reason: fmt.Sprintf("mediaType is %s, want %q", describe(mt), ocispec.MediaTypeImageIndex)}
	}
	idx := &referrersIndex{root: root, digests: map[string]bool{}}
	ms := root.Get("manifests")
	if ms == nil {
		return idx, nil
	}
	if !ms.Is(canonjson.Array) {
		return nil, &ManifestError{Reason: "manifests is " + describe(ms) + ", want an array"}
	}
	for i, it := range ms.Items {
		d, err := descriptorAt(it, "manifests["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		idx.digests[d.Digest] = true
	}
	return idx, nil
}

// newReferrersIndex is the index of a referrers tag that does not exist
// yet.
func newReferrersIndex() *referrersIndex {
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	root := canonjson.NewObject(
		m("schemaVersion", canonjson.NewInt(2)),
		m("mediaType", canonjson.NewString(ocispec.MediaTypeImageIndex)),
		m("manifests", canonjson.NewArray()),
	)
	return &referrersIndex{root: root, digests: map[string]bool{}}
}

// with returns the index's bytes with entry d added (unchanged when the
// index already lists d's digest), with the image index media type.
func (x *referrersIndex) with(d Descriptor) ([]byte, error) {
	root := x.root.Clone()
	if !root.Has("mediaType") {
		root.Set("mediaType", canonjson.NewString(ocispec.MediaTypeImageIndex))
	}
	if !x.digests[d.Digest] {
		m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
		s := canonjson.NewString
		e := canonjson.NewObject(m("mediaType", s(d.MediaType)), m("digest", s(d.Digest)), m("size", canonjson.NewInt(d.Size)),
			m("artifactType", s(d.ArtifactType)), m("annotations", stringObject(d.Annotations)))
		ms := root.Get("manifests")
		if ms == nil {
			ms = canonjson.NewArray()
			root.Set("manifests", ms)
		}
		ms.Items = append(ms.Items, e)
	}
	return canonjson.Compact(root)
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
