package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	digest "github.com/opencontainers/go-digest"
)

// An Image is an image (or any manifest) resolved to its digest.
type Image struct {
	// Name is the reference as given (a tag or a digest reference).
	Name string
	// Registry is host[:port], Repository the repository path.
	Registry, Repository string
	// Descriptor is the manifest's: its media type, the sha256 digest of
	// the bytes the registry served (computed here, never taken from a
	// header) and their size.
	Descriptor Descriptor
}

// Digest is the image's manifest digest, "sha256:HEX".
func (img Image) Digest() string { return img.Descriptor.Digest }

// String is the image's digest reference: REGISTRY/REPOSITORY@sha256:HEX.
func (img Image) String() string {
	return img.Registry + "/" + img.Repository + "@" + img.Descriptor.Digest
}

// Ref is the digest reference of another manifest of the image's
// repository.
func (img Image) Ref(dgst string) string { return img.Registry + "/" + img.Repository + "@" + dgst }

// A ReferenceError is an image reference mcpres cannot use.
type ReferenceError struct {
	Name   string
	Reason string
}

func (e *ReferenceError) Error() string {
	return fmt.Sprintf("image reference %q: %s", e.Name, e.Reason)
}

// parseReference parses REGISTRY/REPOSITORY:TAG or
// REGISTRY/REPOSITORY@sha256:HEX (or both, the digest winning).
func parseReference(name string) (registry.Reference, error) {
	ref, err := registry.ParseReference(name)
	if err != nil {
		return registry.Reference{}, &ReferenceError{Name: name, Reason: strings.TrimPrefix(err.Error(), "invalid reference: ")}
	}
	if ref.Reference == "" {
		return registry.Reference{}, &ReferenceError{Name: name, Reason: "name a tag (:TAG) or a digest (@sha256:HEX); no tag is assumed"}
	}
	if strings.Contains(ref.Reference, ":") && !ValidDigest(ref.Reference) {
		return registry.Reference{}, &ReferenceError{Name: name, Reason: "the digest must be sha256: and 64 lowercase hexadecimal digits"}
	}
	return ref, nil
}

// manifestMediaTypes are the manifests an image reference may resolve to.
var manifestMediaTypes = []string{
	ocispec.MediaTypeImageManifest,
	ocispec.MediaTypeImageIndex,
	"application/vnd.docker.distribution.manifest.v2+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
}

// Resolve resolves name (REGISTRY/REPOSITORY:TAG or
// REGISTRY/REPOSITORY@sha256:HEX) to its manifest. The manifest is
// downloaded (at most MaxManifestBytes) and its digest computed here: a
// registry that serves bytes of another digest than the one asked for, or
// than the one its Docker-Content-Digest header names, is an error.
func (c *Client) Resolve(ctx context.Context, name string) (Image, error) {
	ref, err := parseReference(name)
	if err != nil {
		return Image{}, err
	}
	repo := c.repository(ref)
	repo.ManifestMediaTypes = manifestMediaTypes
	desc, rc, err := repo.FetchReference(ctx, ref.Reference)
	if err != nil {
		return Image{}, registryError("resolving "+name, err)
	}
	defer rc.Close()
	if desc.Size > MaxManifestBytes {
		return Image{}, fmt.Errorf("resolving %s: the manifest is %d bytes, more than the limit of %d", name, desc.Size, MaxManifestBytes)
	}
	data, err := readAtMost(rc, MaxManifestBytes)
	if err != nil {
		return Image{}, fmt.Errorf("resolving %s: reading the manifest: %w", name, err)
	}
	got := Digest(data)
	if ValidDigest(ref.Reference) && got != ref.Reference {
		return Image{}, fmt.Errorf("resolving %s: the registry served a manifest whose digest is %s", name, got)
	}
	if desc.Digest != "" && string(desc.Digest) != got {
		return Image{}, fmt.Errorf("resolving %s: the registry says the manifest digest is %s, but the bytes it served have digest %s", name, desc.Digest, got)
	}
	mt := desc.MediaType
	if mt == "" {
		return Image{}, fmt.Errorf("resolving %s: the registry gave no media type for the manifest", name)
	}
	return Image{Name: name, Registry: ref.Registry, Repository: ref.Repository,
		Descriptor: Descriptor{MediaType: mt, Digest: got, Size: int64(len(data))}}, nil
}

// readAtMost reads r to its end, failing when it holds more than limit
// bytes (limit+1 are read at most).
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("more than %d bytes", limit)
	}
	return data, nil
}

// readVerified reads exactly d.Size bytes of r and checks their digest;
// d.Size must be within limit (checked before anything is read).
func readVerified(r io.Reader, d Descriptor, limit int64) ([]byte, error) {
	if d.Size < 0 || d.Size > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the limit of %d", d.Digest, d.Size, limit)
	}
	data, err := io.ReadAll(io.LimitReader(r, d.Size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != d.Size {
		return nil, fmt.Errorf("%s: the registry served %s bytes, the descriptor says %d", d.Digest, sizeText(len(data), d.Size), d.Size)
	}
	if got := Digest(data); got != d.Digest {
		return nil, fmt.Errorf("%s: the registry served bytes whose digest is %s", d.Digest, got)
	}
	return data, nil
}

func sizeText(n int, want int64) string {
	if int64(n) > want {
		return "more than " + fmt.Sprint(want)
	}
	return fmt.Sprint(n)
}

// registryError words an error of the registry client: an HTTP error
// answer names its status and the registry's error codes, a missing
// manifest says so.
func registryError(what string, err error) error {
	var er *errcode.ErrorResponse
	switch {
	case errors.As(err, &er):
		return fmt.Errorf("%s: the registry answered %d %s%s", what, er.StatusCode, http.StatusText(er.StatusCode), errorCodes(er))
	case errors.Is(err, errdef.ErrNotFound):
		return fmt.Errorf("%s: not found", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func errorCodes(er *errcode.ErrorResponse) string {
	var cs []string
	for _, e := range er.Errors {
		s := e.Code
		if e.Message != "" {
			s += " (" + e.Message + ")"
		}
		cs = append(cs, s)
	}
	if len(cs) == 0 {
		return ""
	}
	return ": " + strings.Join(cs, ", ")
}

// How the referrers of an image were found.
const (
	ViaReferrersAPI = "referrers API"
	ViaReferrersTag = "referrers tag schema"
)

// A Referrer is one MCP-RES artifact found referring to an image.
type Referrer struct {
	// Descriptor is the referrer's manifest descriptor as listed.
	Descriptor Descriptor
	// Manifest is its manifest, read and checked (digest, size, shape,
	// subject = the image); nil when Err is set.
	Manifest *ArtifactManifest
	// Err says why the referrer cannot be used: its manifest could not be
	// fetched, is not what it is listed as, or refers to another image.
	Err error
}

// Name is the referrer's manifest digest reference in img's repository.
func (r Referrer) Name(img Image) string { return img.Ref(r.Descriptor.Digest) }

// A Discovery is what [Client.Discover] found.
type Discovery struct {
	Image Image
	// Via is ViaReferrersAPI or ViaReferrersTag.
	Via string
	// Filtered says that the registry applied the artifactType filter to
	// the listing (the OCI-Filters-Applied header of the referrers API):
	// referrers of other types were not even listed.
	Filtered bool
	// Referrers are the MCP-RES referrers (with their errors): first
	// those listed as MCP-RES artifacts, then those whose manifest showed
	// it, each in the registry's order.
	Referrers []Referrer
	// Listed counts the listed referrers examined, of every artifact
	// type.
	Listed int
	// Others counts the referrers of other artifact types (signatures,
	// SBOMs…), by listing or by manifest, which are not used; OtherTypes
	// counts them by artifact type ("" when listed without one).
	Others     int
	OtherTypes map[string]int
	// Floods are the bounds reached (Options.MaxListed…), in the order
	// reached: referrers beyond them were not examined, and an MCP-RES
	// bundle among them was not seen. Empty when nothing was left out.
	Floods []Flood
}

// Truncated says that a bound was reached: a referrer beyond it may
// exist.
func (d Discovery) Truncated() bool { return len(d.Floods) > 0 }

// The bounds a [Flood] names.
const (
	// BoundListed: more referrers are listed than Options.MaxListed.
	BoundListed = "listed"
	// BoundPages: the referrers API listing has more pages than 1,000.
	BoundPages = "pages"
	// BoundManifests: more candidates (listed as MCP-RES artifacts or
	// without a telling type) than Options.MaxManifests.
	BoundManifests = "manifests"
	// BoundBundles: more usable MCP-RES referrers than Options.MaxBundles
	// ([Client.Pull]).
	BoundBundles = "bundles"
)

// A Flood is a bound on the referrers of an image that was reached,
// with what was examined before it (a referrer flood?).
type Flood struct {
	// Bound is BoundListed, BoundPages, BoundManifests or BoundBundles;
	// Limit its value.
	Bound string
	Limit int
	// Listed, Others, Unread and Found are the discovery's counts:
	// referrers listed and examined, those of other artifact types,
	// candidates whose manifests were not read (beyond MaxManifests), and
	// the MCP-RES referrers that can be used.
	Listed, Others, Unread, Found int
	// TopType is the commonest other artifact type and TopCount its count
	// ("", 0 when there are none).
	TopType  string
	TopCount int
}

// String says what was reached and what was not seen, naming the flood.
func (f Flood) String() string {
	top := ""
	if f.TopCount > 0 {
		t := f.TopType
		if t == "" {
			t = "(none)"
		}
		top = fmt.Sprintf("; the commonest: %q, %d", clip(t), f.TopCount)
	}
	unread := ""
	if f.Unread > 0 {
		unread = fmt.Sprintf("; %d not read, beyond the bound on manifests", f.Unread)
	}
	examined := fmt.Sprintf("%d of other artifact types%s%s; %d MCP-RES", f.Others, top, unread, f.Found)
	switch f.Bound {
	case BoundListed:
		return fmt.Sprintf("the image has more than %d referrers (a referrer flood?): the first %d listed were examined (%s); an MCP-RES bundle listed after them was not seen", f.Limit, f.Limit, examined)
	case BoundPages:
		return fmt.Sprintf("the referrers listing of the image has more than %d pages (a referrer flood?): the %d referrers of the first %d were examined (%s); an MCP-RES bundle listed after them was not seen", f.Limit, f.Listed, f.Limit, examined)
	case BoundManifests:
		return fmt.Sprintf("more than %d referrers of the image are listed as MCP-RES artifacts or without a telling artifactType (a referrer flood?): the manifests of the first %d were read (%s); an MCP-RES bundle after them was not seen", f.Limit, f.Limit, examined)
	case BoundBundles:
		return fmt.Sprintf("the image has more than %d usable MCP-RES referrers (a referrer flood?): the bundles of the first %d were downloaded; %d after them were not", f.Limit, f.Limit, f.Found-f.Limit)
	}
	return "bound " + f.Bound + " reached"
}

// clip shortens a string from a registry for a message.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// flood records that bound was reached, unread candidates not having
// been read.
func (d *Discovery) flood(bound string, limit, unread int) {
	f := Flood{Bound: bound, Limit: limit, Listed: d.Listed, Others: d.Others, Unread: unread, Found: d.usable()}
	for t, n := range d.OtherTypes {
		if n > f.TopCount || n == f.TopCount && t < f.TopType {
			f.TopType, f.TopCount = t, n
		}
	}
	d.Floods = append(d.Floods, f)
}

// usable counts the referrers that can be used.
func (d *Discovery) usable() int {
	n := 0
	for _, r := range d.Referrers {
		if r.Err == nil {
			n++
		}
	}
	return n
}

func (d *Discovery) other(artifactType string) {
	d.Others++
	if d.OtherTypes == nil {
		d.OtherTypes = map[string]int{}
	}
	d.OtherTypes[artifactType]++
}

// errStop ends a referrers listing early.
var errStop = errors.New("stop listing")

// Discover lists the MCP-RES referrers of img by the standard rule
// (OCI distribution-spec 1.1, as oras-go implements it): the referrers
// API when the registry answers it, the referrers tag schema
// (sha256-HEX) when it answers 404, and any other answer is an error.
//
// The referrers API is asked for referrers of artifactType ArtifactType
// only (?artifactType=); a registry that says it applied the filter
// (OCI-Filters-Applied) and lists no candidate is asked again without it,
// so that a filter that disagrees with the listing cannot hide a bundle.
// Every listing, filtered or not, is filtered here too: a referrer listed
// with artifactType ArtifactType, or with none or a generic one (the empty
// config type, as some registries list the config media type instead), is
// a candidate; one listed with another type is counted in Others and
// nothing is fetched for it. The listing is read page after page up to
// Options.MaxListed referrers (and 1,000 pages).
//
// The manifests of the candidates, those listed as ArtifactType first,
// are fetched (at most Options.MaxManifests, a few at a time; digest and
// size checked against the listing) and read with ParseArtifactManifest,
// and each must refer to img (same digest, size and media type). A
// candidate whose manifest shows another type is counted in Others. A
// bound reached is recorded in Floods.
func (c *Client) Discover(ctx context.Context, img Image) (Discovery, error) {
	ref := registry.Reference{Registry: img.Registry, Repository: img.Repository}
	repo := c.repository(ref)
	d, cands, bound, err := c.list(ctx, repo, img, true)
	if err == nil && d.Filtered && len(cands) == 0 {
		d, cands, bound, err = c.list(ctx, repo, img, false)
	}
	if err != nil {
		return Discovery{}, registryError("listing the referrers of "+img.String(), err)
	}
	unread := max(len(cands)-c.opts.MaxManifests, 0)
	cands = cands[:len(cands)-unread]
	type result struct {
		m   *ArtifactManifest
		err error
	}
	results := make([]result, len(cands))
	var wg sync.WaitGroup
	sem := make(chan struct{}, manifestFetchers)
	for i, cd := range cands {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			m, err := c.fetchManifest(ctx, repo, img, cd)
			results[i] = result{m, err}
		})
	}
	wg.Wait()
	for i, cd := range cands {
		var other *notOursError
		if errors.As(results[i].err, &other) {
			d.other(other.artifactType)
			continue
		}
		d.Referrers = append(d.Referrers, Referrer{Descriptor: cd, Manifest: results[i].m, Err: results[i].err})
	}
	switch bound {
	case BoundListed:
		d.flood(bound, c.opts.MaxListed, unread)
	case BoundPages:
		d.flood(bound, maxReferrerPages, unread)
	}
	if unread > 0 {
		d.flood(BoundManifests, c.opts.MaxManifests, unread)
	}
	return d, nil
}

// list reads the referrers listing of img (with the artifactType filter
// when filter), up to Options.MaxListed referrers and maxReferrerPages
// pages: the discovery so far, the candidates (those listed as
// ArtifactType first) and the bound reached ("" when none).
func (c *Client) list(ctx context.Context, repo *remote.Repository, img Image, filter bool) (Discovery, []Descriptor, string, error) {
	d := Discovery{Image: img}
	seen := map[string]bool{}
	var ours, generic []Descriptor
	subject := ocispec.Descriptor{MediaType: img.Descriptor.MediaType, Digest: digest.Digest(img.Digest()), Size: img.Descriptor.Size}
	rf := &referrersFilter{artifactType: ArtifactType}
	if filter {
		ctx = withFilter(ctx, rf)
	}
	bound := ""
	err := repo.Referrers(ctx, subject, "", func(page []ocispec.Descriptor) error {
		for _, od := range page {
			if d.Listed == c.opts.MaxListed {
				bound = BoundListed
				return errStop
			}
			d.Listed++
			dg := string(od.Digest)
			if seen[dg] {
				continue
			}
			seen[dg] = true
			cd := Descriptor{MediaType: od.MediaType, Digest: dg, Size: od.Size, ArtifactType: od.ArtifactType, Annotations: od.Annotations}
			switch {
			case od.MediaType != ocispec.MediaTypeImageManifest:
				d.other(od.ArtifactType)
			case od.ArtifactType == ArtifactType:
				ours = append(ours, cd)
			case od.ArtifactType == "" || od.ArtifactType == emptyMediaType:
				generic = append(generic, cd)
			default:
				d.other(od.ArtifactType)
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errdef.ErrTooManyPages):
		bound, err = BoundPages, nil
	case errors.Is(err, errStop):
		err = nil
	}
	if err != nil {
		return Discovery{}, nil, "", err
	}
	d.Via = ViaReferrersAPI
	if !c.referrersAPI(repo) {
		d.Via = ViaReferrersTag
	}
	d.Filtered = filter && rf.wasApplied()
	return d, append(ours, generic...), bound, nil
}

// referrersAPI reports whether a listing of repo used the referrers API.
// oras-go records what it found: "no API" before it falls back to the
// tag schema; "API" after a complete listing by the API, or nothing when
// the listing stopped early (errStop, too many pages), which only the API
// path can leave so. SetReferrersCapability(true) fails exactly when "no
// API" was recorded.
func (c *Client) referrersAPI(repo *remote.Repository) bool {
	return repo.SetReferrersCapability(true) == nil
}

// notOursError is a candidate whose manifest shows another artifact type
// ("" when it has none).
type notOursError struct{ artifactType string }

func (e *notOursError) Error() string { return "artifactType " + strconv.Quote(e.artifactType) }

// fetchManifest fetches and checks the manifest of candidate d of img.
func (c *Client) fetchManifest(ctx context.Context, repo *remote.Repository, img Image, d Descriptor) (*ArtifactManifest, error) {
	if !ValidDigest(d.Digest) {
		return nil, &ManifestError{Digest: d.Digest, Reason: "listed with a digest that is not sha256: and 64 lowercase hexadecimal digits"}
	}
	if d.Size < 0 || d.Size > MaxManifestBytes {
		return nil, &ManifestError{Digest: d.Digest, Reason: fmt.Sprintf("listed as %d bytes, more than the manifest limit of %d (not fetched)", d.Size, MaxManifestBytes)}
	}
	od := ocispec.Descriptor{MediaType: d.MediaType, Digest: digest.Digest(d.Digest), Size: d.Size}
	rc, err := repo.Manifests().Fetch(ctx, od)
	if err != nil {
		return nil, registryError("fetching the manifest "+d.Digest, err)
	}
	defer rc.Close()
	data, err := readVerified(rc, d, MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("fetching the manifest: %w", err)
	}
	if d.ArtifactType != ArtifactType {
		// Listed without a telling type: the manifest says what it is.
		if root, err := parseObject(data, "manifest"); err == nil {
			if at := root.Get("artifactType"); !at.Is(canonjson.String) {
				return nil, &notOursError{}
			} else if at.Str != ArtifactType {
				return nil, &notOursError{artifactType: at.Str}
			}
		}
	}
	m, err := ParseArtifactManifest(data)
	if err != nil {
		return nil, &ManifestError{Digest: d.Digest, Reason: err.Error()}
	}
	s := m.Subject
	if s.Digest != img.Digest() {
		return nil, &ManifestError{Digest: d.Digest, Reason: fmt.Sprintf("its subject is %s, not the image %s: it refers to another image", s.Digest, img.Digest())}
	}
	if s.Size != img.Descriptor.Size || s.MediaType != img.Descriptor.MediaType {
		return nil, &ManifestError{Digest: d.Digest, Reason: fmt.Sprintf("its subject descriptor (%s, %d bytes) does not describe the image (%s, %d bytes)", s.MediaType, s.Size, img.Descriptor.MediaType, img.Descriptor.Size)}
	}
	return m, nil
}

// Fetch downloads the attested bundle of referrer r of img: the layer's
// size is checked against MaxBundleBytes before it is requested, and the
// bytes against its digest and size.
func (c *Client) Fetch(ctx context.Context, img Image, r Referrer) ([]byte, error) {
	if r.Err != nil {
		return nil, r.Err
	}
	return c.fetchBlob(ctx, img, r.Manifest.Layer, MaxBundleBytes, "the bundle layer")
}

// FetchSigstore downloads the Sigstore bundles of referrer r of img (the
// layers after the bundle's, in order; none for most referrers): each
// layer's size is checked against MaxSigstoreBytes before it is
// requested, and the bytes against its digest and size.
func (c *Client) FetchSigstore(ctx context.Context, img Image, r Referrer) ([][]byte, error) {
	if r.Err != nil {
		return nil, r.Err
	}
	var out [][]byte
	for _, l := range r.Manifest.Sigstore {
		data, err := c.fetchBlob(ctx, img, l, MaxSigstoreBytes, "the Sigstore bundle layer")
		if err != nil {
			return nil, err
		}
		out = append(out, data)
	}
	return out, nil
}

// fetchBlob downloads layer l of img's repository, at most limit bytes,
// checked against its digest and size.
func (c *Client) fetchBlob(ctx context.Context, img Image, l Descriptor, limit int64, what string) ([]byte, error) {
	if l.Size > limit {
		return nil, fmt.Errorf("%s %s is %d bytes, more than the limit of %d (not fetched)", what, l.Digest, l.Size, limit)
	}
	repo := c.repository(registry.Reference{Registry: img.Registry, Repository: img.Repository})
	rc, err := repo.Blobs().Fetch(ctx, ocispec.Descriptor{MediaType: l.MediaType, Digest: digest.Digest(l.Digest), Size: l.Size})
	if err != nil {
		return nil, registryError("fetching "+what+" "+l.Digest, err)
	}
	defer rc.Close()
	data, err := readVerified(rc, l, limit)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", what, err)
	}
	return data, nil
}

// A Pulled is a referrer, its bundle and its Sigstore bundles.
type Pulled struct {
	Referrer
	// Data is the attested bundle's bytes (digest checked), nil when Err.
	Data []byte
	// Sigstore are the referrer's Sigstore bundles (the layers after the
	// bundle's, in order; each digest checked, and bound to an envelope
	// of Data by SigstoreEnvelope), nil when Err or when it has none.
	// They are the keyless material to verify Data with.
	Sigstore [][]byte
	// sigstoreN numbers Sigstore for their file names (SigstoreFileName).
	sigstoreN []int
}

// SigstoreFileName is the name `mcpres oci pull` gives the ith Sigstore
// bundle of p: sigstore.MaterialName(p.FileName(), n), beside the bundle,
// where [Client.Pull] numbers n from 1 over the distinct Sigstore bundles
// of all the pull's referrers of the same bundle, in the order first
// seen (two referrers of one bundle with different Sigstore bundles never
// write one file with two contents, and the numbers have no gap).
func (p Pulled) SigstoreFileName(i int) string {
	n := i + 1
	if i < len(p.sigstoreN) {
		n = p.sigstoreN[i]
	}
	return sigstore.MaterialName(p.FileName(), n)
}

// Pull discovers the MCP-RES referrers of img and downloads the bundles
// and Sigstore bundles of at most Options.MaxBundles of them in turn,
// handing each to each (one referrer in memory at a time); an error from
// each stops the pull. A referrer that cannot be used or downloaded is
// handed over with its error, as is one whose Sigstore bundle is not
// bound to its bundle (SigstoreEnvelope) or whose bundle would have more
// than MaxSigstoreLayers distinct Sigstore bundles over the pull's
// referrers; the others are unaffected. Usable referrers beyond the bound
// are not handed over: the discovery records the bound (BoundBundles).
func (c *Client) Pull(ctx context.Context, img Image, each func(Pulled) error) (Discovery, error) {
	d, err := c.Discover(ctx, img)
	if err != nil {
		return Discovery{}, err
	}
	fetched := 0
	material := map[string][]string{} // bundle digest -> its Sigstore bundles' digests, numbered from 1
	for _, r := range d.Referrers {
		p := Pulled{Referrer: r}
		if r.Err == nil {
			if fetched == c.opts.MaxBundles {
				continue
			}
			fetched++
			p.Data, p.Err = c.Fetch(ctx, img, r)
			if p.Err == nil && len(r.Manifest.Sigstore) > 0 {
				p.Err = c.pullSigstore(ctx, img, &p, material)
			}
			if p.Err != nil {
				p.Data, p.Sigstore, p.sigstoreN = nil, nil, nil
			}
		}
		if err := each(p); err != nil {
			return d, err
		}
	}
	if d.usable() > c.opts.MaxBundles {
		d.flood(BoundBundles, c.opts.MaxBundles, 0)
	}
	return d, nil
}

// pullSigstore downloads the Sigstore bundles of p, checks each is bound
// to p's bundle and numbers them in material (see SigstoreFileName).
func (c *Client) pullSigstore(ctx context.Context, img Image, p *Pulled, material map[string][]string) error {
	sbs, err := c.FetchSigstore(ctx, img, p.Referrer)
	if err != nil {
		return err
	}
	doc, err := canonjson.Parse(p.Data)
	if err != nil {
		return fmt.Errorf("the bundle carried with Sigstore bundles is not strict JSON: %w", err)
	}
	bundleDigest := p.Manifest.Layer.Digest
	known := material[bundleDigest]
	ns := make([]int, len(sbs))
	for i, sb := range sbs {
		if _, err := SigstoreEnvelope(doc, sb); err != nil {
			return fmt.Errorf("the Sigstore bundle layer %s: %w", p.Manifest.Sigstore[i].Digest, err)
		}
		dg := p.Manifest.Sigstore[i].Digest
		n := slices.Index(known, dg) + 1
		if n == 0 {
			if len(known) == MaxSigstoreLayers {
				return fmt.Errorf("the bundle %s would have more than %d Sigstore bundles with those of the pull's other referrers of it", bundleDigest, MaxSigstoreLayers)
			}
			known = append(known, dg)
			n = len(known)
		}
		ns[i] = n
	}
	material[bundleDigest] = known
	p.Sigstore, p.sigstoreN = sbs, ns
	return nil
}

// scope adds the repository's pull (and push) scope for token
// authentication.
func scope(ctx context.Context, ref registry.Reference, push bool) context.Context {
	if push {
		return auth.AppendRepositoryScope(ctx, ref, auth.ActionPull, auth.ActionPush)
	}
	return auth.AppendRepositoryScope(ctx, ref, auth.ActionPull)
}
