package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/oci/ocitest"
	"github.com/mcpres/mcpres/validator/schema"
)

// A session runs command lines in-process in dir (the test's folder),
// with no Docker configuration but the test's.
type session struct {
	t    *testing.T
	dir  string
	home string // the package's folder, where the test started
}

func newCLI(t *testing.T) *session {
	t.Setenv(invokedAsEnv, "")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	home, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	return &session{t: t, dir: dir, home: home}
}

func (c *session) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// must runs a command that must exit with want.
func (c *session) must(want int, args ...string) (stdout, stderr string) {
	c.t.Helper()
	stdout, stderr, code := c.run(args...)
	if code != want {
		c.t.Fatalf("%q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, stdout, stderr)
	}
	return stdout, stderr
}

func (c *session) write(name string, data []byte) string {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, name), data, 0o644); err != nil {
		c.t.Fatal(err)
	}
	return name
}

// oras runs the oras program (skipping without it) in dir.
func (c *session) oras(args ...string) string {
	c.t.Helper()
	bin := ocitest.Tool(c.t, "oras", ocitest.OrasModule)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+os.Getenv("DOCKER_CONFIG"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("oras %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// resultSchema is docs/result.schema.json, which every attest verify
// result line must match.
func (c *session) resultSchema() func(line string) {
	t := c.t
	raw, err := os.ReadFile(filepath.Join(c.home, "..", "..", "docs", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := schema.LoadFS(fstest.MapFS{"result.schema.json": {Data: raw}})
	if err != nil {
		t.Fatal(err)
	}
	return func(line string) {
		t.Helper()
		v, err := canonjson.Parse([]byte(line))
		if err != nil {
			t.Fatalf("not JSON: %v\n%s", err, line)
		}
		if errs := set.Validate("result", v); len(errs) > 0 {
			t.Errorf("does not match docs/result.schema.json: %v\n%s", errs, line)
		}
	}
}

func jsonLines(t *testing.T, out string) []*canonjson.Value {
	t.Helper()
	var vs []*canonjson.Value
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		v, err := canonjson.Parse([]byte(l))
		if err != nil {
			t.Fatalf("%v\n%s", err, l)
		}
		vs = append(vs, v)
	}
	return vs
}

// endToEnd is the check of the issue: a throwaway image, two bundles
// attached (one about the image, one about another digest), attest verify
// --oci passing on the first and naming the second as bound to another
// subject, oras discover seeing both, then oci pull and an offline
// verification of what was pulled.
func endToEnd(t *testing.T, r *ocitest.Registry, wantVia string) {
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "e2e")
	about := c.write("about.attested.json", ocitest.AttestedBundle(t, pushed.Digest))
	otherDigest := oci.Digest([]byte("another image"))
	other := c.write("other.attested.json", ocitest.AttestedBundle(t, otherDigest))
	policy := c.write("policy.json", ocitest.Policy(t))
	at := "--evaluated-at=" + attesttest.EvaluatedAt

	out, _ := c.must(0, "attach", pushed.Ref, about)
	if !strings.Contains(out, pushed.Ref+": "+pushed.Digest) || !strings.Contains(out, "about.attested.json attached to") {
		t.Errorf("attach printed:\n%s", out)
	}
	_, errs := c.must(1, "attach", pushed.Ref, other)
	if !strings.Contains(errs, "subject artifactSha256 is "+otherDigest) || !strings.Contains(errs, "nothing was attached") {
		t.Errorf("attach about another digest:\n%s", errs)
	}
	_, errs = c.must(0, "attach", "--force-subject", pushed.Ref, other)
	if !strings.Contains(errs, "warning: --force-subject: other.attested.json is about "+otherDigest) {
		t.Errorf("forced attach:\n%s", errs)
	}
	out, _ = c.must(0, "attach", pushed.Ref, about)
	if !strings.Contains(out, "already attached") {
		t.Errorf("attaching again:\n%s", out)
	}

	out, _ = c.must(0, "discover", "--format", "json", pushed.Ref)
	d := jsonLines(t, out)[0]
	if d.Get("schemaVersion").Str != oci.DiscoverySchemaVersion || d.Get("digest").Str != pushed.Digest || d.Get("via").Str != wantVia || len(d.Get("referrers").Items) != 2 {
		t.Fatalf("discover:\n%s", out)
	}

	out, errs = c.must(0, "attest", "verify", "--oci", pushed.Ref, "--policy", policy, at, "--require-level", "SIGNED_WITH_IDENTITY")
	check := c.resultSchema()
	passed, mismatch := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		check(l)
		v, _ := canonjson.Parse([]byte(l))
		g := v.Get("gate")
		if g.Get("requireSubjectDigest").Str != pushed.Digest || !strings.HasPrefix(v.Get("file").Str, r.Host+"/mcp/server@sha256:") {
			t.Errorf("result %s", l)
		}
		switch {
		case g.Get("passed").Bool:
			passed++
		case strings.HasPrefix(g.Get("reasons").Items[0].Str, "MCPRES_SUBJECT_MISMATCH: image: expected "+pushed.Ref+" ("+pushed.Digest+"), found "+otherDigest):
			mismatch++
		}
	}
	if passed != 1 || mismatch != 1 || !strings.Contains(errs, "gate: passed: 1 of 2 referrers bound to "+pushed.Digest) {
		t.Fatalf("verify --oci: %d passed, %d bound to another subject\n%s\n%s", passed, mismatch, out, errs)
	}
	// Control: a gate no referrer meets fails the command.
	_, errs = c.must(1, "attest", "verify", "--oci", pushed.Ref, "--policy", policy, at, "--require-level", "WITNESSED")
	if !strings.Contains(errs, "gate: FAILED: no MCP-RES referrer of "+pushed.Ref+" passed") {
		t.Errorf("WITNESSED:\n%s", errs)
	}

	if _, ok := ocitest.Find("oras"); ok {
		// No --artifact-type filter: go-containerregistry's registry
		// lists the config media type as the artifactType.
		listed := c.oras("discover", "--plain-http", "--format", "json", pushed.Ref)
		for _, r := range d.Get("referrers").Items {
			if !strings.Contains(listed, r.Get("digest").Str) {
				t.Errorf("oras discover does not list %s:\n%s", r.Get("digest").Str, listed)
			}
		}
	}

	_, errs = c.must(0, "pull", pushed.Ref, "-o", "evidence")
	if !strings.Contains(errs, "wrote evidence/"+oci.PullIndexName+": 2 referrers of") {
		t.Errorf("pull:\n%s", errs)
	}
	for _, f := range []string{about, other} {
		data, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join("evidence", strings.TrimPrefix(oci.Digest(data), "sha256:")+".attested.json"))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("pulled %s: %v (%d bytes, want %d)", f, err, len(got), len(data))
		}
	}
	idx, err := os.ReadFile(filepath.Join("evidence", oci.PullIndexName))
	if err != nil {
		t.Fatal(err)
	}
	lines := jsonLines(t, string(idx))
	if len(lines) != 2 || lines[0].Get("subjectDigest").Str != pushed.Digest || lines[0].Get("schemaVersion").Str != oci.PullSchemaVersion || lines[0].Get("file").Str == "" {
		t.Errorf("index:\n%s", idx)
	}
	// Pulling again: the same bundles are left as they are, the index is
	// replaced only with --force.
	_, errs = c.must(2, "pull", pushed.Ref, "-o", "evidence")
	if !strings.Contains(errs, oci.PullIndexName) {
		t.Errorf("pull again:\n%s", errs)
	}
	c.must(0, "pull", "--force", "-q", pushed.Ref, "-o", "evidence")

	// Offline: the folder is verified as --oci verifies the image, with no
	// registry: each bundle bound to the digest its index records, the
	// one about another digest failing, the folder passing with the other.
	out, _ = c.must(0, "attest", "verify", "--policy", policy, at, "--format", "text", "evidence")
	if !strings.Contains(out, "2 referrers: 1 passed, 1 gate failed") || !strings.Contains(out, attest.CodeSubjectMismatch+": image") ||
		!strings.Contains(out, "gate: passed: 1 of 2 referrers bound to "+pushed.Digest) {
		t.Errorf("offline verify:\n%s", out)
	}
	// The folder changed since the pull: refused whole (exit 2); the
	// bundle about another digest alone: the folder fails (exit 1).
	aboutData, _ := os.ReadFile(about)
	aboutFile := filepath.Join("evidence", strings.TrimPrefix(oci.Digest(aboutData), "sha256:")+".attested.json")
	os.Rename(aboutFile, aboutFile+".moved")
	out, _ = c.must(2, "attest", "verify", "--policy", policy, at, "--format", "text", "evidence")
	if !strings.Contains(out, "removed since the pull") {
		t.Errorf("a bundle removed since the pull:\n%s", out)
	}
	os.Rename(aboutFile+".moved", aboutFile)
	os.WriteFile(filepath.Join("evidence", "rogue.json"), aboutData, 0o644)
	if out, _ = c.must(2, "attest", "verify", "--policy", policy, at, "evidence"); !strings.Contains(out, "added since the pull") {
		t.Errorf("a bundle added since the pull:\n%s", out)
	}
}

// TestOCIEndToEndTagSchema: distribution, which has no referrers API.
func TestOCIEndToEndTagSchema(t *testing.T) {
	endToEnd(t, ocitest.Distribution(t, ocitest.DistributionOptions{}), oci.ViaReferrersTag)
}

// TestOCIEndToEndReferrersAPI: go-containerregistry's registry with the
// referrers API.
func TestOCIEndToEndReferrersAPI(t *testing.T) {
	endToEnd(t, ocitest.ReferrersRegistry(t), oci.ViaReferrersAPI)
}

// TestOCIOrasInterop: oras discovers and pulls, byte for byte, what
// mcpres attached, and mcpres discovers and verifies what oras attached
// with our artifact type.
func TestOCIOrasInterop(t *testing.T) {
	ocitest.Tool(t, "oras", ocitest.OrasModule)
	for name, r := range map[string]*ocitest.Registry{
		"distribution": ocitest.Distribution(t, ocitest.DistributionOptions{}),
		"referrers":    ocitest.ReferrersRegistry(t),
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			pushed := r.PushImage(t, "mcp/server", "1.0", "oras")
			data := ocitest.AttestedBundle(t, pushed.Digest)
			ours := c.write("ours.attested.json", data)
			out, _ := c.must(0, "attach", pushed.Ref, ours)
			ref := out[strings.LastIndex(out, " as ")+4 : strings.LastIndex(out, " (")]
			listed := c.oras("discover", "--plain-http", "--format", "json", pushed.Ref)
			// (go-containerregistry's registry lists the config media type
			// as the artifactType: only the digest is compared.)
			if !strings.Contains(listed, ref[strings.Index(ref, "@")+1:]) {
				t.Fatalf("oras discover does not list %s:\n%s", ref, listed)
			}
			c.oras("pull", "--plain-http", "-o", "by-oras", ref)
			got, err := os.ReadFile(filepath.Join("by-oras", strings.TrimPrefix(oci.Digest(data), "sha256:")+".attested.json"))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("oras pull: %v, %d bytes, want %d", err, len(got), len(data))
			}

			// The same bundle attached again by oras (another manifest, the
			// same layer): both referrers verify.
			c.oras("attach", "--plain-http", "--artifact-type", oci.ArtifactType, pushed.Ref, ours+":"+oci.LayerMediaType)
			policy := c.write("policy.json", ocitest.Policy(t))
			_, errs := c.must(0, "attest", "verify", "--oci", pushed.Ref, "--policy", policy, "--evaluated-at="+attesttest.EvaluatedAt)
			if !strings.Contains(errs, "gate: passed: 2 of 2 referrers") {
				t.Errorf("one bundle, two referrers:\n%s", errs)
			}

			// oras attach with our artifact type and layer media type.
			pushed2 := r.PushImage(t, "mcp/server", "2.0", "oras2")
			theirs := c.write("theirs.attested.json", ocitest.AttestedBundle(t, pushed2.Digest))
			c.oras("attach", "--plain-http", "--artifact-type", oci.ArtifactType, pushed2.Ref, theirs+":"+oci.LayerMediaType)
			out, _ = c.must(0, "discover", "--format", "json", pushed2.Ref)
			d := jsonLines(t, out)[0]
			if rs := d.Get("referrers").Items; len(rs) != 1 || rs[0].Has("error") {
				t.Fatalf("mcpres discover of what oras attached:\n%s", out)
			}
			c.must(0, "attest", "verify", "--oci", pushed2.Ref, "--policy", policy, "--evaluated-at="+attesttest.EvaluatedAt, "--require-level", "SIGNED_WITH_IDENTITY")
		})
	}
}

// TestOCIAuth: distribution with htpasswd, credentials from the Docker
// configuration as docker login writes it.
func TestOCIAuth(t *testing.T) {
	r := ocitest.Distribution(t, ocitest.DistributionOptions{Auth: true})
	c := newCLI(t)
	pushed := r.PushImage(t, "mcp/server", "1.0", "auth")
	about := c.write("about.attested.json", ocitest.AttestedBundle(t, pushed.Digest))
	// Without credentials: refused, nothing attached.
	_, errs := c.must(2, "attach", pushed.Ref, about)
	if !strings.Contains(errs, "credential") {
		t.Errorf("without credentials:\n%s", errs)
	}
	t.Setenv("DOCKER_CONFIG", r.DockerConfig(t))
	c.must(0, "attach", pushed.Ref, about)
	out, _ := c.must(0, "discover", pushed.Ref)
	if !strings.Contains(out, "1 MCP-RES referrer (referrers tag schema)") {
		t.Errorf("discover:\n%s", out)
	}
	if _, ok := ocitest.Find("oras"); ok {
		// oras reads the same configuration.
		c.oras("discover", "--plain-http", pushed.Ref)
	}
}

// A registry that corrupts one bundle, and one that answers too slowly:
// attest verify --oci never passes on the first, and stops at --timeout
// on the second; oci pull writes nothing that does not match its digest.
func TestOCIHostileCLI(t *testing.T) {
	good := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	var corrupt string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if corrupt != "" && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/blobs/"+corrupt) {
			rec := httptest.NewRecorder()
			good.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			body[len(body)/2] ^= 1
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
			return
		}
		good.ServeHTTP(w, r)
	}))
	defer srv.Close()
	reg := &ocitest.Registry{Host: strings.TrimPrefix(srv.URL, "http://")}
	c := newCLI(t)
	pushed := reg.PushImage(t, "mcp/server", "1.0", "hostile")
	data := ocitest.AttestedBundle(t, pushed.Digest)
	about := c.write("about.attested.json", data)
	policy := c.write("policy.json", ocitest.Policy(t))
	c.must(0, "attach", pushed.Ref, about)
	at := "--evaluated-at=" + attesttest.EvaluatedAt
	c.must(0, "attest", "verify", "--oci", pushed.Ref, "--policy", policy, at) // control

	corrupt = oci.Digest(data)
	out, errs := c.must(1, "attest", "verify", "--oci", pushed.Ref, "--policy", policy, at, "--format", "text")
	if !strings.Contains(out, "INPUT INVALID") || !strings.Contains(out, "digest") || !strings.Contains(errs+out, "gate: FAILED") {
		t.Errorf("a corrupted bundle:\n%s\n%s", out, errs)
	}
	_, errs = c.must(1, "pull", pushed.Ref, "-o", "evidence")
	if entries, _ := os.ReadDir("evidence"); len(entries) != 1 || entries[0].Name() != oci.PullIndexName || !strings.Contains(errs, "not pulled") {
		t.Errorf("pull of a corrupted bundle wrote %v\n%s", entries, errs)
	}
	var line map[string]any
	idx, _ := os.ReadFile(filepath.Join("evidence", oci.PullIndexName))
	if err := json.Unmarshal(idx, &line); err != nil || line["error"] == nil || line["file"] != nil {
		t.Errorf("index of a corrupted bundle: %s", idx)
	}

	// Slow: headers, then nothing. --timeout bounds the command.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	defer slow.Close()
	start := time.Now()
	_, errs = c.must(2, "attest", "verify", "--oci", strings.TrimPrefix(slow.URL, "http://")+"/mcp/server:1.0", "--timeout", "500ms", "--policy", policy)
	if !strings.Contains(errs, "--timeout ran out") {
		t.Errorf("slow registry:\n%s", errs)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("the command outlived its --timeout by far: %v", time.Since(start))
	}
}
