package oci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/ocitest"
	"github.com/mcpres/mcpres/validator"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// CheckBundle refuses, each with its error type: bytes the strict reader
// does not take (*validator.InputError), a document of another kind or of
// no known kind, and an attested bundle that does not verify
// (*InvalidBundleError, with the verification result); the control is an
// attested bundle, whose subject it reports.
func TestCheckBundleRefuses(t *testing.T) {
	val := validator.New()
	subject := "sha256:" + strings.Repeat("ab", 32)
	good := ocitest.AttestedBundle(t, subject)

	var ie *validator.InputError
	if _, err := CheckBundle([]byte(`{"a":1,"a":2}`), attesttest.EvaluatedAt, val); !errors.As(err, &ie) {
		t.Errorf("a duplicate key: %v, want *validator.InputError", err)
	}
	plain, err := canonjson.Pretty(bundletest.Example(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"a plain bundle": {plain, "not attached: a "},
		"no known kind":  {[]byte(`{"x":1}`), "not attached: a document of unknown kind, not an attested conformance bundle"},
		"a tampered signature": {bytes.Replace(good, []byte(`"sig": "`), []byte(`"sig": "AAAA`), 1),
			"not attached: the attested bundle does not verify: "},
	} {
		var be *InvalidBundleError
		b, err := CheckBundle(c.data, attesttest.EvaluatedAt, val)
		if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), c.want) || b != nil {
			t.Errorf("%s: %v, want *InvalidBundleError %q…", name, err, c.want)
			continue
		}
		if name == "a tampered signature" && (be.Result == nil || be.Result.Valid) {
			t.Errorf("%s: no failing result: %+v", name, be.Result)
		}
	}
	if !bytes.Contains(good, []byte(`"sig": "`)) {
		t.Fatal(`the attested bundle has no "sig": the tampered case tampers nothing`)
	}
	b, err := CheckBundle(good, attesttest.EvaluatedAt, val)
	if err != nil || b.SubjectDigest != subject || b.SubjectName == "" || !bytes.Equal(b.Data, good) {
		t.Fatalf("control: %+v, %v", b, err)
	}
	se := &SubjectError{Image: Image{Name: "r.example/app:1", Descriptor: Descriptor{Digest: "sha256:" + strings.Repeat("cd", 32)}}, SubjectDigest: subject}
	if msg := se.Error(); !strings.Contains(msg, subject) || !strings.Contains(msg, "r.example/app:1 resolves to sha256:cdcd") || !strings.Contains(msg, "--force-subject") {
		t.Errorf("SubjectError: %s", msg)
	}
}

// readVerified refuses, before reading, a descriptor over the limit or of
// a negative size, and after reading, bytes of another size (more or
// fewer) or another digest; readAtMost refuses more than its limit.
func TestReadVerifiedRefuses(t *testing.T) {
	data := []byte("manifest bytes")
	d := Descriptor{Digest: Digest(data), Size: int64(len(data))}
	for _, c := range []struct {
		name string
		d    Descriptor
		r    []byte
		want string
	}{
		{"over the limit", Descriptor{Digest: d.Digest, Size: 100}, data, "is 100 bytes, more than the limit of 50"},
		{"negative size", Descriptor{Digest: d.Digest, Size: -1}, data, "is -1 bytes"},
		{"more bytes", d, append(bytes.Clone(data), '!'), fmt.Sprintf("served more than %d bytes", len(data))},
		{"fewer bytes", d, data[:3], fmt.Sprintf("served 3 bytes, the descriptor says %d", len(data))},
		{"another digest", d, []byte("manifest bytez"), "served bytes whose digest is " + Digest([]byte("manifest bytez"))},
	} {
		if got, err := readVerified(bytes.NewReader(c.r), c.d, 50); err == nil || got != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if got, err := readVerified(bytes.NewReader(data), d, 50); err != nil || !bytes.Equal(got, data) {
		t.Errorf("control: %q, %v", got, err)
	}
	if _, err := readAtMost(bytes.NewReader(make([]byte, 11)), 10); err == nil || !strings.Contains(err.Error(), "more than 10 bytes") {
		t.Errorf("readAtMost over its limit: %v", err)
	}
}

// registryError names the status and the registry's error codes (with
// their messages), says "not found" for a missing manifest, and wraps
// anything else.
func TestRegistryError(t *testing.T) {
	er := &errcode.ErrorResponse{StatusCode: http.StatusForbidden, Errors: errcode.Errors{
		{Code: "DENIED", Message: "requested access to the resource is denied"}, {Code: "UNAUTHORIZED"},
	}}
	if got := registryError("pushing", er).Error(); got != "pushing: the registry answered 403 Forbidden: DENIED (requested access to the resource is denied), UNAUTHORIZED" {
		t.Errorf("an error answer: %s", got)
	}
	if got := registryError("pushing", &errcode.ErrorResponse{StatusCode: 500}).Error(); got != "pushing: the registry answered 500 Internal Server Error" {
		t.Errorf("an error answer without codes: %s", got)
	}
	if got := registryError("resolving x", fmt.Errorf("%w: x", errdef.ErrNotFound)).Error(); got != "resolving x: not found" {
		t.Errorf("not found: %s", got)
	}
	other := errors.New("connection reset")
	if err := registryError("resolving x", other); !errors.Is(err, other) {
		t.Errorf("another error: %v", err)
	}
}

// Resolve refuses, before any request, a reference without a tag or
// digest, a digest that is not sha256 and 64 lowercase hex digits, and a
// malformed one (*ReferenceError naming it); Fetch refuses a referrer that
// carries an error, and a layer over MaxBundleBytes before requesting it.
func TestRequestsRefusedBeforeSending(t *testing.T) {
	c, err := NewClient(Options{Credential: func(context.Context, string) (auth.Credential, error) { return auth.EmptyCredential, nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"127.0.0.1:1/app", "127.0.0.1:1/app@sha256:" + strings.Repeat("A", 64), "127.0.0.1:1/App:1", "127.0.0.1:1/app@md5:00"} {
		var re *ReferenceError
		if _, err := c.Resolve(ctx, name); !errors.As(err, &re) || re.Name != name || !strings.HasPrefix(err.Error(), fmt.Sprintf("image reference %q: ", name)) {
			t.Errorf("Resolve(%q): %v, want a *ReferenceError", name, err)
		}
	}
	img := Image{Name: "127.0.0.1:1/app:1", Registry: "127.0.0.1:1", Repository: "app", Descriptor: Descriptor{Digest: "sha256:" + strings.Repeat("cd", 32)}}
	gone := errors.New("listed, but its manifest is gone")
	if _, err := c.Fetch(ctx, img, Referrer{Err: gone}); !errors.Is(err, gone) {
		t.Errorf("Fetch of a referrer with an error: %v", err)
	}
	big := Referrer{Manifest: &ArtifactManifest{Layer: Descriptor{Digest: "sha256:" + strings.Repeat("ef", 32), Size: MaxBundleBytes + 1}}}
	if _, err := c.Fetch(ctx, img, big); err == nil || !strings.Contains(err.Error(), "more than the limit") || !strings.Contains(err.Error(), "not fetched") {
		t.Errorf("Fetch of a layer over the limit: %v", err)
	}
	if got := img.Ref("sha256:00"); got != "127.0.0.1:1/app@sha256:00" {
		t.Errorf("Ref: %s", got)
	}
}

// NewClient refuses a Docker configuration it cannot read (credentials
// would otherwise be silently absent); the control reads a valid one.
func TestNewClientDockerConfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewClient(Options{}); err == nil || !strings.Contains(err.Error(), "reading the Docker configuration") {
		t.Errorf("a malformed Docker configuration: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewClient(Options{}); err != nil {
		t.Errorf("control: %v", err)
	}
}

// Flood.String names each bound, clips a long artifact type from the
// registry, and says "(none)" for referrers listed without one.
func TestFloodString(t *testing.T) {
	long := strings.Repeat("t", 150)
	for _, c := range []struct {
		f    Flood
		want []string
	}{
		{Flood{Bound: BoundPages, Limit: 1000, Listed: 5000, Others: 4990, TopType: long, TopCount: 4990}, []string{"more than 1000 pages", "the 5000 referrers of the first 1000", strings.Repeat("t", 100) + "…\", 4990"}},
		{Flood{Bound: BoundBundles, Limit: 2, Found: 5}, []string{"more than 2 usable MCP-RES referrers", "3 after them were not"}},
		{Flood{Bound: BoundManifests, Limit: 10, Unread: 4, TopCount: 3}, []string{"the manifests of the first 10 were read", `"(none)", 3`, "4 not read"}},
		{Flood{Bound: "other"}, []string{"bound other reached"}},
	} {
		s := c.f.String()
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q lacks %q", c.f.Bound, s, w)
			}
		}
		if strings.Contains(s, long) {
			t.Errorf("%s: the long type is not clipped", c.f.Bound)
		}
	}
}

// The discovery and pull index documents: a referrer with an error gives
// its message (as valid UTF-8, whatever the registry sent) and no bundle;
// a usable one its annotations, bundle digest and size, and the file name
// made of its digest (never a name the registry chose).
func TestReportDocuments(t *testing.T) {
	img := Image{Name: "r.example/app:1", Registry: "r.example", Repository: "app",
		Descriptor: Descriptor{MediaType: "application/vnd.oci.image.manifest.v1+json", Digest: "sha256:" + strings.Repeat("cd", 32), Size: 500}}
	layer := Descriptor{Digest: "sha256:" + strings.Repeat("ef", 32), Size: 1234}
	ok := Referrer{Descriptor: Descriptor{Digest: "sha256:" + strings.Repeat("01", 32), Size: 600},
		Manifest: &ArtifactManifest{Layer: layer, Annotations: map[string]string{"b": "2", "a": "1"}}}
	bad := Referrer{Descriptor: Descriptor{Digest: "sha256:" + strings.Repeat("02", 32), Size: 700}, Err: errors.New("refused: \xff")}
	d := Discovery{Image: img, Via: ViaReferrersTag, Referrers: []Referrer{ok, bad}, Listed: 3, Others: 1,
		Floods: []Flood{{Bound: BoundListed, Limit: 3}}}
	out, err := canonjson.Compact(d.Value())
	if err != nil {
		t.Fatalf("Discovery.Value does not encode: %v", err)
	}
	for _, w := range []string{
		`"schemaVersion":"mcpres.oci-referrers/v1"`, `"repository":"r.example/app"`, `"via":"referrers tag schema"`,
		`"annotations":{"a":"1","b":"2"},"bundle":{"digest":"sha256:efef`, `"error":"refused: \ufffd"`, `"truncated":true`,
		`"bound":"listed","limit":3`, `"otherReferrers":1`,
	} {
		if !bytes.Contains(out, []byte(w)) && !strings.Contains(string(out), strings.ReplaceAll(w, `\ufffd`, "\uFFFD")) {
			t.Errorf("discovery %s lacks %s", out, w)
		}
	}
	p := Pulled{Referrer: ok, Data: []byte("{}")}
	if p.FileName() != strings.Repeat("ef", 32)+".attested.json" {
		t.Errorf("FileName: %s", p.FileName())
	}
	line, err := IndexLine(img, p, "2027-01-15T08:00:00Z")
	if err != nil || !bytes.Contains(line, []byte(`"file":"`+p.FileName()+`"`)) || !bytes.Contains(line, []byte(`"size":1234`)) || bytes.Contains(line, []byte(`"error"`)) {
		t.Errorf("IndexLine of a bundle: %s, %v", line, err)
	}
	line, err = IndexLine(img, Pulled{Referrer: bad}, "2027-01-15T08:00:00Z")
	if err != nil || !bytes.Contains(line, []byte(`"error":"refused: `)) || bytes.Contains(line, []byte(`"file"`)) || !bytes.HasSuffix(line, []byte(`"pulledAt":"2027-01-15T08:00:00Z"}`)) {
		t.Errorf("IndexLine of an error: %s, %v", line, err)
	}
}
