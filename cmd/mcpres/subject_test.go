package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
)

// subjectEnv is two artifacts, a bundle about each signed by one key,
// and a policy trusting that key.
type subjectEnv struct {
	dir              string
	artA, artB       string // artifact files
	digA, digB       string // their sha256:HEX
	bundleA, bundleB string // the attested bundles
	plainA, policy   string
}

func newSubjectEnv(t *testing.T) *subjectEnv {
	t.Helper()
	d := t.TempDir()
	e := &subjectEnv{dir: d}
	artifact := func(name, content string) (string, string) {
		p := writeTestFile(t, d, name, []byte(content), 0o644)
		sum := sha256.Sum256([]byte(content))
		return p, hex.EncodeToString(sum[:])
	}
	var hexA, hexB string
	e.artA, hexA = artifact("server-a.tar", "the artifact of server a\n")
	e.artB, hexB = artifact("server-b.tar", "the artifact of server b\n")
	e.digA, e.digB = "sha256:"+hexA, "sha256:"+hexB
	key := writeTestKey(t, d, "one.key", attesttest.TestOnlyKeyOne())
	e.plainA = writePretty(t, d, "a.json", bundletest.ExampleAbout(t, "io.github.acme/server-a", "1.0.0", hexA))
	writePretty(t, d, "b.json", bundletest.ExampleAbout(t, "io.github.acme/server-b", "2.0.0", hexB))
	e.bundleA, e.bundleB = filepath.Join(d, "a.attested.json"), filepath.Join(d, "b.attested.json")
	runExpect(t, exitValid, signArgs(e.plainA, key, attesttest.IdentityOne, e.bundleA)...)
	runExpect(t, exitValid, signArgs(filepath.Join(d, "b.json"), key, attesttest.IdentityOne, e.bundleB)...)
	e.policy = writePretty(t, d, "policy.json", attesttest.Policy(attesttest.PolicyOptions{}))
	return e
}

func (e *subjectEnv) verify(t *testing.T, bundle string, extra ...string) (string, string, int) {
	t.Helper()
	return runCLI(t, append([]string{"attest", "verify", "--policy", e.policy, "--evaluated-at", attesttest.EvaluatedAt, bundle}, extra...)...)
}

// Two bundles for two subjects signed by one key: the gate with each
// artifact, digest, name and version passes only for its own bundle, and
// a failure names the check, what was expected and what was found.
func TestCLISubjectChecksTwoSubjects(t *testing.T) {
	e := newSubjectEnv(t)
	type side struct{ bundle, artifact, digest, name, version string }
	a := side{e.bundleA, e.artA, e.digA, "io.github.acme/server-a", "1.0.0"}
	b := side{e.bundleB, e.artB, e.digB, "io.github.acme/server-b", "2.0.0"}
	for _, p := range []struct{ own, other side }{{a, b}, {b, a}} {
		for _, c := range []struct {
			check string
			args  []string
			found string
		}{
			{"artifact", []string{"--artifact", p.own.artifact}, p.other.digest},
			{"digest", []string{"--subject-digest", p.own.digest}, p.other.digest},
			{"name", []string{"--subject-name", p.own.name}, `"` + p.other.name + `"`},
			{"version", []string{"--subject-version", p.own.version}, `"` + p.other.version + `"`},
		} {
			if out, errs, code := e.verify(t, p.own.bundle, append(c.args, "--format", "text")...); code != exitValid ||
				!strings.Contains(out, "checks: "+c.check+" passed") || !strings.Contains(out, "gate: passed") {
				t.Errorf("%s of its own bundle %s: exit %d\n%s%s", c.check, p.own.bundle, code, out, errs)
			}
			out, errs, code := e.verify(t, p.other.bundle, append(c.args, "--format", "text")...)
			want := "gate: FAILED: " + attest.CodeSubjectMismatch + ": " + c.check + ": expected "
			if code != exitInvalid || !strings.Contains(out, want) || !strings.Contains(out, "found "+c.found) {
				t.Errorf("%s of the other bundle %s: exit %d, want 1 with %q and found %s\n%s%s", c.check, p.other.bundle, code, want, c.found, out, errs)
			}
		}
	}
	// Every check together passes for a's bundle; one wrong value fails it.
	all := []string{"--artifact", e.artA, "--subject-digest", e.digA, "--subject-name", a.name, "--subject-version", a.version, "--require-level", "SIGNED_WITH_IDENTITY"}
	runExpect(t, exitValid, append([]string{"attest", "verify", "--policy", e.policy, "--evaluated-at", attesttest.EvaluatedAt, e.bundleA}, all...)...)
	if out, _, code := e.verify(t, e.bundleA, append(all, "--subject-version", "1.0.1")...); code != exitInvalid || strings.Count(out, attest.CodeSubjectMismatch) != 1 {
		t.Errorf("a wrong version with everything else right: exit %d\n%s", code, out)
	}
	// Any of several artifacts or digests may match: a batch over both
	// bundles passes with both artifacts.
	runExpect(t, exitValid, "attest", "verify", "--policy", e.policy, "--evaluated-at", attesttest.EvaluatedAt,
		"--artifact", e.artA, "--artifact", e.artB, e.bundleA, e.bundleB)
	runExpect(t, exitValid, "attest", "verify", "--policy", e.policy, "--evaluated-at", attesttest.EvaluatedAt,
		"--subject-digest", e.digB, "--subject-digest", e.digA, e.bundleA, e.bundleB)
	runExpect(t, exitInvalid, "attest", "verify", "--policy", e.policy, "--evaluated-at", attesttest.EvaluatedAt,
		"--artifact", e.artA, e.bundleA, e.bundleB)
}

// The JSON result says which subject checks were asked and how each came
// out, with the subject found.
func TestCLISubjectChecksJSON(t *testing.T) {
	e := newSubjectEnv(t)
	out, _, code := e.verify(t, e.bundleB, "--artifact", e.artA, "--subject-name", "io.github.acme/server-b")
	if code != exitInvalid {
		t.Fatalf("exit %d\n%s", code, out)
	}
	res, err := canonjson.Parse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	gate := res.Get("gate")
	found := gate.Path("subject", "found")
	checks := gate.Path("subject", "checks").Items
	if gate.Get("passed").Bool || found.Get("name").Str != "io.github.acme/server-b" || found.Get("digest").Str != e.digB || len(checks) != 2 {
		t.Fatalf("gate %s", out)
	}
	art, name := checks[0], checks[1]
	if art.Get("check").Str != "artifact" || art.Get("passed").Bool || art.Get("expected").Items[0].Str != e.digA ||
		art.Get("sources").Items[0].Str != e.artA || art.Get("found").Str != e.digB {
		t.Errorf("artifact check %s", out)
	}
	if name.Get("check").Str != "name" || !name.Get("passed").Bool || name.Get("sources") != nil {
		t.Errorf("name check %s", out)
	}
	reasons := gate.Get("reasons").Items
	if len(reasons) != 1 || !strings.HasPrefix(reasons[0].Str, attest.CodeSubjectMismatch+": artifact: expected "+e.artA+" ("+e.digA+"), found "+e.digB) {
		t.Errorf("reasons %s", out)
	}
	if gate.Get("requireSubjectDigest") != nil {
		t.Errorf("requireSubjectDigest is the --oci image's, not set here: %s", out)
	}

	// An invalid bundle: the checks fail for want of a subject, and the
	// gate's one reason is that it is invalid.
	data, _ := os.ReadFile(e.bundleA)
	bad := writeTestFile(t, e.dir, "bad.json", []byte(strings.Replace(string(data), `"1.0.0"`, `"1.0.1"`, 1)), 0o644)
	out, _, code = e.verify(t, bad, "--artifact", e.artA)
	res, _ = canonjson.Parse([]byte(out))
	gate = res.Get("gate")
	if code != exitInvalid || gate.Path("subject", "found").Kind != canonjson.Null || gate.Path("subject", "checks").Items[0].Get("found").Kind != canonjson.Null ||
		len(gate.Get("reasons").Items) != 1 || strings.Contains(gate.Get("reasons").Items[0].Str, attest.CodeSubjectMismatch) {
		t.Errorf("invalid bundle: exit %d\n%s", code, out)
	}
}

// Digests in every wrong form are usage errors with a clear message,
// never "no check"; so are artifacts that are not readable regular files,
// and a check asked of an input that has no subject.
func TestCLISubjectChecksBadInput(t *testing.T) {
	e := newSubjectEnv(t)
	hexA := strings.TrimPrefix(e.digA, "sha256:")
	for _, c := range []struct{ digest, why string }{
		{"sha256:" + strings.ToUpper(hexA), "uppercase hexadecimal digits"},
		{"sha512:" + hexA + hexA, "algorithm sha512 is not taken"},
		{"sha256:" + hexA[:40], "40 hexadecimal digits"},
		{hexA, "no algorithm prefix"},
		{"SHA256:" + hexA, "written SHA256"},
	} {
		out, errs, code := e.verify(t, e.bundleA, "--subject-digest", c.digest)
		if code != exitInput || !strings.Contains(errs, "--subject-digest: subject digest") || !strings.Contains(errs, c.why) || out != "" || !strings.Contains(errs, usagePointer) {
			t.Errorf("--subject-digest %s: exit %d, want 2 saying %q\n%s%s", c.digest, code, c.why, out, errs)
		}
	}
	if _, errs, code := e.verify(t, e.bundleA, "--subject-digest", ""); code != exitInput || !strings.Contains(errs, "an empty value is refused") {
		t.Errorf("empty digest: exit %d\n%s", code, errs)
	}
	for _, c := range []struct{ path, why string }{
		{filepath.Join(e.dir, "missing.tar"), "no such file"},
		{e.dir, "a directory"},
	} {
		out, errs, code := e.verify(t, e.bundleA, "--artifact", c.path)
		if code != exitInput || !strings.Contains(errs, "--artifact: ") || !strings.Contains(errs, c.why) || out != "" {
			t.Errorf("--artifact %s: exit %d, want 2 saying %q\n%s%s", c.path, code, c.why, out, errs)
		}
	}
	// A digest of the bundle file itself, instead of the artifact's, fails
	// and is named for what it is; so is the bundle's own bundleDigest.
	data, _ := os.ReadFile(e.bundleA)
	sum := sha256.Sum256(data)
	out, _, code := e.verify(t, e.bundleA, "--subject-digest", "sha256:"+hex.EncodeToString(sum[:]), "--format", "text")
	if code != exitInvalid || !strings.Contains(out, "is the SHA-256 of the file being verified, not of the artifact") {
		t.Errorf("digest of the bundle file: exit %d\n%s", code, out)
	}
	out, _, code = e.verify(t, e.bundleA, "--artifact", e.bundleA, "--format", "text")
	if code != exitInvalid || !strings.Contains(out, "is the SHA-256 of the file being verified") {
		t.Errorf("the bundle file as its own artifact: exit %d\n%s", code, out)
	}
	doc, _ := canonjson.Parse(data)
	bd := doc.Path("bundle", "integrity", "bundleDigest").Str
	out, _, code = e.verify(t, e.bundleA, "--subject-digest", "sha256:"+strings.TrimPrefix(bd, "sha256:"), "--format", "text")
	if code != exitInvalid || !strings.Contains(out, "integrity.bundleDigest, not the digest of the artifact") {
		t.Errorf("the bundle digest: exit %d\n%s", code, out)
	}
	// Inputs without a subject: exit 2, named; the same inputs without a
	// subject check are not usage errors (control).
	ref := writeTestFile(t, e.dir, "ref.json", []byte(`{"logId":"x","entryUuid":"0","inclusionProofBase64":"AA==","inclusionProofSha256":"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"}`), 0o644)
	for _, c := range []struct{ path, what string }{{e.policy, `a "mcp-res.trust-policy/0.2.0" document, which has no subject`}, {ref, "a transparency reference, which has no subject"}} {
		out, _, code := e.verify(t, c.path, "--subject-name", "x", "--format", "text")
		if code != exitInput || !strings.Contains(out, "a subject check was asked, and this is "+c.what) {
			t.Errorf("%s: exit %d, want 2 naming %q\n%s", c.path, code, c.what, out)
		}
		if _, _, code := e.verify(t, c.path); code == exitInput {
			t.Errorf("%s without a subject check: exit 2", c.path)
		}
	}
	// Nothing is inferred from file names: a bundle named after the
	// artifact's digest is still checked against its contents.
	named := filepath.Join(e.dir, strings.TrimPrefix(e.digA, "sha256:")+".json")
	bData, _ := os.ReadFile(e.bundleB)
	writeTestFile(t, e.dir, filepath.Base(named), bData, 0o644)
	if _, _, code := e.verify(t, named, "--subject-digest", e.digA); code != exitInvalid {
		t.Errorf("a bundle about b named after a's digest: exit %d, want 1", code)
	}
}

// mcpres report takes the subject checks into its verdict: the page lists
// them, a failed one fails the verdict (exit 1), and an input without a
// subject writes no page (exit 2).
func TestCLIReportSubjectChecks(t *testing.T) {
	e := newSubjectEnv(t)
	for _, c := range []struct {
		name, in string
		args     []string
		code     int
		page     []string
	}{
		{"attested, own artifact", e.bundleA, []string{"--artifact", e.artA}, exitValid, []string{"PASSED", "Gate checks", "Subject checks", e.digA, "passed"}},
		{"attested, another artifact", e.bundleB, []string{"--artifact", e.artA}, exitInvalid, []string{">FAILED<", "Gate checks", attest.CodeSubjectMismatch}},
		{"plain bundle, own name", e.plainA, []string{"--subject-name", "io.github.acme/server-a"}, exitValid, []string{"Subject checks", "passed"}},
		{"plain bundle, another version", e.plainA, []string{"--subject-version", "9"}, exitInvalid, []string{"VALID, SUBJECT CHECK FAILED"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.html")
			args := append([]string{"report", c.in, "-o", out, "--policy", e.policy, "--evaluated-at", attesttest.EvaluatedAt, "--quiet"}, c.args...)
			if c.in == e.plainA {
				args = append([]string{"report", c.in, "-o", out, "--evaluated-at", attesttest.EvaluatedAt, "--quiet"}, c.args...)
			}
			stdout, stderr, code := runCLI(t, args...)
			page, _ := os.ReadFile(out)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			for _, w := range c.page {
				if !strings.Contains(string(page), w) {
					t.Errorf("the page lacks %q", w)
				}
			}
		})
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, _, code := runCLI(t, "report", e.policy, "-o", out, "--subject-name", "x"); code != exitInput {
		t.Errorf("a policy with a subject check: exit %d, want 2", code)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a page was written for an input without a subject")
	}
}
