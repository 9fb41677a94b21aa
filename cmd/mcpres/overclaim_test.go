package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A claim is the producer's and a gate the consumer's: a bundle claiming
// TRANSPARENCY_RECORDED fails a consumer whose policy has no transparency
// section whatever the gate asks (REFERENCE §6.2), and the failure says
// what each side can do; attest sign --policy warns the producer when the
// claim is more than that policy derives.
func TestCLIOverclaimExplained(t *testing.T) {
	out, stderr, code := runCLI(t, "demo", "--keep")
	m := regexp.MustCompile(`(?m)^# working in (.*) \(kept\)$`).FindStringSubmatch(out)
	if code != exitValid || m == nil {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, stderr)
	}
	dir := m[1]
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := func(name string) string { return filepath.Join(dir, name) }

	verify := func(policy string) (string, int) {
		stdout, _, code := runCLI(t, "attest", "verify", "--format", "text", "--policy", p(policy),
			"--subject-name", demoSubjectName, "--require-level", "WITNESSED", p("example.recorded.json"))
		return stdout, code
	}
	stdout, code := verify("policy.json")
	if code != exitInvalid || !strings.Contains(stdout, "MCP_RES_AUTHENTICITY_CLASSIFICATION_OVERCLAIM") ||
		!strings.Contains(stdout, "what each side can do: the producer can sign again claiming SIGNED_WITH_IDENTITY or less") ||
		!strings.Contains(stdout, "the verifier's trust policy can establish TRANSPARENCY_RECORDED with a transparency section") {
		t.Errorf("a policy with no transparency section: exit %d\n%s", code, stdout)
	}
	// Control: the policy that names the log derives the claim, which
	// meets the same gate.
	if stdout, code = verify("policy-v1.json"); code != exitValid || strings.Contains(stdout, "OVERCLAIM") {
		t.Errorf("the policy that names the log: exit %d\n%s", code, stdout)
	}

	sign := func(policy string) (string, int) {
		_, stderr, code := runCLI(t, "attest", "sign", p("example.json"), "--key", p("producer.key"), "--identity", demoProducer,
			"--policy-id", demoPolicyID, "--claim", "TRANSPARENCY_RECORDED", "--transparency", p("example.witnessed-ref.json"),
			"--policy", p(policy), "--force", "-o", p("resigned.json"))
		return stderr, code
	}
	if stderr, code := sign("policy.json"); code != exitValid || !strings.Contains(stderr, "warning: the claim TRANSPARENCY_RECORDED is more than "+p("policy.json")+" derives") {
		t.Errorf("attest sign --policy without transparency: exit %d\n%s", code, stderr)
	}
	if stderr, code := sign("policy-v1.json"); code != exitValid || strings.Contains(stderr, "is more than") {
		t.Errorf("attest sign --policy that derives the claim: exit %d\n%s", code, stderr)
	}
}
