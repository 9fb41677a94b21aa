package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/example"
	"github.com/mcpres/mcpres/oci/ocitest"
)

// The example draft's artifactSha256.
const exampleArtifactSha256 = "6f1f1b2c33142719e087781ea53a4ce7b9feb0377b72082168d6f1371a439d6a"

// blankDraft writes the example draft with an empty subject (name,
// version, artifactSha256), as a harness writes it before it knows what
// ships, and returns its path.
func blankDraft(t *testing.T, dir string) string {
	t.Helper()
	d, err := canonjson.Parse(example.Draft())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "version", "artifactSha256"} {
		d.Path("evidence", "subject").Set(k, canonjson.NewString(""))
	}
	data, err := canonjson.Pretty(d)
	if err != nil {
		t.Fatal(err)
	}
	return writeTestFile(t, dir, "draft.json", data, 0o644)
}

// subjectOf reads evidence.subject's artifactSha256, name and version.
func subjectOf(t *testing.T, path string) (digest, name, version string) {
	t.Helper()
	_, v, err := canonjson.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := v.Path("evidence", "subject")
	return s.Get("artifactSha256").Str, s.Get("name").Str, s.Get("version").Str
}

// subject set --artifact: the file's SHA-256, in place; then seal gives a
// valid bundle about it. -o writes elsewhere and leaves DRAFT unchanged.
func TestSubjectSetArtifact(t *testing.T) {
	dir := t.TempDir()
	draft := blankDraft(t, dir)
	art := writeTestFile(t, dir, "server.tar", []byte("the artifact that ships\n"), 0o644)
	sum := sha256.Sum256([]byte("the artifact that ships\n"))
	want := hex.EncodeToString(sum[:])

	out := filepath.Join(dir, "draft.out.json")
	before, _ := os.ReadFile(draft)
	runExpect(t, 0, "subject", "set", draft, "--artifact", art, "--name", "io.github.example/mcp-server", "--version", "1.2.3", "-o", out)
	if after, _ := os.ReadFile(draft); string(after) != string(before) {
		t.Error("-o: DRAFT changed")
	}
	if d, n, v := subjectOf(t, out); d != want || n != "io.github.example/mcp-server" || v != "1.2.3" {
		t.Errorf("-o: subject %s %s %s", d, n, v)
	}

	got := runExpect(t, 0, "subject", "set", draft, "--artifact", art)
	if !strings.Contains(got, "subject artifactSha256: "+want+" ("+art+")") {
		t.Errorf("output:\n%s", got)
	}
	if d, _, _ := subjectOf(t, draft); d != want {
		t.Errorf("in place: artifactSha256 %s, want %s", d, want)
	}
	// The same again is no change (exit 0, nothing to replace).
	if got := runExpect(t, 0, "subject", "set", draft, "--artifact", art); !strings.Contains(got, "subject unchanged") {
		t.Errorf("again:\n%s", got)
	}
	runExpect(t, 0, "subject", "set", draft, "--name", "io.github.example/mcp-server", "--version", "1.2.3")
	bundle := filepath.Join(dir, "bundle.json")
	runExpect(t, 0, "seal", draft, "-o", bundle)
	if d, n, v := subjectOf(t, bundle); d != want || n != "io.github.example/mcp-server" || v != "1.2.3" {
		t.Errorf("sealed subject %s %s %s", d, n, v)
	}
}

// A draft about another subject is refused (exit 1, nothing written,
// each member named) by subject set and by seal; --replace replaces it.
func TestSubjectSetRefusesAnotherSubject(t *testing.T) {
	dir := t.TempDir()
	draft := writeTestFile(t, dir, "example.draft.json", example.Draft(), 0o644)
	art := writeTestFile(t, dir, "server.tar", []byte("another build\n"), 0o644)
	sum := sha256.Sum256([]byte("another build\n"))
	want := hex.EncodeToString(sum[:])

	stdout, stderr, code := runCLI(t, "subject", "set", draft, "--artifact", art, "--version", "3.4.1")
	if code != exitInvalid || !strings.Contains(stderr, `artifactSha256 is "`+exampleArtifactSha256+`", not "`+want+`"`) || !strings.Contains(stderr, "--replace") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "version is") {
		t.Errorf("the equal version is named as a conflict:\n%s", stderr)
	}
	if after, _ := os.ReadFile(draft); string(after) != string(example.Draft()) {
		t.Error("the draft changed on a refusal")
	}
	bundle := filepath.Join(dir, "bundle.json")
	if _, stderr, code := runCLI(t, "seal", draft, "--artifact", art, "-o", bundle); code != exitInvalid || !strings.Contains(stderr, "another subject") {
		t.Errorf("seal: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(bundle); err == nil {
		t.Error("seal wrote a bundle about another subject")
	}
	// Controls: the example's own name is no conflict; --replace
	// replaces and says what it replaced.
	runExpect(t, 0, "subject", "set", draft, "--name", "ledger-notes-server")
	got := runExpect(t, 0, "seal", draft, "--artifact", art, "--replace", "-o", bundle)
	if !strings.Contains(got, `replacing "`+exampleArtifactSha256+`"`) {
		t.Errorf("seal --replace does not say what it replaced:\n%s", got)
	}
	if d, _, _ := subjectOf(t, bundle); d != want {
		t.Errorf("seal --replace: artifactSha256 %s", d)
	}
	runExpect(t, 0, "subject", "set", draft, "--artifact", art, "--replace")
	if d, _, _ := subjectOf(t, draft); d != want {
		t.Errorf("subject set --replace: artifactSha256 %s", d)
	}
}

// subject set --image and seal --image take the manifest digest the
// image's tag names in a registry on 127.0.0.1 (through mcpres-oci, as
// oci attach resolves it): go-containerregistry's registry in-process,
// and CNCF distribution when it is installed.
func TestSubjectSetImage(t *testing.T) {
	buildOCIBinary(t)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	registries := map[string]func(testing.TB) *ocitest.Registry{
		"ggcr":         ocitest.ReferrersRegistry,
		"distribution": func(tb testing.TB) *ocitest.Registry { return ocitest.Distribution(tb, ocitest.DistributionOptions{}) },
	}
	for name, start := range registries {
		t.Run(name, func(t *testing.T) {
			r := start(t)
			pushed := r.PushImage(t, "mcp/server", "1.2.3", "subject "+name)
			other := r.PushImage(t, "mcp/server", "1.2.4", "another "+name)
			dir := t.TempDir()
			draft := blankDraft(t, dir)
			want := strings.TrimPrefix(pushed.Digest, "sha256:")

			got := runExpect(t, 0, "subject", "set", draft, "--image", pushed.Ref, "--name", "io.github.example/mcp-server", "--version", "1.2.3")
			if !strings.Contains(got, "subject artifactSha256: "+want+" ("+pushed.Ref+"@"+pushed.Digest+")") {
				t.Errorf("output:\n%s", got)
			}
			if d, _, _ := subjectOf(t, draft); d != want {
				t.Errorf("artifactSha256 %s, want the manifest digest %s", d, pushed.Digest)
			}
			// By digest: the same; the other tag's image is another subject.
			runExpect(t, 0, "subject", "set", draft, "--image", r.Host+"/mcp/server@"+pushed.Digest)
			if _, stderr, code := runCLI(t, "subject", "set", draft, "--image", other.Ref); code != exitInvalid || !strings.Contains(stderr, strings.TrimPrefix(other.Digest, "sha256:")) {
				t.Errorf("another image: exit %d\n%s", code, stderr)
			}
			// seal --image in one step, from a blank draft.
			bundle := filepath.Join(dir, "bundle.json")
			runExpect(t, 0, "seal", blankDraft(t, t.TempDir()), "--image", other.Ref, "--name", "n", "--version", "1.2.4", "-o", bundle)
			if d, _, _ := subjectOf(t, bundle); d != strings.TrimPrefix(other.Digest, "sha256:") {
				t.Errorf("seal --image: artifactSha256 %s, want %s", d, other.Digest)
			}
			// A tag the registry does not have: exit 2, the draft unchanged.
			before, _ := os.ReadFile(draft)
			if _, stderr, code := runCLI(t, "subject", "set", draft, "--image", r.Host+"/mcp/server:9.9.9", "--replace"); code != exitInput || !strings.HasPrefix(stderr, "mcpres: error:") {
				t.Errorf("missing tag: exit %d\n%s", code, stderr)
			}
			if after, _ := os.ReadFile(draft); string(after) != string(before) {
				t.Error("the draft changed when the image could not be resolved")
			}
		})
	}
	// Without mcpres-oci: exit 2, naming it.
	t.Setenv(ociBinaryEnv, filepath.Join(t.TempDir(), "absent"))
	if _, stderr, code := runCLI(t, "subject", "set", blankDraft(t, t.TempDir()), "--image", "127.0.0.1:1/x:1"); code != exitInput || !strings.Contains(stderr, "absent") {
		t.Errorf("no mcpres-oci: exit %d\n%s", code, stderr)
	}
}

// Usage errors: nothing is read or written.
func TestSubjectSetUsage(t *testing.T) {
	dir := t.TempDir()
	draft := blankDraft(t, dir)
	art := writeTestFile(t, dir, "a.tar", []byte("a"), 0o644)
	notDraft := writeTestFile(t, dir, "policy.json", []byte(`{"schemaVersion":"mcpres.trust-policy/v1"}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{draft}, exitInput, "give what ships"},
		{[]string{draft, "--artifact", art, "--image", "127.0.0.1:1/x:1"}, exitInput, "give one"},
		{[]string{draft, "--artifact", ""}, exitInput, "an empty value is refused"},
		{[]string{draft, "--name", "x", "--force"}, exitInput, "--force goes with -o"},
		{[]string{draft, "--name", "x", "-o", draft}, exitInput, "it is an input"},
		{[]string{"-", "--name", "x"}, exitInput, "DRAFT -: this command writes a file"},
		{[]string{draft, "--artifact", filepath.Join(dir, "missing.tar")}, exitInput, "--artifact"},
		{[]string{notDraft, "--name", "x"}, exitInput, "/evidence: missing or not an object"},
	} {
		before, _ := os.ReadFile(draft)
		_, stderr, code := runCLI(t, append([]string{"subject", "set"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s", c.args, code, c.code, c.want, stderr)
		}
		if after, _ := os.ReadFile(draft); string(after) != string(before) {
			t.Errorf("%q: the draft changed", c.args)
		}
	}
}
