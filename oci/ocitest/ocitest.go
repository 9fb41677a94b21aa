// Package ocitest starts OCI registries for tests on 127.0.0.1 with
// temporary storage, and builds what the tests push: throwaway images,
// attested bundles about a digest, Docker configurations with
// credentials.
//
// Two registries: CNCF distribution (the `registry` program, v3.1.2,
// built by .ci/run with go install), which has no referrers API and so
// exercises the referrers tag schema, with or without htpasswd
// authentication; and go-containerregistry's pkg/registry with referrers
// support, in-process, for the referrers API. [Tool] finds the programs
// (distribution's `registry`, `oras`) on PATH, in $GOBIN or in
// $GOPATH/bin, and skips the test with a message when one is absent.
//
// It must only be imported by tests.
package ocitest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/crypto/bcrypt"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// Versions of the programs the tests run (.ci/run installs them).
const (
	DistributionModule = "github.com/distribution/distribution/v3/cmd/registry@v3.1.2"
	OrasModule         = "oras.land/oras/cmd/oras@v1.3.6"
)

// Tool returns the path of program name (the `registry` of distribution,
// `oras`): on PATH, in $GOBIN, or in $GOPATH/bin (where go install puts
// it). It skips the test when the program is absent, naming the go
// install command that provides it.
func Tool(t testing.TB, name, module string) string {
	t.Helper()
	p, ok := Find(name)
	if !ok {
		t.Skipf("%s is not on PATH nor in $GOBIN or $GOPATH/bin: `go install %s` provides it (.ci/run installs it)", name, module)
	}
	return p
}

// Find is Tool without skipping: the path, or false.
func Find(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	var dirs []string
	if gobin := goEnv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	if gopath := goEnv("GOPATH"); gopath != "" {
		for _, d := range filepath.SplitList(gopath) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// goEnv is a go env variable: the environment's, or the go command's
// default (GOPATH defaults to ~/go).
func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	if name == "GOPATH" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, "go")
		}
	}
	return ""
}

// A Registry is a running registry.
type Registry struct {
	// Host is 127.0.0.1:PORT.
	Host string
	// User and Password are the credentials of a registry with
	// authentication ("" otherwise).
	User, Password string
}

// ReferrersRegistry starts go-containerregistry's registry with the
// referrers API in-process on 127.0.0.1, stopped when the test ends.
func ReferrersRegistry(t testing.TB) *Registry {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(true), registry.Logger(discardLogger())))
	t.Cleanup(srv.Close)
	return &Registry{Host: strings.TrimPrefix(srv.URL, "http://")}
}

// DistributionOptions configure [Distribution].
type DistributionOptions struct {
	// Auth requires htpasswd (bcrypt) authentication with User and
	// Password of the Registry returned.
	Auth bool
}

// Distribution starts CNCF distribution's registry on 127.0.0.1 with
// storage in a temporary folder, stopped when the test ends. It skips
// when the program is absent.
func Distribution(t testing.TB, o DistributionOptions) *Registry {
	t.Helper()
	bin := Tool(t, "registry", DistributionModule)
	dir := t.TempDir()
	port := freePort(t)
	r := &Registry{Host: fmt.Sprintf("127.0.0.1:%d", port)}
	config := fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
`, filepath.Join(dir, "data"), r.Host)
	if o.Auth {
		r.User, r.Password = "mcpres-test", "test-only-password"
		hash, err := bcrypt.GenerateFromPassword([]byte(r.Password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		htpasswd := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(htpasswd, []byte(r.User+":"+string(hash)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		config += fmt.Sprintf("auth:\n  htpasswd:\n    realm: mcpres-test\n    path: %s\n", htpasswd)
	}
	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "serve", cfg)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + r.Host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return r
			}
		}
		select {
		case <-done:
			t.Fatalf("%s exited before serving:\n%s", bin, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer on %s within 30 s:\n%s", bin, r.Host, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Credential is the registry's credential function for oras-go (the
// empty credential without authentication).
func (r *Registry) Credential() auth.CredentialFunc {
	if r.User == "" {
		return auth.StaticCredential(r.Host, auth.EmptyCredential)
	}
	return auth.StaticCredential(r.Host, auth.Credential{Username: r.User, Password: r.Password})
}

// DockerConfig writes a Docker configuration folder with the registry's
// credentials (config.json "auths"), for DOCKER_CONFIG.
func (r *Registry) DockerConfig(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cfg := map[string]any{"auths": map[string]any{
		r.Host: map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(r.User + ":" + r.Password))},
	}}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An Image is a pushed throwaway image.
type Image struct {
	// Ref is HOST/REPOSITORY:TAG, Digest its manifest digest.
	Ref, Digest string
}

// PushImage pushes a small image (an empty-ish config, one layer of
// seed's bytes) to repository repo under tag, and returns it.
func (r *Registry) PushImage(t testing.TB, repo, tag, seed string) Image {
	t.Helper()
	ctx := context.Background()
	rp := &remote.Repository{
		Client:    &auth.Client{Client: http.DefaultClient, Credential: r.Credential()},
		Reference: orasregistry.Reference{Registry: r.Host, Repository: repo},
		PlainHTTP: true,
	}
	push := func(mt string, data []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if err := rp.Blobs().Push(ctx, d, bytes.NewReader(data)); err != nil {
			t.Fatalf("pushing a blob to %s/%s: %v", r.Host, repo, err)
		}
		return d
	}
	cfg := push(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`))
	layer := push(ocispec.MediaTypeImageLayer, []byte("throwaway image "+seed))
	m, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		Config: cfg, Layers: []ocispec.Descriptor{layer},
	})
	if err != nil {
		t.Fatal(err)
	}
	md := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(m), Size: int64(len(m))}
	if err := rp.Manifests().PushReference(ctx, md, bytes.NewReader(m), tag); err != nil {
		t.Fatalf("pushing the image manifest to %s/%s:%s: %v", r.Host, repo, tag, err)
	}
	return Image{Ref: r.Host + "/" + repo + ":" + tag, Digest: md.Digest.String()}
}

// Subject names of the bundles AttestedBundle builds.
const (
	SubjectName    = "ledger-notes-server"
	SubjectVersion = "3.4.1"
)

// AttestedBundle returns an attested bundle (the bundletest example with
// evidence.subject.artifactSha256 set to subjectDigest's hex, resealed)
// signed with attesttest's first key as attesttest.IdentityOne, pretty
// printed as mcpres writes it. attesttest.Policy trusts it at
// attesttest.EvaluatedAt (SIGNED_WITH_IDENTITY).
func AttestedBundle(t testing.TB, subjectDigest string) []byte {
	t.Helper()
	b := bundletest.Example(t)
	b.Path("evidence", "subject").Set("artifactSha256", canonjson.NewString(strings.TrimPrefix(subjectDigest, "sha256:")))
	if err := bundle.SealFrom(b, bundle.StageSubject); err != nil {
		t.Fatalf("resealing the example about %s: %v", subjectDigest, err)
	}
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatalf("signing the example about %s: %v", subjectDigest, err)
	}
	data, err := canonjson.Pretty(s.Attested)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// CoSigned returns attested (an AttestedBundle) co-signed with
// attesttest's second key as attesttest.IdentityTwo: two envelopes.
func CoSigned(t testing.TB, attested []byte) []byte {
	t.Helper()
	w, err := canonjson.Parse(attested)
	if err != nil {
		t.Fatal(err)
	}
	s, err := attest.Cosign(w.Clone(), attesttest.TestOnlyKeyTwo(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityTwo)})
	if err != nil {
		t.Fatalf("co-signing: %v", err)
	}
	data, err := canonjson.Pretty(s.Attested)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// SigstoreBundle returns the Sigstore bundle v0.3 of envelope i of the
// attested bundle (attest/sigstore's export: a public key hint instead
// of a certificate, which is what the OCI path needs, since it checks
// only that the Sigstore bundle carries one of the bundle's envelopes),
// pretty printed as attest sign --keyless writes it.
func SigstoreBundle(t testing.TB, attested []byte, i int) []byte {
	t.Helper()
	w, err := canonjson.Parse(attested)
	if err != nil {
		t.Fatal(err)
	}
	envs := w.Path("authenticity", "envelopes")
	if !envs.Is(canonjson.Array) || i >= len(envs.Items) {
		t.Fatalf("the attested bundle has no envelope %d", i)
	}
	sb, err := sigstore.ExportBundle(envs.Items[i])
	if err != nil {
		t.Fatalf("exporting envelope %d: %v", i, err)
	}
	data, err := canonjson.Pretty(sb)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Policy is attesttest.Policy with both test signers trusted, pretty
// printed.
func Policy(t testing.TB) []byte {
	t.Helper()
	data, err := canonjson.Pretty(attesttest.Policy(attesttest.PolicyOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// JunkArtifactType is the default artifactType of the referrers PushJunk
// pushes.
const JunkArtifactType = "application/vnd.example.junk.v1"

// Junk describes the referrers [Registry.PushJunk] attaches to an image.
type Junk struct {
	// N is how many.
	N int
	// ArtifactType is their manifests' artifactType (""
	// JunkArtifactType).
	ArtifactType string
	// Layer, when not nil, is the one layer of every manifest, with media
	// type LayerMediaType; otherwise the layer is the empty descriptor, as
	// oras attaches an artifact without files.
	Layer          []byte
	LayerMediaType string
	// Untyped lists them in the referrers index (on a registry without
	// the referrers API) without artifactType, as a careless or hostile
	// writer may; otherwise with their manifests' artifactType, as oras
	// writes it.
	Untyped bool
}

// PushJunk attaches j.N small artifact manifests (each made distinct by
// an annotation) to the image under tag in repo, junkWorkers at a time,
// and on a registry without the referrers API appends them to the
// referrers index sha256-HEX in one write (not safe against concurrent
// writers). It returns their manifest digests, in the index's order
// there.
func (r *Registry) PushJunk(t testing.TB, repo, tag string, j Junk) []string {
	t.Helper()
	ctx := context.Background()
	newRepo := func() *remote.Repository {
		return &remote.Repository{
			Client:    &auth.Client{Client: http.DefaultClient, Credential: r.Credential()},
			Reference: orasregistry.Reference{Registry: r.Host, Repository: repo},
			PlainHTTP: true,
		}
	}
	rp := newRepo()
	subject, err := rp.Resolve(ctx, tag)
	if err != nil {
		t.Fatalf("resolving %s/%s:%s: %v", r.Host, repo, tag, err)
	}
	subject = ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	// Does the registry answer the referrers API? oras-go records it.
	if err := rp.Referrers(ctx, subject, "", func([]ocispec.Descriptor) error { return nil }); err != nil {
		t.Fatalf("listing the referrers of %s: %v", subject.Digest, err)
	}
	api := rp.SetReferrersCapability(true) == nil
	// Pushes with the state "has the API": oras-go indexes nothing itself
	// (one index rewrite a push, racing), the index is written below.
	rp = newRepo()
	if err := rp.SetReferrersCapability(true); err != nil {
		t.Fatal(err)
	}
	if api && j.Untyped {
		t.Fatalf("Junk.Untyped needs a registry without the referrers API")
	}
	at := j.ArtifactType
	if at == "" {
		at = JunkArtifactType
	}
	blob := func(mt string, data []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if ok, err := rp.Blobs().Exists(ctx, d); err != nil || !ok {
			if err := rp.Blobs().Push(ctx, d, bytes.NewReader(data)); err != nil {
				t.Fatalf("pushing a blob to %s/%s: %v", r.Host, repo, err)
			}
		}
		return d
	}
	empty := ocispec.DescriptorEmptyJSON
	blob(empty.MediaType, empty.Data)
	layer := empty
	if j.Layer != nil {
		layer = blob(j.LayerMediaType, j.Layer)
	}
	ds := make([]ocispec.Descriptor, j.N)
	bodies := make([][]byte, j.N)
	for i := range ds {
		m, err := json.Marshal(ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: at,
			Config: empty, Layers: []ocispec.Descriptor{layer}, Subject: &subject,
			Annotations: map[string]string{"org.example.junk": strconv.Itoa(i)},
		})
		if err != nil {
			t.Fatal(err)
		}
		ds[i] = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(m), Size: int64(len(m)), ArtifactType: at}
		if j.Untyped {
			ds[i].ArtifactType = ""
		}
		bodies[i] = m
	}
	pushAll(t, len(ds), func(i int) error {
		d := ds[i]
		return rp.Manifests().Push(ctx, ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}, bytes.NewReader(bodies[i]))
	})
	digests := make([]string, len(ds))
	for i := range ds {
		digests[i] = ds[i].Digest.String()
	}
	if !api {
		tag := "sha256-" + subject.Digest.Encoded()
		var old ocispec.Index
		if _, rc, err := rp.FetchReference(ctx, tag); err == nil {
			err = json.NewDecoder(rc).Decode(&old)
			rc.Close()
			if err != nil {
				t.Fatalf("reading the referrers index %s: %v", tag, err)
			}
		}
		idx, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: append(old.Manifests, ds...)})
		if err != nil {
			t.Fatal(err)
		}
		d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromBytes(idx), Size: int64(len(idx))}
		if err := rp.Manifests().PushReference(ctx, d, bytes.NewReader(idx), tag); err != nil {
			t.Fatalf("writing the referrers index %s: %v", tag, err)
		}
	}
	return digests
}

// junkWorkers is how many junk manifests PushJunk pushes at once.
const junkWorkers = 8

// pushAll runs push(0…n-1), junkWorkers at a time, failing the test at
// the first error.
func pushAll(t testing.TB, n int, push func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make(chan error, junkWorkers)
	for range junkWorkers {
		wg.Go(func() {
			for i := range next {
				if err := push(i); err != nil {
					errs <- fmt.Errorf("pushing junk manifest %d: %w", i, err)
					return
				}
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err == nil {
		err = <-errs
	}
	if err != nil {
		t.Fatal(err)
	}
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
