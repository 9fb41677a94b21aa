package verifycmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/bundle/bundletest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/trustpolicy"
)

// signedExample is the example bundle signed, as a file; its subject
// digest.
func signedExample(t *testing.T) (path, subject string) {
	t.Helper()
	b := bundletest.Example(t)
	subject = "sha256:" + b.Path("evidence", "subject", "artifactSha256").Str
	s, err := attest.SignBundle(b, attesttest.TestOnlyKeyOne(), attest.BundleSignOptions{SignOptions: attesttest.Options(attesttest.IdentityOne)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := canonjson.Pretty(s.Attested)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "b.attested.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, subject
}

// The image requirement of --oci fails a valid bundle about another
// digest with MCPRES_SUBJECT_MISMATCH, passes the bundle's own, and adds
// nothing to an invalid bundle's failure.
func TestGateSubjectDigest(t *testing.T) {
	path, subject := signedExample(t)
	opts := attest.Options{EvaluatedAt: attesttest.EvaluatedAt}
	other := "sha256:" + strings.Repeat("0", 64)
	pol := trustOne(opts)

	rep := verifyWith(t, path, pol, opts, GateOf(attest.Gate{}).WithImage("reg.example/x:1", other))
	gate := rep.Obj.Get("gate")
	if rep.Code != ExitInvalid || rep.Outcome != OutcomeGateFailed || gate.Get("passed").Bool ||
		gate.Get("requireSubjectDigest").Str != other || !strings.HasPrefix(gate.Get("reasons").Items[0].Str, attest.CodeSubjectMismatch+": ") {
		t.Fatalf("another subject: code %d %s, gate %s", rep.Code, rep.Outcome, compactString(gate))
	}
	if !strings.HasPrefix(rep.Text[0], path+": FAILED: "+attest.CodeSubjectMismatch) {
		t.Errorf("text: %q", rep.Text)
	}

	// Control: the bundle's own subject passes.
	rep = verifyWith(t, path, pol, opts, GateOf(attest.Gate{}).WithImage("reg.example/x:1", subject))
	if rep.Code != ExitValid || !rep.Obj.Get("gate").Get("passed").Bool {
		t.Fatalf("own subject: code %d, gate %s", rep.Code, compactString(rep.Obj.Get("gate")))
	}

	// An invalid bundle fails for being invalid, not for its subject.
	data, _ := os.ReadFile(path)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, bytes.Replace(data, []byte(`"3.4.1"`), []byte(`"3.4.2"`), 1), 0o600)
	rep = verifyWith(t, bad, pol, opts, GateOf(attest.Gate{}).WithImage("reg.example/x:1", other))
	reasons := rep.Obj.Get("gate").Get("reasons").Items
	if rep.Code != ExitInvalid || len(reasons) != 1 || strings.Contains(reasons[0].Str, attest.CodeSubjectMismatch) {
		t.Errorf("invalid bundle: code %d, reasons %s", rep.Code, compactString(rep.Obj.Get("gate")))
	}
}

// trustOne is a policy source trusting attesttest's first key as
// IdentityOne (the corpus test policy).
func trustOne(attest.Options) PolicySource {
	return PolicySource{Path: "policy.json", Loaded: trustpolicy.Open(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}), trustpolicy.OpenOptions{})}
}

// verifyWith verifies the file at path as a session with pol and g does.
func verifyWith(t *testing.T, path string, pol PolicySource, opts attest.Options, g Gate) Report {
	t.Helper()
	v, err := attest.NewVerifier(attest.VerifierOptions{Policy: pol.Loaded, EvaluatedAt: opts.EvaluatedAt, Gate: g.g})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return (&session{v: v, gate: g, policy: pol}).verifyData(path, data)
}

func compactString(v *canonjson.Value) string {
	b, _ := canonjson.Compact(v)
	return string(b)
}

// testConfig is a Config whose errors are plain, with a fake registry
// half.
func testConfig(stdout, stderr *bytes.Buffer) Config {
	return Config{
		Prog: "test", Stdout: stdout, Stderr: stderr,
		Now: NowMillis,
	}
}

func execute(c Config, args ...string) error {
	cmd := Command(c)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs(args)
	cmd.SetOut(c.Stdout)
	cmd.SetErr(c.Stderr)
	return cmd.Execute()
}

// attest verify --oci verifies every referrer with the gate bound to the
// image digest, passes when one passes, and fails when none does or
// there is none.
func TestVerifyOCI(t *testing.T) {
	path, subject := signedExample(t)
	data, _ := os.ReadFile(path)
	other := "sha256:" + strings.Repeat("0", 64)
	policy := filepath.Join(t.TempDir(), "policy.json")
	pdata, _ := canonjson.Pretty(attesttest.Policy(attesttest.PolicyOptions{Trusted: []string{"one"}}))
	os.WriteFile(policy, pdata, 0o600)
	run := func(digest string, refs func(dir string) []OCIReferrer, extra ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		c := testConfig(&stdout, &stderr)
		dir := t.TempDir()
		c.FetchOCI = func(r OCIRequest, resolved func(OCISubject) error, each func(OCIReferrer)) (OCISubject, error) {
			if r.Image != "reg.example/mcp/server:1.0" {
				return OCISubject{}, fmt.Errorf("request %+v", r)
			}
			sub := OCISubject{Image: r.Image, Digest: digest, Via: "referrers API"}
			if err := resolved(sub); err != nil {
				return OCISubject{}, err
			}
			for _, ref := range refs(dir) {
				each(ref)
			}
			return sub, nil
		}
		err := execute(c, append([]string{"--oci", "reg.example/mcp/server:1.0", "--policy", policy, "--evaluated-at", attesttest.EvaluatedAt, "--format", "text"}, extra...)...)
		return stdout.String(), stderr.String(), err
	}
	write := func(_, _ string, b []byte) []byte { return b }
	both := func(dir string) []OCIReferrer {
		return []OCIReferrer{
			{Name: "reg.example/mcp/server@sha256:aa", Data: write(dir, "a.json", data)},
			{Name: "reg.example/mcp/server@sha256:bb", Err: errors.New("the registry served bytes whose digest is sha256:cc")},
		}
	}
	out, _, err := run(subject, both)
	if err != nil || !strings.Contains(out, "gate: passed: 1 of 2 referrers bound to "+subject) ||
		!strings.Contains(out, "reg.example/mcp/server@sha256:bb: INPUT INVALID") {
		t.Fatalf("one good referrer: %v\n%s", err, out)
	}
	// The same bundle, the image being another digest: nothing passes.
	out, _, err = run(other, both)
	if err == nil || err.Error() != "exit status 1" || !strings.Contains(out, attest.CodeSubjectMismatch) || !strings.Contains(out, "gate: FAILED: no MCP-RES referrer") {
		t.Fatalf("bound to another digest: %v\n%s", err, out)
	}
	// A referrer no trusted key signed, and one whose result is FAIL: each
	// fails the gate without any gate flag; with the honest one listed
	// after them the image passes.
	dir := t.TempDir()
	_, rogue := signedFile(t, dir, "r.json", bundletest.Example(t), attesttest.TestOnlyKeyTwo(), attesttest.IdentityTwo)
	_, fail := signedFile(t, dir, "f.json", bundletest.ExampleWithResult(t, attest.ResultFail), attesttest.TestOnlyKeyOne(), attesttest.IdentityOne)
	junk := func(dir string) []OCIReferrer {
		return []OCIReferrer{
			{Name: "reg.example/mcp/server@sha256:r1", Data: write(dir, "r.json", rogue)},
			{Name: "reg.example/mcp/server@sha256:f1", Data: write(dir, "f.json", fail)},
		}
	}
	out, _, err = run(subject, junk)
	if err == nil || err.Error() != "exit status 1" || !strings.Contains(out, "SIGNED_WITH_IDENTITY required, derived SIGNED") || !strings.Contains(out, "result FAIL") {
		t.Fatalf("rogue and FAIL referrers: %v\n%s", err, out)
	}
	out, _, err = run(subject, func(dir string) []OCIReferrer {
		return append(junk(dir), OCIReferrer{Name: "reg.example/mcp/server@sha256:aa", Data: write(dir, "a.json", data)})
	})
	if err != nil || !strings.Contains(out, "gate: passed: 1 of 3 referrers") {
		t.Fatalf("honest after rogue and FAIL: %v\n%s", err, out)
	}
	// No referrer at all.
	out, _, err = run(subject, func(string) []OCIReferrer { return nil })
	if err == nil || err.Error() != "exit status 1" || !strings.Contains(out, "has no MCP-RES referrer") {
		t.Fatalf("no referrer: %v\n%s", err, out)
	}
	// JSON: every referrer is one result, its file member its reference.
	out, stderr, err := run(subject, both, "--format", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"file":"reg.example/mcp/server@sha256:aa"`) || !strings.Contains(stderr, "test: gate: passed") {
		t.Fatalf("json: %v\n%s\n%s", err, out, stderr)
	}

	// Usage: FILE arguments, and the registry flags without --oci.
	var so, se bytes.Buffer
	c := testConfig(&so, &se)
	c.FetchOCI = func(OCIRequest, func(OCISubject) error, func(OCIReferrer)) (OCISubject, error) {
		t.Fatal("fetched")
		return OCISubject{}, nil
	}
	for _, args := range [][]string{
		{"--oci", "reg.example/x:1"}, // no trust source: --oci is a gate
		{"--oci", "reg.example/x:1", path},
		{"--plain-http", path},
		{"--timeout", "1s", path},
		{"--oci", "reg.example/x:1", "--recursive"},
		{"--oci", "reg.example/x:1", "--timeout", "0s"},
	} {
		if err := execute(c, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// ForwardOCI gets the flags given, one --name=value each, which parse
// back to the same values.
func TestForwardOCIFlags(t *testing.T) {
	var got []string
	var so, se bytes.Buffer
	c := testConfig(&so, &se)
	c.ForwardOCI = func(args []string) error { got = args; return nil }
	given := []string{"--oci", "reg.example/x:1", "--key", "a b.pub", "--identity", "id one", "--key=c.pub", "--identity", "id=two",
		"-q", "--require-level", "SIGNED", "--plain-http", "--timeout", "90s"}
	if err := execute(c, given...); err != nil {
		t.Fatal(err)
	}
	want := []string{"--identity=id one", "--identity=id=two", "--key=a b.pub", "--key=c.pub", "--oci=reg.example/x:1", "--plain-http=true",
		"--quiet=true", "--require-level=SIGNED", "--timeout=1m30s"}
	if !slices.Equal(got, want) {
		t.Fatalf("forwarded %q\nwant      %q", got, want)
	}
	// --policy-tuf cannot go to the companion.
	c.FetchPolicyTUF = func(string, string, string, string) (string, []byte, error) { return "", nil, nil }
	got = nil
	if err := execute(c, "--oci", "reg.example/x:1", "--policy-tuf", "root.json", "--policy-repo", "r", "--policy-target", "t"); err == nil || got != nil {
		t.Errorf("--policy-tuf forwarded: %v, %q", err, got)
	}
}
