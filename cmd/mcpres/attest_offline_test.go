package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
)

// Verification is offline (REFERENCE §6.1): with every proxy variable
// pointing at a closed port, `attest verify` still succeeds. (A client that
// honoured the proxies could not connect.)
func TestCLIAttestVerifyIgnoresProxies(t *testing.T) {
	const dead = "http://127.0.0.1:1"
	for _, v := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"} {
		t.Setenv(v, dead)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	for _, c := range loadAttestCatalog(t) {
		if len(c.expected) != 0 {
			continue
		}
		t.Run(c.id, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.verifyArgs(c.policy)...)
			if code != exitValid || stderr != "" {
				t.Fatalf("exit %d, stderr %q, stdout %s", code, stderr, stdout)
			}
			if got := strOf(parseOneLine(t, stdout).Get("authenticityClassification")); got != c.level {
				t.Errorf("level %s, want %s", got, c.level)
			}
		})
	}
}

// buildBinary builds cmd/mcpres once into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not on PATH (%v); cannot build the binary", err)
	}
	bin := filepath.Join(t.TempDir(), "mcpres")
	args := []string{"build", "-o", bin}
	if s3Built {
		// This test binary has the object-storage log: so does the one
		// it starts (logs3_aws.go).
		args = append(args, "-tags", "mcpres_s3")
	}
	cmd := exec.Command(goTool, append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// unshareNet returns the unshare command if it can run a process in a new
// user and network namespace here, and skips the test otherwise.
func unshareNet(t *testing.T) string {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("unshare is not on PATH (%v); network-namespace test skipped", err)
	}
	if out, err := exec.Command(unshare, "-rn", "true").CombinedOutput(); err != nil {
		t.Skipf("`unshare -rn true` does not work here (%v: %s); network-namespace test skipped", err, bytes.TrimSpace(out))
	}
	return unshare
}

// runIsolated runs the binary inside a fresh network namespace (only a
// loopback interface, which is down).
func runIsolated(t *testing.T, unshare, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(unshare, append([]string{"-rn", bin}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running %s: %v", bin, err)
	}
	return out.String(), errb.String(), code
}

// The real binary verifies the committed corpus, and generates a key, signs
// and verifies, inside a network namespace that has no interface but a
// loopback that is down: nothing in these commands needs the network.
func TestBinaryOfflineInNetworkNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	unshare := unshareNet(t)
	// The namespace really is isolated: /proc/net/dev lists only "lo".
	out, err := exec.Command(unshare, "-rn", "cat", "/proc/net/dev").Output()
	if err != nil {
		t.Skipf("cannot inspect the namespace: %v", err)
	}
	var ifaces []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && !strings.Contains(name, "|") {
			ifaces = append(ifaces, strings.TrimSpace(name))
		}
	}
	if !slices.Equal(ifaces, []string{"lo"}) {
		t.Fatalf("the namespace has interfaces %v, want only lo", ifaces)
	}
	bin := buildBinary(t)

	for _, c := range loadAttestCatalog(t) {
		t.Run("verify/"+c.id, func(t *testing.T) {
			stdout, stderr, code := runIsolated(t, unshare, bin, c.verifyArgs(c.policy)...)
			wantCode := exitInvalid
			if len(c.expected) == 0 {
				wantCode = exitValid
			}
			if code != wantCode || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want %d", code, stderr, wantCode)
			}
			res := parseOneLine(t, stdout)
			if got := stringItems(res.Get("diagnostics")); !slices.Equal(got, c.expected) {
				t.Errorf("diagnostics %v, want %v", got, c.expected)
			}
			if got := strOf(res.Get("authenticityClassification")); got != c.level {
				t.Errorf("level %q, want %q", got, c.level)
			}
		})
	}

	t.Run("generate, sign, co-sign, verify", func(t *testing.T) {
		dir := t.TempDir()
		in := exampleBundleFile(t, dir)
		p := func(n string) string { return filepath.Join(dir, n) }
		var fps []string
		for _, name := range []string{"producer", "witness"} {
			stdout, stderr, code := runIsolated(t, unshare, bin, "key", "generate", "--out-base", p(name))
			if code != exitValid || !fingerprintLine.MatchString(stdout) {
				t.Fatalf("key generate: exit %d, %q %q", code, stdout, stderr)
			}
			fps = append(fps, strings.TrimSpace(stdout))
		}
		steps := [][]string{
			signArgs(in, p("producer.key"), attesttest.IdentityOne, p("signed.json")),
			signArgs(p("signed.json"), p("witness.key"), attesttest.IdentityTwo, p("witnessed.json"), "--claim", "WITNESSED"),
		}
		for _, args := range steps {
			if stdout, stderr, code := runIsolated(t, unshare, bin, args...); code != exitValid {
				t.Fatalf("%v: exit %d, %q %q", args[:2], code, stdout, stderr)
			}
		}
		policy := attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{}})
		s := canonjson.NewString
		m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
		signers := policy.Get("trustedSigners")
		for i, id := range []string{attesttest.IdentityOne, attesttest.IdentityTwo} {
			signers.Items = append(signers.Items, canonjson.NewObject(m("keyFingerprint", s(fps[i])), m("signerIdentity", s(id))))
		}
		pol := writePretty(t, dir, "policy.json", policy)
		stdout, stderr, code := runIsolated(t, unshare, bin, "attest", "verify", "--policy", pol, "--subject-name", exampleSubjectName, "--evaluated-at", attesttest.EvaluatedAt, p("witnessed.json"))
		if code != exitValid || stderr != "" || strOf(parseOneLine(t, stdout).Get("authenticityClassification")) != "WITNESSED" {
			t.Errorf("verify: exit %d, stderr %q, stdout %s", code, stderr, stdout)
		}
	})
}
