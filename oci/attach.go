package oci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/validator"
	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// A Bundle is an attested bundle checked by [CheckBundle], ready to be
// attached.
type Bundle struct {
	// Data is the document's exact bytes, which the layer holds.
	Data []byte
	// SubjectDigest is "sha256:" and the bundle's
	// evidence.subject.artifactSha256: the artifact (here, the image
	// manifest) the producer pinned.
	SubjectDigest string
	// SubjectName, SubjectVersion and Claim are the bundle's
	// evidence.subject name and version and its claimed classification.
	SubjectName, SubjectVersion, Claim string
	// Sigstore are the Sigstore bundles attached with it (keyless
	// signatures: one layer each after the bundle's), added and checked
	// by [Bundle.AddSigstore].
	Sigstore [][]byte
}

// An InvalidBundleError is evidence that is never published: a document
// that is not an attested bundle, or one that does not verify. Result is
// the verification result when there is one.
type InvalidBundleError struct {
	Reason string
	Result *attest.Result
}

func (e *InvalidBundleError) Error() string { return "not attached: " + e.Reason }

// CheckBundle decides whether data may be attached: it must be read by
// the strict reader as an mcp-res.attested-conformance-bundle/0.2.0 that
// attest.VerifySigned finds valid at evaluatedAt — wrapper schema, the
// embedded bundle's core validity, and every envelope's signature,
// statement, binding and identity (no trust policy is needed, and the
// claimed classification is left to the verifier's). A document that
// cannot be read is a *validator.InputError; anything else refused an
// *InvalidBundleError.
func CheckBundle(data []byte, evaluatedAt string, val *validator.Validator) (*Bundle, error) {
	doc, err := canonjson.Parse(data)
	if err != nil {
		return nil, &validator.InputError{Reason: err.Error()}
	}
	if k := document.Detect(doc); k != document.AttestedBundle {
		what := "a document of unknown kind"
		if k != document.Unknown {
			what = "a " + k.String()
		}
		return nil, &InvalidBundleError{Reason: what + ", not an attested conformance bundle (sign a bundle with attest sign first)"}
	}
	r, err := attest.VerifySigned(doc, attest.Options{EvaluatedAt: evaluatedAt, Validator: val})
	if err != nil {
		return nil, err
	}
	if !r.Valid {
		return nil, &InvalidBundleError{Reason: "the attested bundle does not verify: " + strings.Join(r.Diagnostics, ", ") + ": " + r.Detail, Result: &r}
	}
	s := doc.Path("bundle", "evidence", "subject")
	return &Bundle{
		Data:           data,
		SubjectDigest:  "sha256:" + s.Get("artifactSha256").Str,
		SubjectName:    s.Get("name").Str,
		SubjectVersion: s.Get("version").Str,
		Claim:          doc.Path("authenticity", "claimedClassification").Str,
	}, nil
}

// A SubjectError is a bundle about another artifact than the image it
// was to be attached to.
type SubjectError struct {
	Image         Image
	SubjectDigest string
}

func (e *SubjectError) Error() string {
	return fmt.Sprintf("the bundle's subject artifactSha256 is %s, but %s resolves to %s (attach a bundle about this image, or give --force-subject)",
		e.SubjectDigest, e.Image.Name, e.Image.Digest())
}

// AttachOptions configure [Client.Attach].
type AttachOptions struct {
	// Created is the creation time annotation (RFC 3339): the caller's
	// clock.
	Created string
	// ForceSubject attaches a bundle whose subject is not the image.
	ForceSubject bool
}

// An Attachment is what [Client.Attach] did.
type Attachment struct {
	// Manifest is the artifact manifest's descriptor.
	Manifest Descriptor
	// Via is ViaReferrersAPI (the registry indexes the referrer itself)
	// or ViaReferrersTag (the index under IndexTag was updated).
	Via      string
	IndexTag string
	// Existing says that an artifact with the same bundle bytes already
	// referred to the image: nothing was pushed.
	Existing bool
}

// ReferrersTag is the referrers tag schema's tag of an image: sha256-HEX.
func ReferrersTag(img Image) string { return "sha256-" + img.Descriptor.Hex() }

// Attach pushes b as an artifact referring to img: the empty config, a
// layer of b's exact bytes, a layer of each of b's Sigstore bundles
// (titled as attest sign --keyless names them beside the bundle file,
// sigstore.MaterialName), and an image manifest (OCI 1.1) with
// artifactType ArtifactType, img as its subject and the annotations of
// the package documentation. b's subject must be img's digest unless
// o.ForceSubject.
//
// The registry's referrers support is read first by the standard rule
// (see Discover), and an artifact with the same bundle bytes and the
// same Sigstore bundles (in any order) already referring to img is
// reported, not pushed again; one with the same bundle and other Sigstore
// bundles (or none) is not the same artifact. On a registry with the
// referrers API nothing else is written: no referrers tag. On one without
// it, the image index under ReferrersTag(img) gets the new entry,
// read–merge–written with the index's ETag in If-Match (If-None-Match: *
// when there is none), so that a registry that honours conditional
// requests refuses a write over a concurrent one (412, then read again);
// and, for registries that ignore them, the index is read again after
// Options.Settle and the entry written again if a concurrent attach
// overwrote it. Entries of other tools are kept as they are; no index is
// deleted.
func (c *Client) Attach(ctx context.Context, img Image, b *Bundle, o AttachOptions) (Attachment, error) {
	if b.SubjectDigest != img.Digest() && !o.ForceSubject {
		return Attachment{}, &SubjectError{Image: img, SubjectDigest: b.SubjectDigest}
	}
	d, err := c.Discover(ctx, img)
	if err != nil {
		return Attachment{}, err
	}
	a := Attachment{Via: d.Via}
	if d.Via == ViaReferrersTag {
		a.IndexTag = ReferrersTag(img)
	}
	layerDigest := Digest(b.Data)
	title := layerDigest[len("sha256:"):] + ".attested.json"
	sb := make([]Descriptor, len(b.Sigstore))
	for i, data := range b.Sigstore {
		dg := Digest(data)
		sb[i] = Descriptor{MediaType: SigstoreMediaType, Digest: dg, Size: int64(len(data)),
			Annotations: map[string]string{AnnotationTitle: sigstore.MaterialName(title, i+1)}}
	}
	for _, r := range d.Referrers {
		if r.Err == nil && r.Manifest.Layer.Digest == layerDigest && sameDigests(r.Manifest.Sigstore, sb) {
			a.Manifest, a.Existing = r.Descriptor, true
			return a, nil
		}
	}

	ref := registry.Reference{Registry: img.Registry, Repository: img.Repository}
	repo := c.repository(ref)
	// The artifact is pushed with the library's own indexing off (the
	// state "has the API"): a registry without the API is indexed below,
	// safely, and a registry with it (even one that sends no OCI-Subject
	// header) gets no referrers tag.
	if err := repo.SetReferrersCapability(true); err != nil {
		return Attachment{}, err
	}
	ctx = scope(ctx, ref, true)
	if err := pushBlob(ctx, repo, Descriptor{MediaType: emptyMediaType, Digest: emptyDigest, Size: emptySize}, emptyJSON); err != nil {
		return Attachment{}, err
	}
	layer := Descriptor{MediaType: LayerMediaType, Digest: layerDigest, Size: int64(len(b.Data)),
		Annotations: map[string]string{AnnotationTitle: title}}
	if err := pushBlob(ctx, repo, layer, b.Data); err != nil {
		return Attachment{}, err
	}
	for i, d := range sb {
		if err := pushBlob(ctx, repo, d, b.Sigstore[i]); err != nil {
			return Attachment{}, err
		}
	}
	ann := map[string]string{AnnotationCreated: o.Created, AnnotationSubjectName: b.SubjectName,
		AnnotationSubjectVersion: b.SubjectVersion, AnnotationClaimedLevel: b.Claim}
	subject := Descriptor{MediaType: img.Descriptor.MediaType, Digest: img.Digest(), Size: img.Descriptor.Size}
	manifest, err := artifactManifestWith(layer, sb, subject, ann)
	if err != nil {
		return Attachment{}, fmt.Errorf("encoding the artifact manifest: %w", err)
	}
	a.Manifest = Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: Digest(manifest), Size: int64(len(manifest)),
		ArtifactType: ArtifactType, Annotations: ann}
	if err := repo.Manifests().Push(ctx, ociDescriptor(a.Manifest), bytes.NewReader(manifest)); err != nil {
		return Attachment{}, registryError("pushing the artifact manifest", err)
	}
	if d.Via == ViaReferrersTag {
		if err := c.index(ctx, repo, a.IndexTag, a.Manifest); err != nil {
			return Attachment{}, err
		}
	}
	return a, nil
}

// sameDigests reports whether a and b hold the same digests, in any
// order (the parser refuses a digest twice in one manifest).
func sameDigests(a, b []Descriptor) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y Descriptor) bool { return y.Digest == x.Digest }) {
			return false
		}
	}
	return true
}

func ociDescriptor(d Descriptor) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: d.MediaType, Digest: digest.Digest(d.Digest), Size: d.Size}
}

// pushBlob pushes a blob unless the registry has it.
func pushBlob(ctx context.Context, repo *remote.Repository, d Descriptor, data []byte) error {
	od := ociDescriptor(d)
	ok, err := repo.Blobs().Exists(ctx, od)
	if err != nil {
		return registryError("checking for the blob "+d.Digest, err)
	}
	if ok {
		return nil
	}
	if err := repo.Blobs().Push(ctx, od, bytes.NewReader(data)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return registryError("pushing the blob "+d.Digest, err)
	}
	return nil
}

// maxIndexRounds bounds the read–merge–write rounds of one index update.
const maxIndexRounds = 10

// index adds entry to the referrers index under tag (see Attach).
func (c *Client) index(ctx context.Context, repo *remote.Repository, tag string, entry Descriptor) error {
	wait := time.Duration(0)
	for range maxIndexRounds {
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("updating the referrers index %s: %w", tag, err)
		}
		cd := &cond{}
		idx, exists, err := readIndex(withCond(ctx, cd), repo, tag)
		if err != nil {
			return err
		}
		if idx.digests[entry.Digest] {
			return nil
		}
		body, err := idx.with(entry)
		if err != nil {
			return fmt.Errorf("encoding the referrers index %s: %w", tag, err)
		}
		cd.put = http.Header{}
		switch {
		case exists && cd.etag != "":
			cd.put.Set("If-Match", cd.etag)
		case !exists:
			cd.put.Set("If-None-Match", "*")
		}
		if c.beforeIndexPut != nil {
			c.beforeIndexPut()
		}
		desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.Digest(Digest(body)), Size: int64(len(body))}
		err = repo.Manifests().PushReference(withCond(ctx, cd), desc, bytes.NewReader(body), tag)
		var er *errcode.ErrorResponse
		if errors.As(err, &er) && er.StatusCode == http.StatusPreconditionFailed {
			// Changed since read: read again soon.
			wait = jitter(c.opts.Settle / 10)
			continue
		}
		if err != nil {
			return registryError("writing the referrers index "+tag, err)
		}
		// Written: check after a while that no concurrent attach, whose
		// read preceded this write, wrote over it.
		wait = c.opts.Settle + jitter(c.opts.Settle/2)
	}
	return fmt.Errorf("updating the referrers index %s: the entry %s was still missing after %d rounds (concurrent writers?)", tag, entry.Digest, maxIndexRounds)
}

// readIndex reads the referrers index under tag: a new empty one when the
// tag does not exist (exists false).
func readIndex(ctx context.Context, repo *remote.Repository, tag string) (*referrersIndex, bool, error) {
	desc, rc, err := repo.FetchReference(ctx, tag)
	if errors.Is(err, errdef.ErrNotFound) {
		return newReferrersIndex(), false, nil
	}
	if err != nil {
		return nil, false, registryError("reading the referrers index "+tag, err)
	}
	defer rc.Close()
	if desc.MediaType != ocispec.MediaTypeImageIndex {
		return nil, false, fmt.Errorf("the tag %s is a %s, not a referrers index: refusing to overwrite it", tag, desc.MediaType)
	}
	data, err := readAtMost(rc, MaxManifestBytes)
	if err != nil {
		return nil, false, fmt.Errorf("reading the referrers index %s: %w", tag, err)
	}
	idx, err := parseReferrersIndex(data)
	if err != nil {
		return nil, false, fmt.Errorf("the referrers index %s cannot be updated: %w", tag, err)
	}
	return idx, true, nil
}

// jitter is a random duration in [0, d).
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
