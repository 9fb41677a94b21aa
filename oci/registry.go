package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

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
	// Referrers are the MCP-RES referrers, in the registry's order, at
	// most Options.MaxReferrers of them (with their errors).
	Referrers []Referrer
	// Truncated says that more candidates were listed than were
	// examined: a referrer beyond the bound may exist.
	Truncated bool
	// Others counts the referrers of other artifact types (signatures,
	// SBOMs…), which are not examined.
	Others int
}

// errStop ends a referrers listing early.
var errStop = errors.New("stop listing")

// Discover lists the MCP-RES referrers of img by the standard rule
// (OCI distribution-spec 1.1, as oras-go implements it): the referrers
// API when the registry answers it, the referrers tag schema
// (sha256-HEX) when it answers 404, and any other answer is an error.
// A referrer listed with artifactType ArtifactType, or with none or a
// generic one (the empty config type, as some registries list the config
// media type instead), is a candidate; each candidate's manifest is
// fetched (its digest and size checked against the listing) and read with
// ParseArtifactManifest, and it must refer to img (same digest, size and
// media type). A candidate of another type by its manifest is counted in
// Others. At most Options.MaxReferrers candidates are examined.
func (c *Client) Discover(ctx context.Context, img Image) (Discovery, error) {
	ref := registry.Reference{Registry: img.Registry, Repository: img.Repository}
	repo := c.repository(ref)
	d := Discovery{Image: img}
	seen := map[string]bool{}
	var cands []Descriptor
	subject := ocispec.Descriptor{MediaType: img.Descriptor.MediaType, Digest: digest.Digest(img.Digest()), Size: img.Descriptor.Size}
	err := repo.Referrers(ctx, subject, "", func(page []ocispec.Descriptor) error {
		for _, od := range page {
			dg := string(od.Digest)
			if seen[dg] {
				continue
			}
			seen[dg] = true
			if !candidate(od) {
				d.Others++
				continue
			}
			if len(cands) == c.opts.MaxReferrers {
				d.Truncated = true
				return errStop
			}
			cands = append(cands, Descriptor{MediaType: od.MediaType, Digest: dg, Size: od.Size, ArtifactType: od.ArtifactType, Annotations: od.Annotations})
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return Discovery{}, registryError("listing the referrers of "+img.String(), err)
	}
	d.Via = ViaReferrersAPI
	if !c.referrersAPI(repo) {
		d.Via = ViaReferrersTag
	}
	for _, cd := range cands {
		m, err := c.fetchManifest(ctx, repo, img, cd)
		var other *notOursError
		if errors.As(err, &other) {
			d.Others++
			continue
		}
		d.Referrers = append(d.Referrers, Referrer{Descriptor: cd, Manifest: m, Err: err})
	}
	return d, nil
}

// referrersAPI reports whether a listing of repo used the referrers API.
// oras-go records what it found: "no API" before it falls back to the
// tag schema; "API" after a complete listing by the API, or nothing when
// the listing stopped early (errStop), which only the API path can leave
// so. SetReferrersCapability(true) fails exactly when "no API" was
// recorded.
func (c *Client) referrersAPI(repo *remote.Repository) bool {
	return repo.SetReferrersCapability(true) == nil
}

// candidate says whether a listed referrer may be an MCP-RES artifact:
// listed as one, or listed without a telling type.
func candidate(d ocispec.Descriptor) bool {
	if d.MediaType != ocispec.MediaTypeImageManifest {
		return false
	}
	switch d.ArtifactType {
	case ArtifactType, "", emptyMediaType:
		return true
	}
	return false
}

// notOursError is a candidate whose manifest shows another artifact type.
type notOursError struct{ artifactType string }

func (e *notOursError) Error() string { return "artifactType " + e.artifactType }

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
			if at := root.Get("artifactType"); !at.Is(canonjson.String) || at.Str != ArtifactType {
				return nil, &notOursError{artifactType: describe(at)}
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
	l := r.Manifest.Layer
	if l.Size > MaxBundleBytes {
		return nil, fmt.Errorf("the bundle layer %s is %d bytes, more than the limit of %d (not fetched)", l.Digest, l.Size, MaxBundleBytes)
	}
	repo := c.repository(registry.Reference{Registry: img.Registry, Repository: img.Repository})
	rc, err := repo.Blobs().Fetch(ctx, ocispec.Descriptor{MediaType: l.MediaType, Digest: digest.Digest(l.Digest), Size: l.Size})
	if err != nil {
		return nil, registryError("fetching the bundle layer "+l.Digest, err)
	}
	defer rc.Close()
	data, err := readVerified(rc, l, MaxBundleBytes)
	if err != nil {
		return nil, fmt.Errorf("fetching the bundle layer: %w", err)
	}
	return data, nil
}

// A Pulled is a referrer and its bundle.
type Pulled struct {
	Referrer
	// Data is the attested bundle's bytes (digest checked), nil when Err.
	Data []byte
}

// Pull discovers the MCP-RES referrers of img and downloads each bundle
// in turn, handing it to each (one bundle in memory at a time); an error
// from each stops the pull. A referrer that cannot be used or downloaded
// is handed over with its error; the others are unaffected.
func (c *Client) Pull(ctx context.Context, img Image, each func(Pulled) error) (Discovery, error) {
	d, err := c.Discover(ctx, img)
	if err != nil {
		return Discovery{}, err
	}
	for _, r := range d.Referrers {
		p := Pulled{Referrer: r}
		if r.Err == nil {
			p.Data, p.Err = c.Fetch(ctx, img, r)
		}
		if err := each(p); err != nil {
			return d, err
		}
	}
	return d, nil
}

// scope adds the repository's pull (and push) scope for token
// authentication.
func scope(ctx context.Context, ref registry.Reference, push bool) context.Context {
	if push {
		return auth.AppendRepositoryScope(ctx, ref, auth.ActionPull, auth.ActionPush)
	}
	return auth.AppendRepositoryScope(ctx, ref, auth.ActionPull)
}
