package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
)

// attestFixture is an attested bundle signed by test key one and a v1
// policy trusting that key with its identity (SIGNED_WITH_IDENTITY, no
// witnesses rule).
func attestFixture(t *testing.T) (dir, attested, policy string) {
	t.Helper()
	dir = t.TempDir()
	bundle := exampleBundleFile(t, dir)
	key := writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	pub := writeTestFile(t, dir, "one.pub", policyPubPEM(t, attesttest.TestOnlyKeyOne()), 0o644)
	attested = filepath.Join(dir, "attested.json")
	runExpect(t, exitValid, signArgs(bundle, key, attesttest.IdentityOne, attested)...)
	policy = filepath.Join(dir, "policy.json")
	runExpect(t, exitValid, "policy", "init", policy, "--id", attesttest.TrustPolicyID,
		"--valid-from", "2026-01-01T00:00:00.000Z", "--valid-until", "2099-01-01T00:00:00.000Z")
	runExpect(t, exitValid, "policy", "add-signer", policy, "--name", "one", "--identity", attesttest.IdentityOne, "--key", pub)
	return dir, attested, policy
}

const shapeEvalAt = "2026-09-01T00:00:00.000Z"

// attest verify --with-file gives a single input's JSON result the "file"
// member that several inputs always have, as validate --with-file does:
// one shape whatever the number of inputs. Without it a single result has
// no "file" (the control: the upstream result object).
func TestCLIAttestVerifyWithFile(t *testing.T) {
	_, attested, policy := attestFixture(t)
	first := func(stdout string) *canonjson.Value {
		t.Helper()
		v, err := canonjson.Parse([]byte(strings.SplitN(stdout, "\n", 2)[0]))
		if err != nil {
			t.Fatalf("%v: %q", err, stdout)
		}
		return v
	}
	for _, tc := range []struct {
		args     []string
		wantFile bool
	}{
		{[]string{"attest", "verify", attested, "--policy", policy, "--evaluated-at", shapeEvalAt}, false},
		{[]string{"attest", "verify", attested, "--policy", policy, "--evaluated-at", shapeEvalAt, "--with-file"}, true},
		{[]string{"attest", "verify", attested, attested, "--policy", policy, "--evaluated-at", shapeEvalAt}, true},
		{[]string{"validate", attested, "--with-file"}, true},
		{[]string{"validate", attested}, false},
	} {
		stdout, stderr, code := runCLI(t, tc.args...)
		if code != exitValid {
			t.Fatalf("mcpres %s: exit %d, %s", strings.Join(tc.args, " "), code, stderr)
		}
		v := first(stdout)
		if got := v.Members[0].Key == "file" && v.Get("file").Str == attested; got != tc.wantFile {
			t.Errorf("mcpres %s: file member first %t, want %t: %s", strings.Join(tc.args, " "), got, tc.wantFile, stdout)
		}
	}
}

// The text of attest verify: "1 distinct signing key" (2 keys: "keys");
// a failed gate says FAILED with a short reason, and its cause comes on a
// line of its own, last: the note that says why the level was not
// reached. The JSON reasons keep every note (unchanged).
func TestCLIAttestVerifyTextGate(t *testing.T) {
	_, attested, policy := attestFixture(t)
	stdout, _, code := runCLI(t, "attest", "verify", attested, "--policy", policy, "--evaluated-at", shapeEvalAt, "--format", "text", "--require-level", "WITNESSED")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != exitInvalid || len(lines) < 3 {
		t.Fatalf("exit %d, stdout %s", code, stdout)
	}
	if !strings.Contains(stdout, "; 1 distinct signing key, counted by SPKI fingerprint\n") {
		t.Errorf("want the singular:\n%s", stdout)
	}
	if got, want := lines[len(lines)-2], "  gate: FAILED: WITNESSED required, derived SIGNED_WITH_IDENTITY"; got != want {
		t.Errorf("verdict line %q, want %q", got, want)
	}
	if got, want := lines[len(lines)-1], "  gate: cause: witnesses: the policy has no witnesses rule, so WITNESSED is not derivable"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
	// Control: the gate that passes has no cause line.
	stdout, _, code = runCLI(t, "attest", "verify", attested, "--policy", policy, "--evaluated-at", shapeEvalAt, "--format", "text", "--require-level", "SIGNED_WITH_IDENTITY")
	if code != exitValid || !strings.HasSuffix(stdout, "  gate: passed\n") || strings.Contains(stdout, "cause") {
		t.Errorf("passing gate: exit %d\n%s", code, stdout)
	}
	// JSON: the reason still carries every note.
	stdout, _, _ = runCLI(t, "attest", "verify", attested, "--policy", policy, "--evaluated-at", shapeEvalAt, "--require-level", "WITNESSED")
	v, err := canonjson.Parse([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	reason := v.Path("gate", "reasons").Items[0].Str
	if !strings.HasPrefix(reason, "WITNESSED required, derived SIGNED_WITH_IDENTITY: trusted signers: 1 of 1 envelopes") || !strings.Contains(reason, "so WITNESSED is not derivable") {
		t.Errorf("JSON reason %q", reason)
	}
}

// attest sign --claim WITNESSED of a plain bundle writes one envelope, a
// claim no policy can derive (WITNESSED needs two distinct keys): it warns
// and says what makes it hold; the co-signature that adds the second key
// gets no warning, nor does the default claim (the controls).
// TRANSPARENCY_RECORDED without any reference warns too.
func TestCLIAttestSignClaimCannotHold(t *testing.T) {
	dir := t.TempDir()
	bundle := exampleBundleFile(t, dir)
	one := writeTestKey(t, dir, "one.key", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, dir, "two.key", attesttest.TestOnlyKeyTwo())
	first := filepath.Join(dir, "first.json")
	_, stderr, code := runCLI(t, signArgs(bundle, one, attesttest.IdentityOne, first, "--claim", "WITNESSED")...)
	if code != exitValid || !strings.Contains(stderr, "mcpres: warning: the claim WITNESSED cannot hold yet: WITNESSED needs at least two distinct keys, and the attested bundle has 1 envelope; attest verify fails it (MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM) until a co-signer adds what is missing") {
		t.Errorf("first signature claiming WITNESSED: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, signArgs(first, two, attesttest.IdentityTwo, filepath.Join(dir, "second.json"))...)
	if code != exitValid || strings.Contains(stderr, "warning") {
		t.Errorf("the co-signature that makes WITNESSED hold: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, signArgs(bundle, one, attesttest.IdentityOne, filepath.Join(dir, "signed.json"))...)
	if code != exitValid || strings.Contains(stderr, "warning") {
		t.Errorf("the default claim: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, signArgs(bundle, one, attesttest.IdentityOne, filepath.Join(dir, "tr.json"), "--claim", "TRANSPARENCY_RECORDED")...)
	if code != exitValid || !strings.Contains(stderr, "TRANSPARENCY_RECORDED needs a transparency reference, and no envelope") {
		t.Errorf("TRANSPARENCY_RECORDED without a reference: exit %d, stderr %q", code, stderr)
	}
}

// policy init and policy check warn (stderr) about a policy that has
// expired or is not in force yet at --evaluated-at (default now), naming
// the window and the time; inside the window, the ends included, they do
// not (the controls).
func TestCLIPolicyWindowWarnings(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.json")
	const from, until = "2026-01-01T00:00:00.000Z", "2026-06-01T00:00:00.000Z"
	_, stderr, code := runCLI(t, "policy", "init", p, "--id", "example/w", "--valid-from", from, "--valid-until", until, "--evaluated-at", "2026-07-01T00:00:00.000Z")
	if want := "mcpres: warning: " + p + ": the policy is expired: its window " + from + " … " + until + " ended before the evaluation time 2026-07-01T00:00:00.000Z; attest verify refuses every bundle with it then (MCP_RES_TRUST_POLICY_EXPIRED)\n"; code != exitValid || !strings.HasSuffix(stderr, want) {
		t.Errorf("policy init, expired: exit %d, stderr %q\nwant %q", code, stderr, want)
	}
	for _, tc := range []struct{ at, want string }{
		{"2025-12-31T23:59:59.999Z", "the policy is not in force yet: its window " + from + " … " + until + " starts after the evaluation time 2025-12-31T23:59:59.999Z"},
		{"2026-06-01T00:00:00.001Z", "the policy is expired"},
		{from, ""},
		{until, ""},
		{"2026-03-01T00:00:00.000Z", ""},
	} {
		for _, format := range []string{"text", "json"} {
			stdout, stderr, code := runCLI(t, "policy", "check", p, "--evaluated-at", tc.at, "--format", format)
			if code != exitValid || strings.Contains(stdout, "warning") {
				t.Errorf("policy check at %s (%s): exit %d, stdout %q", tc.at, format, code, stdout)
			}
			if tc.want == "" && stderr != "" || tc.want != "" && !strings.Contains(stderr, "mcpres: warning: "+p+": "+tc.want) {
				t.Errorf("policy check at %s (%s): stderr %q, want %q", tc.at, format, stderr, tc.want)
			}
		}
	}
	if _, stderr, code := runCLI(t, "policy", "check", p, "--evaluated-at", ""); code != exitInput || !strings.Contains(stderr, "an empty value is refused") {
		t.Errorf("empty --evaluated-at: exit %d, %q", code, stderr)
	}
}
