package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/keyfile"
)

// usagePointer ends the message of a usage error (internal/cli
// PrintError): the cause, then where the usage is, never the usage text.
const usagePointer = "--help' for usage.\n"

// testOnlyTUFKey returns a fixed Ed25519 key derived from name (seed:
// SHA-256 of "mcpres cli tuf test-only seed: " + name). Public knowledge;
// never a real key.
func testOnlyTUFKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres cli tuf test-only seed: " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// tufKeyFiles writes the private key of each name to DIR/name.key (0600)
// and its public key to DIR/name.pub, and returns DIR.
func tufKeyFiles(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		k := testOnlyTUFKey(n)
		priv, err := keyfile.MarshalPrivateKeyPEM(k)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := keyfile.MarshalPublicKeyPEM(k.Public().(ed25519.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n+".key"), priv, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n+".pub"), pub, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runTUF runs one command line in-process and returns its streams and
// exit code.
func runTUF(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func wantTUFRun(t *testing.T, wantCode int, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, code := runTUF(t, args...)
	if code != wantCode {
		t.Fatalf("mcpres-tuf %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, wantCode, stdout, stderr)
	}
	return stdout, stderr
}

const tufTestPolicy = `{"schemaVersion": "example/policy", "keys": []}` + "\n"

// tufTestRepo makes a repository with a single root key and the policy
// published as policy.json, signed now by the clock.
func tufTestRepo(t *testing.T) (keys, repo string) {
	t.Helper()
	keys = tufKeyFiles(t, "root-1", "targets", "snapshot", "timestamp")
	repo = filepath.Join(t.TempDir(), "repo")
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(tufTestPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	k := func(n string) string { return filepath.Join(keys, n+".key") }
	wantTUFRun(t, 0, "init", "--repo", repo, "--root-key", k("root-1"),
		"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp"))
	wantTUFRun(t, 0, "add-target", "--repo", repo, "--name", "policy.json", policy,
		"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp"))
	return keys, repo
}

// The whole flow: a threshold-2 root signed by one key, a policy, the
// second signature, then fetching from a directory and over HTTP, and
// offline from the cache.
func TestCLIPolicyTUF(t *testing.T) {
	keys := tufKeyFiles(t, "root-1", "root-2", "targets", "snapshot", "timestamp")
	k := func(n string) string { return filepath.Join(keys, n) }
	repo := filepath.Join(t.TempDir(), "repo")
	stdout, stderr := wantTUFRun(t, 0, "init", "--repo", repo,
		"--root-key", k("root-1.key"), "--root-key", k("root-2.pub"), "--root-threshold", "2",
		"--targets-key", k("targets.key"), "--snapshot-key", k("snapshot.key"), "--timestamp-key", k("timestamp.key"))
	rootFile := filepath.Join(repo, "1.root.json")
	sum := sha256.Sum256(readTestFile(t, rootFile))
	for _, want := range []string{
		"wrote " + filepath.Join(repo, "1.targets.json") + ": targets version 1, expires ",
		"wrote " + rootFile + ": root version 1, expires ",
		", 1 of 2 required signatures\n",
		"pin " + rootFile + ": sha256 " + hex.EncodeToString(sum[:]) + "\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("init stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "mcpres-tuf: warning: "+rootFile+" has 1 of the 2 signatures root requires: verifiers reject it until 'sign --role root' adds the rest") {
		t.Errorf("init stderr: %s", stderr)
	}

	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(tufTestPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ = wantTUFRun(t, 0, "add-target", "--repo", repo, "--name", "release/policy.json", policy,
		"--targets-key", k("targets.key"), "--snapshot-key", k("snapshot.key"), "--timestamp-key", k("timestamp.key"))
	psum := sha256.Sum256([]byte(tufTestPolicy))
	if !strings.Contains(stdout, fmt.Sprintf("target release/policy.json: %d bytes, sha256 %s\n", len(tufTestPolicy), hex.EncodeToString(psum[:]))) ||
		!strings.Contains(stdout, "timestamp version 2") {
		t.Errorf("add-target stdout:\n%s", stdout)
	}

	cache := t.TempDir()
	fetch := []string{"fetch", "--policy-tuf", rootFile, "--policy-repo", repo, "--policy-target", "release/policy.json", "--policy-cache", cache}
	stdout, stderr = wantTUFRun(t, exitInput, fetch...)
	if stdout != "" || !strings.Contains(stderr, "tuf root metadata failed the signature threshold check") || !strings.Contains(stderr, "got 1, want 2") {
		t.Errorf("fetch with 1 of 2 root signatures: stdout %q stderr %q", stdout, stderr)
	}

	stdout, _ = wantTUFRun(t, 0, "sign", "--repo", repo, "--role", "root", "--key", k("root-2.key"))
	if !strings.Contains(stdout, "root version 1") || !strings.Contains(stdout, "2 of 2 required signatures") {
		t.Errorf("sign stdout: %s", stdout)
	}
	if stdout, stderr = wantTUFRun(t, 0, fetch...); stdout != tufTestPolicy || stderr != "" {
		t.Errorf("fetch from the directory: stdout %q stderr %q", stdout, stderr)
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(repo)))
	defer srv.Close()
	fetch[4] = srv.URL
	out := filepath.Join(t.TempDir(), "fetched.json")
	if stdout, stderr = wantTUFRun(t, 0, append(fetch, "-o", out)...); stdout != "" || stderr != "" {
		t.Errorf("fetch over HTTP: stdout %q stderr %q", stdout, stderr)
	}
	if got := string(readTestFile(t, out)); got != tufTestPolicy {
		t.Errorf("-o file holds %q", got)
	}
	srv.Close()
	stdout, stderr = wantTUFRun(t, 0, fetch...)
	if stdout != tufTestPolicy || !strings.Contains(stderr, "mcpres-tuf: warning: TUF repository "+srv.URL+" could not be read (") ||
		!strings.Contains(stderr, `using the cached trust policy "release/policy.json" (targets version 2), verified again at `) {
		t.Errorf("offline fetch: stdout %q stderr %q", stdout, stderr)
	}
}

// Metadata signed long enough ago has expired: the fetch fails, naming the
// role and the check, and exits 2.
func TestCLIPolicyTUFExpired(t *testing.T) {
	_, repo := tufTestRepo(t)
	keys := tufKeyFiles(t, "targets", "snapshot", "timestamp")
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(tufTestPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	// Signed two days ago with the default one-day timestamp expiry. The
	// repository's keys are those of tufTestRepo: the same testOnly names.
	past := time.Now().Add(-48 * time.Hour).UTC().Format(time.RFC3339)
	wantTUFRun(t, 0, "add-target", "--repo", repo, "--name", "policy.json", policy, "--evaluated-at", past,
		"--targets-key", filepath.Join(keys, "targets.key"), "--snapshot-key", filepath.Join(keys, "snapshot.key"), "--timestamp-key", filepath.Join(keys, "timestamp.key"))
	stdout, stderr := wantTUFRun(t, exitInput, "fetch", "--policy-tuf", filepath.Join(repo, "1.root.json"),
		"--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", t.TempDir())
	if stdout != "" || !strings.Contains(stderr, `mcpres-tuf: error: trust policy "policy.json" from TUF repository `+repo+": tuf timestamp metadata failed the expiry check: expired at ") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	if strings.Contains(stderr, usagePointer) {
		t.Error("a verification failure printed the usage text")
	}
}

func TestCLIPolicyTUFUsage(t *testing.T) {
	keys, repo := tufTestRepo(t)
	k := func(n string) string { return filepath.Join(keys, n+".key") }
	notJSON := filepath.Join(t.TempDir(), "policy.txt")
	if err := os.WriteFile(notJSON, []byte("{\"a\":1,\"a\":2}"), 0o644); err != nil {
		t.Fatal(err)
	}
	validJSON := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(validJSON, []byte(tufTestPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	roles := []string{"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp")}
	tests := []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"init without repo", append([]string{"init", "--root-key", k("root-1")}, roles...), "--repo is required", true},
		{"init without root key", append([]string{"init", "--repo", repo}, roles...), "at least one --root-key is required", true},
		{"init two keys no threshold", append([]string{"init", "--repo", repo, "--root-key", k("root-1"), "--root-key", k("targets")}, roles...), "--root-threshold is required with more than one --root-key", true},
		{"init bad now", append([]string{"init", "--repo", t.TempDir(), "--root-key", k("root-1"), "--evaluated-at", "yesterday"}, roles...), `--evaluated-at "yesterday" is not an RFC 3339 date-time`, true},
		{"init existing repository", append([]string{"init", "--repo", repo, "--root-key", k("root-1")}, roles...), "already holds a TUF repository", false},
		{"add-target without name", append([]string{"add-target", "--repo", repo, notJSON}, roles...), "--name is required", true},
		{"add-target bad name", append([]string{"add-target", "--repo", repo, "--name", "../x", notJSON}, roles...), `--name: tufdist: target name "../x"`, true},
		{"add-target duplicate keys in JSON", append([]string{"add-target", "--repo", repo, "--name", "x.json", notJSON}, roles...), notJSON + ": ", false},
		{"add-target wrong key", []string{"add-target", "--repo", repo, "--name", "x.json", validJSON, "--targets-key", k("snapshot"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp")}, "the targets key given (key id ", false},
		{"sign targets", []string{"sign", "--repo", repo, "--role", "targets", "--key", k("targets")}, `--role "targets": only root`, true},
		{"sign already signed", []string{"sign", "--repo", repo, "--role", "root", "--key", k("root-1")}, "already signed", false},
		{"fetch without target", []string{"fetch", "--policy-tuf", filepath.Join(repo, "1.root.json"), "--policy-repo", repo}, "--policy-tuf, --policy-repo and --policy-target are required", true},
		{"fetch unknown target", []string{"fetch", "--policy-tuf", filepath.Join(repo, "1.root.json"), "--policy-repo", repo, "--policy-target", "nope.json", "--policy-cache", t.TempDir()}, `target not found: targets version 2 does not list "nope.json"`, false},
		{"fetch missing root", []string{"fetch", "--policy-tuf", filepath.Join(repo, "9.root.json"), "--policy-repo", repo, "--policy-target", "policy.json"}, "--policy-tuf: cannot read ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr := wantTUFRun(t, exitInput, tt.args...)
			if stdout != "" || !strings.Contains(stderr, "mcpres-tuf: error: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stdout %q stderr %q, want %q", stdout, stderr, tt.want)
			}
			if strings.Contains(stderr, usagePointer) != tt.usage {
				t.Errorf("usage text printed: %t, want %t", !tt.usage, tt.usage)
			}
		})
	}
}

func readTestFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// --format json writes one result object, on success and on failure.
func TestCLIFetchJSON(t *testing.T) {
	_, repo := tufTestRepo(t)
	root := filepath.Join(repo, "1.root.json")
	stdout, stderr := wantTUFRun(t, 0, "fetch", "--format", "json", "--policy-tuf", root, "--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", t.TempDir())
	var res map[string]any
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || stderr != "" || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout %q stderr %q: %v", stdout, stderr, err)
	}
	sum := sha256.Sum256([]byte(tufTestPolicy))
	for key, want := range map[string]any{
		"schemaVersion": "mcpres.tuf-fetch-result/v1", "valid": true, "target": "policy.json", "repository": repo,
		"length": float64(len(tufTestPolicy)), "sha256": hex.EncodeToString(sum[:]), "fromCache": false, "fetchError": nil,
		"dataBase64": base64.StdEncoding.EncodeToString([]byte(tufTestPolicy)),
	} {
		if res[key] != want {
			t.Errorf("%s: %v, want %v", key, res[key], want)
		}
	}
	if tg, _ := res["targets"].(map[string]any); tg["version"] != float64(2) {
		t.Errorf("targets: %v", res["targets"])
	}

	stdout, stderr = wantTUFRun(t, exitInput, "fetch", "--format", "json", "--policy-tuf", root, "--policy-repo", repo, "--policy-target", "missing.json", "--policy-cache", t.TempDir())
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || stderr != "" {
		t.Fatalf("stdout %q stderr %q: %v", stdout, stderr, err)
	}
	if res["valid"] != false || res["role"] != nil || !strings.Contains(fmt.Sprint(res["error"]), "target not found") {
		t.Errorf("failure object %v", res)
	}

	// A verification failure names the role and the check.
	past := time.Now().Add(-72 * time.Hour).UTC().Format(time.RFC3339)
	keys := tufKeyFiles(t, "targets", "snapshot", "timestamp")
	wantTUFRun(t, 0, "add-target", "--repo", repo, "--name", "policy.json", root, "--evaluated-at", past,
		"--targets-key", filepath.Join(keys, "targets.key"), "--snapshot-key", filepath.Join(keys, "snapshot.key"), "--timestamp-key", filepath.Join(keys, "timestamp.key"))
	stdout, _ = wantTUFRun(t, exitInput, "fetch", "--format", "json", "--policy-tuf", root, "--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", t.TempDir())
	res = nil
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res["valid"] != false || res["role"] != "timestamp" || res["check"] != "expiry" {
		t.Errorf("expired: %s (%v)", stdout, err)
	}
}

// Run by mcpres (MCPRES_TUF_INVOKED_AS), usage lines and prefixes show the
// command as the user typed it.
func TestCLIInvokedAs(t *testing.T) {
	t.Setenv(invokedAsEnv, "mcpres policy tuf")
	stdout, stderr := wantTUFRun(t, exitInput, "sign", "--repo", "r", "--role", "snapshot", "--key", "k")
	if stdout != "" || !strings.HasPrefix(stderr, "mcpres: error: --role \"snapshot\"") || !strings.HasSuffix(stderr, "\nRun 'mcpres policy tuf sign --help' for usage.\n") {
		t.Errorf("stderr %q", stderr)
	}
	stdout, _ = wantTUFRun(t, 0, "--help")
	if !strings.Contains(stdout, "mcpres policy tuf [command]") {
		t.Errorf("help: %s", stdout)
	}
}

// A public key given where a role's private key is taken says what it is
// and where it comes from, as mcpres words it (cmd/internal/keyhints); a
// damaged private key keeps its own error (the control).
func TestCLIKeyKindWorded(t *testing.T) {
	dir := t.TempDir()
	pubPEM, err := keyfile.MarshalPublicKeyPEM(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32)).Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(dir, "root.pub")
	if err := os.WriteFile(pub, pubPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runTUF(t, "sign", "--repo", dir, "--role", "root", "--key", pub)
	if code != 2 || !strings.Contains(stderr, "this is a PEM public key (NAME.pub of `mcpres key generate`), for signers") || !strings.Contains(stderr, "; not a PEM private key (NAME.key of `mcpres key generate`)") {
		t.Errorf("a public key as --key: exit %d, stderr %q", code, stderr)
	}
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runTUF(t, "sign", "--repo", dir, "--role", "root", "--key", bad); code != 2 || strings.Contains(stderr, "this is") || !strings.Contains(stderr, "not valid PKCS#8") {
		t.Errorf("a damaged private key: exit %d, stderr %q", code, stderr)
	}
}
