package ghaction

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// installPrograms are the binaries the action installs.
var installPrograms = []string{"mcpres", "mcpres-oci", "mcpres-tuf", "mcpres-sigstore"}

// fakeProgram is a stand-in release binary: a script that says which
// program and which build it is.
func fakeProgram(name, build string) []byte {
	return []byte(fmt.Sprintf("#!/bin/sh\necho '%s %s'\n", name, build))
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// installEnv is one run of action/install.sh: an action checkout holding
// the script and a pins file, a RUNNER_TEMP, and the runner's files.
type installEnv struct {
	t              *testing.T
	action, temp   string
	output, path   string
	env            []string
	stdout, stderr string
	installed      string
}

func newInstallEnv(t *testing.T, pins string) *installEnv {
	t.Helper()
	e := &installEnv{t: t, action: t.TempDir(), temp: t.TempDir()}
	script, err := os.ReadFile(filepath.Join(repoRoot, "action", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(e.action, "action"), 0o755)
	os.WriteFile(filepath.Join(e.action, "action", "install.sh"), script, 0o755)
	os.WriteFile(filepath.Join(e.action, "action", "release.sha256"), []byte(pins), 0o644)
	os.WriteFile(filepath.Join(e.action, "go.mod"), []byte("module example.org/fake\n"), 0o644)
	dir := t.TempDir()
	e.output, e.path = filepath.Join(dir, "output"), filepath.Join(dir, "path")
	e.env = append(os.Environ(), "MCPRES_ACTION_PATH="+e.action, "RUNNER_TEMP="+e.temp,
		"GITHUB_OUTPUT="+e.output, "GITHUB_PATH="+e.path, "MCPRES_REPOSITORY=example/mcpres")
	e.installed = filepath.Join(e.temp, "mcpres-bin")
	return e
}

// run runs install.sh MODE with extra environment and returns its exit
// status.
func (e *installEnv) run(mode string, env ...string) int {
	e.t.Helper()
	c := exec.Command("bash", filepath.Join(e.action, "action", "install.sh"), mode)
	c.Env = append(append([]string(nil), e.env...), env...)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	e.stdout, e.stderr = out.String(), errb.String()
	e.t.Logf("install.sh %s:\n%s%s", mode, e.stdout, e.stderr)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return 0
}

func (e *installEnv) outputs() string {
	data, _ := os.ReadFile(e.output)
	return string(data)
}

// platformName is the runner platform as install.sh names it.
func platformName() string { return runtime.GOOS + "-" + runtime.GOARCH }

// releaseServer serves files at /releases/download/TAG/NAME on
// 127.0.0.1 and returns its base URL.
func releaseServer(t *testing.T, tag string, files map[string][]byte) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "releases", "download", tag)
	os.MkdirAll(dir, 0o755)
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("the test server is not on 127.0.0.1: %s", srv.URL)
	}
	return srv.URL
}

// TestInstallScript runs action/install.sh, the action's install step,
// against a release on a file server on 127.0.0.1: pinned bytes install,
// a tampered binary and a pin of other bytes are refused with nothing
// installed, no release (none pinned, none for the platform, a 404) falls
// back to the build, whose cached binaries install without a build.
func TestInstallScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not available")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not available")
	}
	plat := platformName()
	const tag = "v9.9.9"
	honest := map[string][]byte{}
	var pins strings.Builder
	fmt.Fprintf(&pins, "# test pins\n\nrelease %s\n", tag)
	for _, p := range installPrograms {
		data := fakeProgram(p, "release")
		honest[p+"-"+plat] = data
		fmt.Fprintf(&pins, "%s  %s-%s\n", sum(data), p, plat)
	}
	// Another platform's pins are ignored here.
	fmt.Fprintf(&pins, "%s  mcpres-plan9-mips\n", strings.Repeat("0", 64))
	url := releaseServer(t, tag, honest)
	testURL := "MCPRES_TEST_ONLY_RELEASE_URL=" + url

	t.Run("pinned bytes install", func(t *testing.T) {
		e := newInstallEnv(t, pins.String())
		if code := e.run("release", testURL); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(e.outputs(), "how=release\n") {
			t.Errorf("outputs %q", e.outputs())
		}
		for _, p := range installPrograms {
			got, err := os.ReadFile(filepath.Join(e.installed, p))
			if err != nil || string(got) != string(honest[p+"-"+plat]) {
				t.Errorf("%s: %q %v", p, got, err)
			}
		}
		if path, _ := os.ReadFile(e.path); strings.TrimSpace(string(path)) != e.installed {
			t.Errorf("GITHUB_PATH %q", path)
		}
		// Once installed, later uses of the action in the job reuse it.
		if code := e.run("release", testURL); code != 0 || !strings.Contains(e.outputs(), "how=present\n") {
			t.Errorf("second run: exit %d, outputs %q", code, e.outputs())
		}
		if code := e.run("build"); code != 0 || strings.Contains(e.stdout+e.stderr, "go:") {
			t.Errorf("build after a release install: exit %d", code)
		}
	})

	refused := func(t *testing.T, e *installEnv, url string, want string) {
		t.Helper()
		if code := e.run("release", "MCPRES_TEST_ONLY_RELEASE_URL="+url); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if !strings.Contains(e.stderr, want) || !strings.Contains(e.stderr, "refused, nothing installed") {
			t.Errorf("stderr %q, want %q", e.stderr, want)
		}
		if _, err := os.Stat(e.installed); err == nil {
			t.Error("something was installed")
		}
		if strings.Contains(e.outputs(), "how=") {
			t.Errorf("outputs %q: no fallback after a refusal", e.outputs())
		}
	}
	t.Run("a tampered binary is refused", func(t *testing.T) {
		tampered := map[string][]byte{}
		for k, v := range honest {
			tampered[k] = v
		}
		// The last program, after the others passed: none is installed.
		tampered["mcpres-tuf-"+plat] = fakeProgram("mcpres-tuf", "tampered")
		refused(t, newInstallEnv(t, pins.String()), releaseServer(t, tag, tampered), "mcpres-tuf-"+plat+" of release "+tag+" has SHA-256 "+sum(tampered["mcpres-tuf-"+plat]))
	})
	t.Run("pins of other bytes are refused", func(t *testing.T) {
		other := strings.Replace(pins.String(), sum(honest["mcpres-"+plat]), sum([]byte("other")), 1)
		refused(t, newInstallEnv(t, other), url, "but this action pins "+sum([]byte("other")))
	})

	// A release signed keylessly: the pins name the release workflow's
	// identity; SHA256SUMS must list the pinned sums and its signature
	// must verify, checked by the downloaded mcpres-sigstore (a stand-in
	// here that accepts the bundle "good" and records its arguments; the
	// real verify-blob is tested in cmd/mcpres-sigstore with a real
	// Fulcio and timestamp authority).
	t.Run("signed release", func(t *testing.T) {
		argsFile := filepath.Join(t.TempDir(), "verify-args")
		verifier := []byte("#!/bin/sh\nif [ \"$1\" = verify-blob ]; then printf '%s\\n' \"$@\" > " + argsFile +
			"; [ \"$(cat \"$4\")\" = good ] && exit 0; echo 'INVALID MCPRES_KEYLESS_BLOB_SIGNATURE'; exit 1; fi\necho 'mcpres-sigstore release'\n")
		files := map[string][]byte{}
		var spins, sums strings.Builder
		const issuer, identity = "https://token.actions.githubusercontent.com", `^https://github\.com/example/mcpres/\.github/workflows/release-binaries\.yml@refs/tags/v9\.9\.9$`
		fmt.Fprintf(&spins, "release %s\nsigned-by %s %s\n", tag, issuer, identity)
		for _, p := range installPrograms {
			data := fakeProgram(p, "release")
			if p == "mcpres-sigstore" {
				data = verifier
			}
			files[p+"-"+plat] = data
			fmt.Fprintf(&spins, "%s  %s-%s\n", sum(data), p, plat)
			fmt.Fprintf(&sums, "%s  %s-%s\n", sum(data), p, plat)
		}
		signed := func(t *testing.T, edit func(map[string][]byte)) (*installEnv, string) {
			t.Helper()
			fs := map[string][]byte{"SHA256SUMS": []byte(sums.String()), "SHA256SUMS.sigstore.json": []byte("good")}
			for k, v := range files {
				fs[k] = v
			}
			if edit != nil {
				edit(fs)
			}
			e := newInstallEnv(t, spins.String())
			os.WriteFile(filepath.Join(e.action, "action", "trusted_root.json"), []byte("{}"), 0o644)
			return e, releaseServer(t, tag, fs)
		}
		e, u := signed(t, nil)
		if code := e.run("release", "MCPRES_TEST_ONLY_RELEASE_URL="+u); code != 0 || !strings.Contains(e.stdout, "SHA256SUMS signed by "+identity) {
			t.Fatalf("honest signed release: exit %d\n%s%s", code, e.stdout, e.stderr)
		}
		args, _ := os.ReadFile(argsFile)
		for _, w := range []string{"--trusted-root\n" + filepath.Join(e.action, "action", "trusted_root.json") + "\n", "--certificate-oidc-issuer\n" + issuer + "\n", "--certificate-identity-regexp\n" + identity + "\n"} {
			if !strings.Contains(string(args), w) {
				t.Errorf("verify-blob was not given %q:\n%s", w, args)
			}
		}
		e, u = signed(t, func(fs map[string][]byte) { fs["SHA256SUMS.sigstore.json"] = []byte("a signature by someone else") })
		refused(t, e, u, "the signature of SHA256SUMS does not verify as "+identity)
		e, u = signed(t, func(fs map[string][]byte) { delete(fs, "SHA256SUMS.sigstore.json") })
		refused(t, e, u, "SHA256SUMS.sigstore.json: HTTP status 404")
		e, u = signed(t, func(fs map[string][]byte) {
			fs["SHA256SUMS"] = []byte(strings.Replace(sums.String(), sum(files["mcpres-"+plat]), sum([]byte("other")), 1))
		})
		refused(t, e, u, "SHA256SUMS does not list mcpres-"+plat+" with its pinned SHA-256")
		e, u = signed(t, nil)
		os.Remove(filepath.Join(e.action, "action", "trusted_root.json"))
		if code := e.run("release", "MCPRES_TEST_ONLY_RELEASE_URL="+u); code != 2 || !strings.Contains(e.stderr, "trusted_root.json is missing") {
			t.Errorf("a signer pinned without a trusted root: exit %d %s", code, e.stderr)
		}
	})

	build := func(t *testing.T, e *installEnv, env ...string) {
		t.Helper()
		if code := e.run("release", env...); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(e.outputs(), "how=build\n") || !strings.Contains(e.outputs(), "cache-key=mcpres-build-"+plat+"-") {
			t.Errorf("outputs %q", e.outputs())
		}
		if _, err := os.Stat(e.installed); err == nil {
			t.Error("something was installed before the build")
		}
	}
	t.Run("no release pinned: build", func(t *testing.T) {
		build(t, newInstallEnv(t, "# nothing pinned\n"), testURL)
	})
	t.Run("no binary pinned for the platform: build", func(t *testing.T) {
		build(t, newInstallEnv(t, "release "+tag+"\n"+strings.Repeat("1", 64)+"  mcpres-plan9-mips\n"), testURL)
	})
	t.Run("a pinned release that does not exist: build", func(t *testing.T) {
		e := newInstallEnv(t, strings.Replace(pins.String(), tag, "v9.9.8", 1))
		build(t, e, testURL)
		if !strings.Contains(e.stderr+e.stdout, "(404)") {
			t.Errorf("the fallback does not say why")
		}
	})
	t.Run("the cached build installs without building", func(t *testing.T) {
		e := newInstallEnv(t, "# nothing pinned\n")
		build(t, e)
		cache := filepath.Join(e.temp, "mcpres-build")
		os.MkdirAll(cache, 0o755)
		for _, p := range installPrograms {
			os.WriteFile(filepath.Join(cache, p), fakeProgram(p, "cached"), 0o755)
		}
		// No go on PATH: a build would fail.
		if code := e.run("build", "PATH="+noGoPath(t)); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(e.stdout, "mcpres cached") {
			t.Errorf("stdout %q: not the cached build", e.stdout)
		}
		// Control: without the cache, the build runs go (absent here).
		f := newInstallEnv(t, "# nothing pinned\n")
		if code := f.run("build", "PATH="+noGoPath(t)); code == 0 {
			t.Error("a build without go and without a cache succeeded")
		}
	})
	t.Run("the cache key follows the sources", func(t *testing.T) {
		e := newInstallEnv(t, "# nothing pinned\n")
		e.run("release")
		first := e.outputs()
		os.WriteFile(filepath.Join(e.action, "main.go"), []byte("package main\n"), 0o644)
		os.Remove(e.output)
		e.run("release")
		if first == e.outputs() {
			t.Errorf("the same cache key for other sources: %q", first)
		}
	})

	for _, c := range []struct {
		name, pins string
		env        []string
		want       string
	}{
		{"a malformed pins line", "release " + tag + "\n" + sum(nil) + " mcpres-" + plat + "\n", []string{testURL}, "neither 'release TAG', 'signed-by ISSUER ^IDENTITY$' nor 'SHA256  FILE'"},
		{"two releases", "release v1\nrelease v2\n", []string{testURL}, "names two releases"},
		{"a test URL off loopback", pins.String(), []string{"MCPRES_TEST_ONLY_RELEASE_URL=http://example.org"}, "on 127.0.0.1 only"},
		{"a repository that is not OWNER/NAME", pins.String(), []string{"MCPRES_REPOSITORY=https://evil.example/x"}, "must be OWNER/NAME"},
		{"no repository", pins.String(), []string{"MCPRES_REPOSITORY="}, "must be OWNER/NAME"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newInstallEnv(t, c.pins)
			if code := e.run("release", c.env...); code != 2 || !strings.Contains(e.stderr, c.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, e.stderr, c.want)
			}
			if _, err := os.Stat(e.installed); err == nil {
				t.Error("something was installed")
			}
		})
	}
}

// noGoPath is a PATH with the tools install.sh uses and no go.
func noGoPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"bash", "sh", "sha256sum", "cut", "mkdir", "install", "cat", "uname", "find", "sort", "xargs", "mktemp", "rm", "mv", "curl"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			continue
		}
		os.Symlink(p, filepath.Join(dir, tool))
	}
	return dir
}
