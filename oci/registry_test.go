package oci

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/oci/ocitest"
	"github.com/mcpres/mcpres/validator"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
)

// testTimeout is the hang guard of one registry test.
const testTimeout = 2 * time.Minute

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newTestClient(t *testing.T, r *ocitest.Registry) *Client {
	t.Helper()
	c, err := NewClient(Options{Credential: r.Credential(), Settle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checked(t *testing.T, data []byte) *Bundle {
	t.Helper()
	b, err := CheckBundle(data, attesttest.EvaluatedAt, validator.New())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tagExists reports whether repo has tag.
func tagExists(t *testing.T, c *Client, img Image, tag string) bool {
	t.Helper()
	repo := c.repository(registry.Reference{Registry: img.Registry, Repository: img.Repository})
	_, err := repo.Resolve(testContext(t), tag)
	if errors.Is(err, errdef.ErrNotFound) {
		return false
	}
	if err != nil {
		t.Fatalf("resolving %s: %v", tag, err)
	}
	return true
}

// attachDiscoverPull attaches a bundle about the image and one about
// another digest (forced), then discovers and pulls both.
func attachDiscoverPull(t *testing.T, r *ocitest.Registry, wantVia string) (*Client, Image) {
	ctx := testContext(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "one")
	c := newTestClient(t, r)
	img, err := c.Resolve(ctx, pushed.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if img.Digest() != pushed.Digest {
		t.Fatalf("resolved %s, pushed %s", img.Digest(), pushed.Digest)
	}
	about := ocitest.AttestedBundle(t, img.Digest())
	other := ocitest.AttestedBundle(t, Digest([]byte("another image")))
	a, err := c.Attach(ctx, img, checked(t, about), AttachOptions{Created: "2026-12-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Via != wantVia || a.Existing {
		t.Fatalf("attach: %+v, want via %s, new", a, wantVia)
	}
	var se *SubjectError
	if _, err := c.Attach(ctx, img, checked(t, other), AttachOptions{Created: "2026-12-01T00:00:00Z"}); !errors.As(err, &se) {
		t.Fatalf("attaching a bundle about another digest: %v, want a *SubjectError", err)
	}
	if _, err := c.Attach(ctx, img, checked(t, other), AttachOptions{Created: "2026-12-01T00:00:00Z", ForceSubject: true}); err != nil {
		t.Fatal(err)
	}
	again, err := c.Attach(ctx, img, checked(t, about), AttachOptions{Created: "2026-12-02T00:00:00Z"})
	if err != nil || !again.Existing || again.Manifest.Digest != a.Manifest.Digest {
		t.Fatalf("attaching the same bundle again: %+v, %v; want the existing %s", again, err, a.Manifest.Digest)
	}
	var pulled []Pulled
	d, err := c.Pull(ctx, img, func(p Pulled) error { pulled = append(pulled, p); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if d.Via != wantVia || len(pulled) != 2 || d.Truncated() {
		t.Fatalf("pull: via %s, %d referrers, floods %v; want %s, 2, none", d.Via, len(pulled), d.Floods, wantVia)
	}
	got := map[string]bool{}
	for _, p := range pulled {
		if p.Err != nil {
			t.Fatalf("referrer %s: %v", p.Descriptor.Digest, p.Err)
		}
		switch {
		case bytes.Equal(p.Data, about):
			got["about"] = true
		case bytes.Equal(p.Data, other):
			got["other"] = true
		}
		if p.Manifest.Annotations[AnnotationSubjectName] != ocitest.SubjectName || p.Manifest.Annotations[AnnotationClaimedLevel] != "SIGNED" {
			t.Errorf("annotations %v", p.Manifest.Annotations)
		}
	}
	if !got["about"] || !got["other"] {
		t.Fatalf("pulled %v, want both bundles byte for byte", got)
	}
	return c, img
}

func TestOCIReferrersAPI(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	c, img := attachDiscoverPull(t, r, ViaReferrersAPI)
	if tagExists(t, c, img, ReferrersTag(img)) {
		t.Errorf("attach wrote the referrers tag %s to a registry with the referrers API", ReferrersTag(img))
	}
}

func TestOCIDistribution(t *testing.T) {
	r := ocitest.Distribution(t, ocitest.DistributionOptions{})
	c, img := attachDiscoverPull(t, r, ViaReferrersTag)
	if !tagExists(t, c, img, ReferrersTag(img)) {
		t.Errorf("no referrers tag %s on a registry without the referrers API", ReferrersTag(img))
	}
}

func TestOCIDistributionAuth(t *testing.T) {
	r := ocitest.Distribution(t, ocitest.DistributionOptions{Auth: true})
	attachDiscoverPull(t, r, ViaReferrersTag)

	// Control: the same registry without credentials refuses.
	c, err := NewClient(Options{Credential: (&ocitest.Registry{Host: r.Host}).Credential()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(testContext(t), r.Host+"/mcp/server:1.0")
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("basic credential not found")) {
		t.Fatalf("resolving without credentials: %v, want the registry's demand for credentials", err)
	}
}

// TestOCIConcurrentAttach races attaches to a registry without the
// referrers API so that every writer reads the index before any writes:
// the first round loses all entries but one, and the re-check after the
// settle time restores them.
func TestOCIConcurrentAttach(t *testing.T) {
	r := ocitest.Distribution(t, ocitest.DistributionOptions{})
	ctx := testContext(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "race")
	const n = 3
	var wg, ready sync.WaitGroup
	ready.Add(n)
	once := make([]sync.Once, n)
	errs := make([]error, n)
	for i := range n {
		c := newTestClient(t, r)
		c.beforeIndexPut = func() { once[i].Do(func() { ready.Done(); ready.Wait() }) }
		img, err := c.Resolve(ctx, pushed.Ref)
		if err != nil {
			t.Fatal(err)
		}
		// Distinct bundles (about other digests, forced).
		b := checked(t, ocitest.AttestedBundle(t, Digest([]byte{byte(i)})))
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Attach(ctx, img, b, AttachOptions{Created: "2026-12-01T00:00:00Z", ForceSubject: true})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c := newTestClient(t, r)
	img, err := c.Resolve(ctx, pushed.Ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Discover(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Referrers) != n {
		t.Fatalf("%d referrers listed after %d concurrent attaches, want %d", len(d.Referrers), n, n)
	}
}
