package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpres/mcpres/attest/attesttest"
)

// TestCLILogMonitorServe is TestCLILogMonitorPolicy against a running
// 'log serve' whose checkpoints a 'witness serve' cosigns, read over HTTP:
// attested bundles sent with 'log add --server' are logged as v2 entries
// naming their signers. The policy's signer: no alert (exit 0); a key the
// policy does not know, about the same watched subject: exactly one
// unauthorised-entry (exit 1); a restart: none (exit 0). The signer's
// reference to its v2 entry, carried in a new statement of the same key
// and identity, verifies offline as TRANSPARENCY_RECORDED against a policy
// pinning the log and the witness (the v2 entry through the policy's
// offline verification); a statement of another key cannot carry it.
func TestCLILogMonitorServe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs log serve and a witness; skipped in -short mode")
	}
	e := newLogEnv(t)
	dir := e.initLog("log")
	p := e.p
	bin := buildBinary(t)
	runExpect(t, 0, "witness", "keygen", "--name", "example.org/witness-one", "--out-base", p("wone"))
	wURL, _ := startWitnessServeStop(t, "--key", p("wone.key"), "--state", p("w-state"), "--log", p("log.vkey"))
	pol := p("witnesses.txt")
	runExpect(t, 0, "policy", "tlog", "add-log", pol, "--key", p("log.vkey"))
	runExpect(t, 0, "policy", "tlog", "add-witness", pol, "--name", "w1", "--key", p("wone.vkey"), "--url", wURL)
	runExpect(t, 0, "policy", "tlog", "set-quorum", pol, "w1")
	srv := startServe(t, bin, "--dir", dir, "--key", p("log.key"), "--witness-policy", pol, "--witness-timeout", "5s")
	defer srv.stop(syscall.SIGTERM)

	policy := writeMonitorPolicy(t, e.dir)
	one := writeTestKey(t, e.dir, "one.pem", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, e.dir, "two.pem", attesttest.TestOnlyKeyTwo())
	monitor := func() (string, string, int) {
		t.Helper()
		return runLogCLI(t, "log", "monitor", "--once", "--log", srv.url, "--log-key", p("log.vkey"), "--state", p("state"),
			"--tlog-policy", pol, "--policy", policy, "--watch", "ledger-notes-*")
	}

	b1 := exampleBundleFile(t, e.dir)
	e.run(signArgs(b1, one, attesttest.IdentityOne, p("b1.attested.json"))...)
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), p("b1.attested.json"), "-o", p("b1.ref.json"))
	stdout, stderr, code := monitor()
	if code != 0 || stdout != "" || !strings.Contains(stderr, "read 1 entries (1 watched); 0 alert(s)") {
		t.Fatalf("honest: exit %d stdout %q stderr %q\nserver: %s", code, stdout, stderr, srv.log())
	}

	// The reference in a statement, verified offline with a policy that
	// pins the log and the witness.
	runExpect(t, 0, "policy", "set-transparency", policy, pol)
	evalAt := time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05.000Z")
	e.run(signArgs(b1, one, attesttest.IdentityOne, p("b1.recorded.json"), "--transparency", p("b1.ref.json"), "--claim", "TRANSPARENCY_RECORDED")...)
	stdout, stderr, code = runCLI(t, "attest", "verify", "--policy", policy, "--evaluated-at", evalAt, p("b1.recorded.json"))
	if code != 0 || !strings.Contains(stdout, `"authenticityClassification":"TRANSPARENCY_RECORDED"`) {
		t.Fatalf("the signer's v2 reference: exit %d\n%s\n%s", code, stdout, stderr)
	}
	e.fail(2, "log entry is for other signers", signArgs(b1, two, attesttest.IdentityTwo, p("b1.two.json"), "--transparency", p("b1.ref.json"))...)

	b2 := variantBundleFile(t, e.dir)
	e.run(signArgs(b2, two, attesttest.IdentityTwo, p("b2.attested.json"))...)
	e.run("log", "add", "--server", srv.url, "--log-key", p("log.vkey"), p("b2.attested.json"), "-o", p("b2.ref.json"))
	stdout, stderr, code = monitor()
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "unauthorised-entry" || !strings.Contains(stdout, `"index":1,`) {
		t.Fatalf("unauthorised: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = monitor()
	if code != 0 || stdout != "" {
		t.Fatalf("restart: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}
