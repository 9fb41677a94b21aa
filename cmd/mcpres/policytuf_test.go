package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyfile"
)

// buildTUFBinary builds cmd/mcpres-tuf into a temporary directory and
// points $MCPRES_TUF at it for the rest of the test.
func buildTUFBinary(t *testing.T) string { return buildCompanion(t, "mcpres-tuf", tufBinaryEnv) }

// buildCompanion builds cmd/NAME into a temporary directory and points
// the environment variable env at it for the rest of the test.
func buildCompanion(t *testing.T, name, env string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not available to build %s", name)
	}
	bin := filepath.Join(t.TempDir(), name)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/mcpres/mcpres/cmd/"+name).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	t.Setenv(env, bin)
	return bin
}

// runTUF runs an mcpres command line in-process, like runCLI.
func runTUF(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLI(t, args...)
}

// testOnlyTUFKey returns a fixed Ed25519 key derived from name (seed:
// SHA-256 of "mcpres cli tuf test-only seed: " + name). Public knowledge;
// never a real key.
func testOnlyTUFKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("mcpres cli tuf test-only seed: " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

const tufTestPolicy = `{"schemaVersion": "example/policy", "keys": []}` + "\n"

// tufRepoViaCLI creates a repository with `mcpres policy tuf init` and
// publishes tufTestPolicy as policy.json, signed at now.
func tufRepoViaCLI(t *testing.T, now time.Time) (keys, repo string) {
	t.Helper()
	keys = t.TempDir()
	for _, n := range []string{"root", "targets", "snapshot", "timestamp"} {
		pem, err := keyfile.MarshalPrivateKeyPEM(testOnlyTUFKey(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(keys, n+".key"), pem, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	repo = filepath.Join(t.TempDir(), "repo")
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(tufTestPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	k := func(n string) string { return filepath.Join(keys, n+".key") }
	roles := []string{"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp"), "--evaluated-at", now.UTC().Format(time.RFC3339)}
	for _, args := range [][]string{
		append([]string{"policy", "tuf", "init", "--repo", repo, "--root-key", k("root")}, roles...),
		append([]string{"policy", "tuf", "add-target", "--repo", repo, "--name", "policy.json", policy}, roles...),
	} {
		if stdout, stderr, code := runTUF(t, args...); code != exitValid || stderr != "" || !strings.Contains(stdout, "wrote ") {
			t.Fatalf("mcpres %s: exit %d\nstdout %s\nstderr %s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	return keys, repo
}

// `mcpres policy tuf …` runs mcpres-tuf with the same arguments, streams
// and exit status, and mcpres-tuf speaks as `mcpres policy tuf`.
func TestCLIPolicyTufRunsMcpresTuf(t *testing.T) {
	buildTUFBinary(t)
	_, repo := tufRepoViaCLI(t, time.Now())
	root := filepath.Join(repo, "1.root.json")

	stdout, stderr, code := runTUF(t, "policy", "tuf", "fetch", "--policy-tuf", root, "--policy-repo", repo, "--policy-target", "policy.json", "--policy-cache", t.TempDir())
	if code != exitValid || stdout != tufTestPolicy || stderr != "" {
		t.Errorf("fetch: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = runTUF(t, "policy", "tuf", "sign", "--repo", repo, "--role", "targets", "--key", root)
	if code != exitInput || stdout != "" || !strings.HasPrefix(stderr, `mcpres: error: --role "targets": only root`) ||
		!strings.HasSuffix(stderr, "\nRun 'mcpres policy tuf sign --help' for usage.\n") {
		t.Errorf("usage error: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, _, code = runTUF(t, "policy", "tuf", "--help")
	if code != exitValid || !strings.Contains(stdout, "mcpres policy tuf [command]") || !strings.Contains(stdout, "add-target") {
		t.Errorf("--help: exit %d stdout %q", code, stdout)
	}

	t.Setenv(tufBinaryEnv, filepath.Join(t.TempDir(), "absent"))
	_, stderr, code = runTUF(t, "policy", "tuf", "fetch")
	if code != exitInput || !strings.Contains(stderr, "mcpres: error: running ") {
		t.Errorf("missing binary: exit %d stderr %q", code, stderr)
	}
}

func TestFetchPolicyTUF(t *testing.T) {
	buildTUFBinary(t)
	_, repo := tufRepoViaCLI(t, time.Now())
	root := filepath.Join(repo, "1.root.json")
	srv := httptest.NewServer(http.FileServer(http.Dir(repo)))
	defer srv.Close()
	cache := t.TempDir()
	var stderr bytes.Buffer
	a := &app{stdout: new(bytes.Buffer), stderr: &stderr}

	name, data, err := a.fetchPolicyTUF(root, srv.URL, "policy.json", cache)
	if err != nil || string(data) != tufTestPolicy || name != "policy.json (TUF target of "+srv.URL+", targets version 2)" || stderr.Len() != 0 {
		t.Fatalf("online: %q %q %v (stderr %q)", name, data, err, stderr.String())
	}

	srv.Close()
	name, data, err = a.fetchPolicyTUF(root, srv.URL, "policy.json", cache)
	if err != nil || string(data) != tufTestPolicy || name == "" {
		t.Fatalf("offline: %v", err)
	}
	if msg := stderr.String(); !strings.HasPrefix(msg, "mcpres: warning: TUF repository "+srv.URL+" could not be read (fetching 2.root.json: ") ||
		!strings.Contains(msg, `; using the cached trust policy "policy.json" (targets version 2), verified again at `) {
		t.Errorf("offline warning %q", msg)
	}

	// A failure is a command error naming the role and the check.
	_, staleRepo := tufRepoViaCLI(t, time.Now().Add(-48*time.Hour))
	_, data, err = a.fetchPolicyTUF(filepath.Join(staleRepo, "1.root.json"), staleRepo, "policy.json", t.TempDir())
	var ce *cli.CommandError
	if data != nil || !errors.As(err, &ce) ||
		!strings.HasPrefix(err.Error(), `trust policy "policy.json" from TUF repository `+staleRepo+": tuf timestamp metadata failed the expiry check: expired at ") {
		t.Errorf("expired: %v", err)
	}
	if _, _, err := a.fetchPolicyTUF(root, repo, "../x", t.TempDir()); err == nil || !strings.Contains(err.Error(), `target name "../x"`) {
		t.Errorf("bad target name: %v", err)
	}
	t.Setenv(tufBinaryEnv, filepath.Join(t.TempDir(), "absent"))
	if _, _, err := a.fetchPolicyTUF(root, repo, "policy.json", cache); err == nil || !strings.Contains(err.Error(), "gave no result") {
		t.Errorf("missing binary: %v", err)
	}
}

const tufHelperEnv = "MCPRES_TEST_FETCH_POLICY_TUF"

// TestFetchPolicyTUFNoNetwork fills the cache over HTTP, then fetches in an
// empty network namespace (unshare -rn: not even loopback is up) while the
// server keeps running out of reach: first the built mcpres-tuf binary
// itself, then fetchPolicyTUF in a child of this test binary (which runs
// mcpres-tuf in turn). Both must return the cached policy.
func TestFetchPolicyTUFNoNetwork(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is not installed; skipping the network-namespace test")
	}
	if out, err := exec.Command("unshare", "-rn", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -rn does not work here (%v: %s); skipping the network-namespace test", err, bytes.TrimSpace(out))
	}
	bin := buildTUFBinary(t)
	_, repo := tufRepoViaCLI(t, time.Now())
	srv := httptest.NewServer(http.FileServer(http.Dir(repo)))
	defer srv.Close()
	root, cache := filepath.Join(repo, "1.root.json"), t.TempDir()
	a := &app{stdout: new(bytes.Buffer), stderr: new(bytes.Buffer)}
	if _, _, err := a.fetchPolicyTUF(root, srv.URL, "policy.json", cache); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.Command("unshare", "-rn", bin, "fetch", "--policy-tuf", root, "--policy-repo", srv.URL, "--policy-target", "policy.json", "--policy-cache", cache)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != tufTestPolicy || !strings.Contains(stderr.String(), "network is unreachable") {
		t.Fatalf("mcpres-tuf in the namespace: %v\nstdout %q\nstderr %q", err, stdout.String(), stderr.String())
	}

	args, _ := json.Marshal([]string{root, srv.URL, "policy.json", cache})
	stdout.Reset()
	stderr.Reset()
	cmd = exec.Command("unshare", "-rn", os.Args[0], "-test.run=^TestHelperProcessFetchPolicyTUF$")
	cmd.Env = append(os.Environ(), tufHelperEnv+"="+string(args))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.HasPrefix(stdout.String(), "policy.json (TUF target of "+srv.URL+", targets version 2)\n"+tufTestPolicy) ||
		!strings.Contains(stderr.String(), "network is unreachable") || !strings.Contains(stderr.String(), "mcpres: warning: ") {
		t.Fatalf("fetchPolicyTUF in the namespace: %v\nstdout %q\nstderr %q", err, stdout.String(), stderr.String())
	}
}

// TestHelperProcessFetchPolicyTUF is the child of
// TestFetchPolicyTUFNoNetwork; it does nothing in a normal test run.
func TestHelperProcessFetchPolicyTUF(t *testing.T) {
	arg := os.Getenv(tufHelperEnv)
	if arg == "" {
		return
	}
	var in []string
	if err := json.Unmarshal([]byte(arg), &in); err != nil {
		t.Fatal(err)
	}
	a := &app{stdout: os.Stdout, stderr: os.Stderr}
	name, data, err := a.fetchPolicyTUF(in[0], in[1], in[2], in[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitInput)
	}
	fmt.Printf("%s\n%s", name, data)
	os.Exit(exitValid)
}

// `attest verify --policy-tuf` gives exactly the result of `attest verify
// --policy` with the same policy file. Skipped until attest.go has the
// --policy-tuf flags.
func TestCLIAttestVerifyPolicyTUF(t *testing.T) {
	var out bytes.Buffer
	verify, _, err := (&app{stdout: &out, stderr: &out}).rootCommand().Find([]string{"attest", "verify"})
	if err != nil || verify.Flags().Lookup("policy-tuf") == nil {
		t.Skip("attest verify has no --policy-tuf flag yet")
	}
	buildTUFBinary(t)
	keys, repo := tufRepoViaCLI(t, time.Now())
	const (
		wrapper = "../../testdata/attestation/witnessed.json"
		policy  = "../../testdata/attestation/witnessed.trust-policy.json"
		at      = "2026-08-27T18:05:00.000Z"
	)
	k := func(n string) string { return filepath.Join(keys, n+".key") }
	if _, stderr, code := runTUF(t, "policy", "tuf", "add-target", "--repo", repo, "--name", "witnessed.json", policy,
		"--targets-key", k("targets"), "--snapshot-key", k("snapshot"), "--timestamp-key", k("timestamp")); code != exitValid {
		t.Fatalf("add-target: exit %d: %s", code, stderr)
	}
	want, wantErr, wantCode := runCLI(t, "attest", "verify", wrapper, "--evaluated-at", at, "--policy", policy)
	tuf := []string{"attest", "verify", wrapper, "--evaluated-at", at, "--policy-tuf", filepath.Join(repo, "1.root.json"),
		"--policy-repo", repo, "--policy-target", "witnessed.json", "--policy-cache", t.TempDir()}
	got, gotErr, gotCode := runCLI(t, tuf...)
	if got != want || gotErr != wantErr || gotCode != wantCode || wantCode != exitValid {
		t.Errorf("--policy-tuf: exit %d stdout %s stderr %q\n--policy: exit %d stdout %s stderr %q", gotCode, got, gotErr, wantCode, want, wantErr)
	}
	if _, stderr, code := runCLI(t, append(tuf, "--policy", policy)...); code != exitInput || !strings.Contains(stderr, "--policy-tuf") {
		t.Errorf("--policy with --policy-tuf: exit %d stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, tuf[:len(tuf)-4]...); code != exitInput || !strings.Contains(stderr, "--policy-tuf, --policy-repo and --policy-target go together") {
		t.Errorf("--policy-tuf without --policy-target: exit %d stderr %q", code, stderr)
	}
}
