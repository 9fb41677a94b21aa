package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/oci/ocitest"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
)

// hostileText is what a registry can put into an annotation or an error
// message: a screen clear, a carriage return, a right-to-left override,
// a C1 line break, and a newline followed by a line that passes for one
// of discover's.
const hostileText = "\x1b[2J\rall verified\u202e\u0085\n  sha256:forged"

// rawControl returns the first character of s that must never reach a
// terminal raw, judged by Unicode's tables (controls but newline and tab,
// bidirectional controls, separators) and UTF-8 validity.
func rawControl(s string) (rune, bool) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return rune(s[i]), true
			}
		}
		if (unicode.Is(unicode.Cc, r) && r != '\n' && r != '\t') ||
			unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			return r, true
		}
	}
	return 0, false
}

// pushHostileReferrer attaches the attested bundle data to img as an
// MCP-RES artifact whose annotations are hostile (attach itself writes
// them from the bundle; a registry's user may write anything).
func pushHostileReferrer(t *testing.T, r *ocitest.Registry, repo string, img ocitest.Image, data []byte) {
	t.Helper()
	ctx := context.Background()
	rp := &remote.Repository{Reference: orasregistry.Reference{Registry: r.Host, Repository: repo}, PlainHTTP: true}
	subject, err := rp.Resolve(ctx, img.Digest)
	if err != nil {
		t.Fatal(err)
	}
	push := func(mt string, b []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if err := rp.Blobs().Push(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	empty := ocispec.DescriptorEmptyJSON
	push(empty.MediaType, empty.Data)
	empty.Data = nil
	layer := push(oci.LayerMediaType, data)
	m, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: oci.ArtifactType,
		Config: empty, Layers: []ocispec.Descriptor{layer},
		Subject: &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: map[string]string{
			oci.AnnotationSubjectName: "name" + hostileText, oci.AnnotationSubjectVersion: "1" + hostileText,
			oci.AnnotationClaimedLevel: "LEVEL" + hostileText, oci.AnnotationCreated: "now" + hostileText,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	md := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(m), Size: int64(len(m))}
	if err := rp.Manifests().Push(ctx, md, bytes.NewReader(m)); err != nil {
		t.Fatal(err)
	}
}

// TestOCIDiscoverHostileAnnotations: a referrer whose annotations carry
// terminal escapes and a line break: discover's text shows them escaped
// on their line, its JSON escapes them and still holds them exactly.
func TestOCIDiscoverHostileAnnotations(t *testing.T) {
	r := ocitest.ReferrersRegistry(t)
	c := newCLI(t)
	img := r.PushImage(t, "mcp/server", "1.0", "hostile-annotations")
	pushHostileReferrer(t, r, "mcp/server", img, ocitest.AttestedBundle(t, img.Digest))

	out, errs := c.must(0, "discover", img.Ref)
	for name, s := range map[string]string{"stdout": out, "stderr": errs} {
		if ch, bad := rawControl(s); bad {
			t.Errorf("discover: %s holds %U raw:\n%q", name, ch, s)
		}
	}
	if !strings.Contains(out, `name\u001b[2J\u000dall verified\u202e\u0085\u000a  sha256:forged`) {
		t.Errorf("discover does not show the annotation escaped:\n%s", out)
	}
	if strings.Contains(out, "\n  sha256:forged") {
		t.Errorf("an annotation wrote a line of its own:\n%s", out)
	}

	out, errs = c.must(0, "discover", "--format", "json", img.Ref)
	if ch, bad := rawControl(out + errs); bad {
		t.Errorf("discover --format json holds %U raw:\n%q", ch, out)
	}
	v, err := canonjson.Parse([]byte(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rs := v.Get("referrers").Items; len(rs) != 1 || !strings.Contains(out, `\u202e`) ||
		rs[0].Path("annotations", oci.AnnotationSubjectName) == nil ||
		rs[0].Path("annotations", oci.AnnotationSubjectName).Str != "name"+hostileText {
		t.Errorf("the JSON does not hold the annotation exactly:\n%s", out)
	}
}

// TestOCIRegistryErrorBody: a registry whose error message (the
// referrers API's answer) carries terminal escapes: the error on stderr
// shows them escaped.
func TestOCIRegistryErrorBody(t *testing.T) {
	good := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/referrers/") {
			good.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		body, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"code": "DENIED", "message": "denied" + hostileText}}})
		w.Write(body) // ESC as \u001b: the client decodes it to ESC

	}))
	defer srv.Close()
	reg := &ocitest.Registry{Host: strings.TrimPrefix(srv.URL, "http://")}
	img := reg.PushImage(t, "mcp/server", "1.0", "hostile-errors")
	c := newCLI(t)
	out, errs := c.must(2, "discover", img.Ref)
	if ch, bad := rawControl(out + errs); bad {
		t.Errorf("holds %U raw:\nstdout %q\nstderr %q", ch, out, errs)
	}
	if !strings.Contains(errs, `denied\u001b[2J\u000dall verified\u202e\u0085`) {
		t.Errorf("stderr does not show the registry's message escaped:\n%q", errs)
	}
}
