package verifycmd

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/oci/pulled"
)

// signedFile signs b with key as identity and writes it in dir.
func signedFile(t *testing.T, dir, name string, b *canonjson.Value, key ed25519.PrivateKey, identity string) (path string, data []byte) {
	t.Helper()
	s, err := attest.SignBundle(b, key, attest.BundleSignOptions{SignOptions: attesttest.Options(identity)})
	if err != nil {
		t.Fatal(err)
	}
	data, err = canonjson.Pretty(s.Attested)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func policyFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.json")
	data, _ := canonjson.Pretty(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func subjectDigest(b *canonjson.Value) string {
	return "sha256:" + b.Path("evidence", "subject", "artifactSha256").Str
}

// run is attest verify with args; it returns stdout, stderr and the exit
// error ("" for none).
func run(t *testing.T, args ...string) (string, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := execute(testConfig(&stdout, &stderr), args...)
	e := ""
	if err != nil {
		e = err.Error()
	}
	return stdout.String(), stderr.String(), e
}

// With a trust source every file gate refuses a FAIL or INCOMPLETE result
// and a bundle no trusted key signed, whatever other gate flag is given;
// each passes only when accepted by name.
func TestCLIGateDefaults(t *testing.T) {
	dir := t.TempDir()
	pol := policyFile(t)
	at := []string{"--policy", pol, "--evaluated-at", attesttest.EvaluatedAt}
	honestB := bundletest.Example(t)
	digest := subjectDigest(honestB)
	honest, _ := signedFile(t, dir, "honest.json", honestB, attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)
	fail, _ := signedFile(t, dir, "fail.json", bundletest.ExampleWithResult(t, attest.ResultFail), attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)
	incomplete, _ := signedFile(t, dir, "incomplete.json", bundletest.ExampleWithResult(t, attest.ResultIncomplete), attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)
	rogue, _ := signedFile(t, dir, "rogue.json", bundletest.Example(t), attesttest.TestOnlyKeyTwo(), attesttest.IdentityTwo)

	for _, tc := range []struct {
		name, file string
		extra      []string
		exit, want string
	}{
		{"honest", honest, []string{"--subject-digest", digest}, "", honest + ": PASSED: SIGNED_WITH_IDENTITY"},
		{"honest, level and class", honest, []string{"--subject-digest", digest, "--require-level", "SIGNED_WITH_IDENTITY", "--require-evidence-class", "DOCUMENTED_ONLY"}, "", ": PASSED"},
		{"FAIL", fail, []string{"--require-level", "SIGNED_WITH_IDENTITY", "--require-evidence-class", "DOCUMENTED_ONLY", "--subject-name", "ledger-notes-server"}, "exit status 1", fail + ": FAILED: result FAIL"},
		{"INCOMPLETE", incomplete, []string{"--subject-digest", digest}, "exit status 1", ": FAILED: result INCOMPLETE"},
		{"FAIL accepted", fail, []string{"--accept-result", "FAIL", "--subject-name", "ledger-notes-server"}, "", ": PASSED"},
		{"INCOMPLETE accepted is not FAIL", fail, []string{"--accept-result", "INCOMPLETE", "--subject-name", "ledger-notes-server"}, "exit status 1", "result FAIL"},
		{"rogue, subject only", rogue, []string{"--subject-name", "ledger-notes-server"}, "exit status 1", "FAILED: SIGNED_WITH_IDENTITY required, derived SIGNED"},
		{"rogue, artifact digest", rogue, []string{"--subject-digest", digest}, "exit status 1", "SIGNED_WITH_IDENTITY required"},
		{"rogue accepted by name", rogue, []string{"--subject-digest", digest, "--require-level-unsafe", "SIGNED"}, "", ": PASSED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(append([]string{}, at...), tc.extra...), "--format", "text", tc.file)
			out, stderr, exit := run(t, args...)
			if exit != tc.exit || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %q, want %q; stdout lacks %q:\n%s\nstderr: %s", exit, tc.exit, tc.want, out, stderr)
			}
			if testing.Verbose() {
				t.Log(out)
			}
			if first := strings.SplitN(out, "\n", 2)[0]; !strings.Contains(first, "PASSED") && !strings.Contains(first, "FAILED") {
				t.Errorf("the text does not lead with the verdict: %q", first)
			}
			// JSON: the statement result and every check.
			out, _, _ = run(t, append(append(append([]string{}, at...), tc.extra...), "--format", "json", tc.file)...)
			res, err := canonjson.Parse([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			if res.Get("result").Str == "" || len(res.Path("gate", "checks").Items) < 4 || res.Path("gate", "passed").Bool != (tc.exit == "") {
				t.Errorf("json: %s", out)
			}
		})
	}

	// Without a subject: passes, and says on stderr that it is not bound.
	out, stderr, exit := run(t, append(append([]string{}, at...), "--format", "text", honest)...)
	if exit != "" || !strings.Contains(stderr, "not bound to an artifact") || !strings.Contains(out, "not bound to an artifact") {
		t.Errorf("unbound: %q\n%s\n%s", exit, out, stderr)
	}
	// Usage: a gate flag without a trust source; a level below a trusted
	// signer without its unsafe name.
	for _, args := range [][]string{
		{"--require-level", "WITNESSED", honest},
		{"--accept-result", "FAIL", honest},
		{"--subject-digest", digest, honest},
		{"--require-evidence-class", "DOCUMENTED_ONLY", honest},
		append(append([]string{}, at...), "--require-level", "SIGNED", honest),
		append(append([]string{}, at...), "--require-level-unsafe", "WITNESSED", honest),
		append(append([]string{}, at...), "--accept-result", "PASS", honest),
		append(append([]string{}, at...), "--accept-result", "fail", honest),
	} {
		if _, stderr, exit := run(t, args...); exit == "" || exit == "exit status 1" {
			t.Errorf("%q: exit %q, stderr %q; want a usage error", args, exit, stderr)
		}
	}
	// No trust source and no gate flag: verifies, says it is no gate, and
	// never says PASSED.
	out, stderr, exit = run(t, "--format", "text", "--evaluated-at", attesttest.EvaluatedAt, fail)
	if exit != "" || strings.Contains(out, "PASSED") || strings.Contains(out, "passed") || !strings.Contains(stderr, "not a gate") {
		t.Errorf("no trust source: %q\n%s\n%s", exit, out, stderr)
	}
}

// pulledFolder writes a folder as oci pull leaves it, for image digest
// subject, holding bundles.
func pulledFolder(t *testing.T, subject string, bundles ...[]byte) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i, b := range bundles {
		sum := sha256.Sum256(b)
		d := hex.EncodeToString(sum[:])
		if err := os.WriteFile(filepath.Join(dir, d+".attested.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf(`{"schemaVersion":%q,"image":"reg.example/mcp/server:1.0","repository":"reg.example/mcp/server","subjectDigest":%q,"referrer":"sha256:%064x","bundleDigest":"sha256:%s","size":%d,"file":"%s.attested.json","annotations":{},"pulledAt":"2026-12-03T00:00:00.000Z"}`,
			pulled.SchemaVersion, subject, i+1, d, len(b), d))
	}
	if err := os.WriteFile(filepath.Join(dir, pulled.IndexName), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A folder written by oci pull is verified as attest verify --oci is:
// each bundle bound to the image digest the index records, the folder
// passing when at least one passes; a folder changed since the pull is
// refused.
func TestCLIPulledFolder(t *testing.T) {
	dir := t.TempDir()
	pol := policyFile(t)
	at := []string{"--policy", pol, "--evaluated-at", attesttest.EvaluatedAt, "--format", "text"}
	honestB := bundletest.Example(t)
	image := subjectDigest(honestB)
	other := "sha256:" + strings.Repeat("0", 64)
	_, honest := signedFile(t, dir, "h.json", honestB, attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)
	aboutOther := bundletest.ExampleAbout(t, "ledger-notes-server", "3.4.1", strings.Repeat("0", 64))
	_, elsewhere := signedFile(t, dir, "o.json", aboutOther, attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)
	_, rogue := signedFile(t, dir, "r.json", bundletest.Example(t), attesttest.TestOnlyKeyTwo(), attesttest.IdentityTwo)
	_, fail := signedFile(t, dir, "f.json", bundletest.ExampleWithResult(t, attest.ResultFail), attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)

	// A bundle about another digest fails, alone; with the honest one the
	// folder passes (one referrer suffices, as with --oci).
	out, _, exit := run(t, append(at, pulledFolder(t, image, elsewhere))...)
	if exit != "exit status 1" || !strings.Contains(out, attest.CodeSubjectMismatch) || !strings.Contains(out, "gate: FAILED: no MCP-RES referrer") {
		t.Fatalf("about another digest: %q\n%s", exit, out)
	}
	out, _, exit = run(t, append(at, pulledFolder(t, image, elsewhere, rogue, fail, honest))...)
	if exit != "" || !strings.Contains(out, "gate: passed: 1 of 4 referrers bound to "+image) {
		t.Fatalf("one honest among three: %q\n%s", exit, out)
	}
	// The honest bundle pulled from another image fails: bound to the
	// image, not to what the bundle says.
	out, _, exit = run(t, append(at, pulledFolder(t, other, honest))...)
	if exit != "exit status 1" || !strings.Contains(out, attest.CodeSubjectMismatch+": image") {
		t.Fatalf("pulled from another image: %q\n%s", exit, out)
	}
	// Rogue and FAIL alone: each fails without any gate flag.
	for name, b := range map[string][]byte{"rogue": rogue, "fail": fail} {
		if out, _, exit := run(t, append(at, pulledFolder(t, image, b))...); exit != "exit status 1" {
			t.Errorf("%s alone: %q\n%s", name, exit, out)
		}
	}
	// A folder changed since the pull is refused whole (exit 2).
	f := pulledFolder(t, image, honest)
	os.WriteFile(filepath.Join(f, "added.json"), honest, 0o644)
	if out, _, exit := run(t, append(at, f)...); exit != "exit status 2" || !strings.Contains(out, "added since the pull") {
		t.Errorf("added file: %q\n%s", exit, out)
	}
	// Usage: without a trust source, with other inputs, with --recursive.
	f = pulledFolder(t, image, honest)
	for _, args := range [][]string{{f}, append(append([]string{}, at...), f, f), append(append([]string{}, at...), "--recursive", f)} {
		if _, stderr, exit := run(t, args...); exit == "" || exit == "exit status 1" {
			t.Errorf("%q: %q %s; want a usage error", args, exit, stderr)
		}
	}
}
