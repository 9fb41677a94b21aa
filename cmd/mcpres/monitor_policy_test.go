package main

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/attest/attesttest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
)

// writeMonitorPolicy writes an mcpres.trust-policy/v1 whose one signer is
// TEST 1's key as IdentityOne, for the subjects ledger-notes-*.
func writeMonitorPolicy(t *testing.T, dir string) string {
	t.Helper()
	pem, err := keyfile.MarshalPublicKeyPEM(attesttest.TestOnlyKeyOne().Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	d := trustpolicy.New(attesttest.TrustPolicyID, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
	d.AddSigner(trustpolicy.Signer{Name: "release", Identity: attesttest.IdentityOne, PublicKey: string(pem),
		Roles: []string{trustpolicy.RoleSigner}, Subjects: []string{"ledger-notes-*"}})
	doc, err := canonjson.FromGo(d)
	if err != nil {
		t.Fatal(err)
	}
	return writePretty(t, dir, "trust-policy.json", doc)
}

// TestCLILogMonitorPolicy: the log records who signed (an attested
// bundle is logged as an mcpres.transparency-entry/v2 naming its
// signers), and `log monitor --policy` judges them, on a log whose
// checkpoints a witness cosigns and the monitor holds to its quorum. A
// bundle signed by the policy's signer raises no alert (exit 0); a bundle
// about the same watched subject signed by a key the policy does not
// know raises exactly one unauthorised-entry alert naming that key (exit
// 1); the next run raises none (exit 0). A conformance bundle logged
// unsigned names no signer: a warning, or with --require-signers an
// unattributed-entry alert. The reference of the signer's v2 entry is
// accepted by that signer only.
func TestCLILogMonitorPolicy(t *testing.T) {
	e := newLogEnv(t)
	dir := e.initLog("log")
	policy := writeMonitorPolicy(t, e.dir)
	tlogPolicy := writeTestFile(t, e.dir, "witnesses.txt", []byte("log "+e.vkey("log")+"\nwitness W1 "+e.vkey("w1")+"\nquorum W1\n"), 0o644)
	one := writeTestKey(t, e.dir, "one.pem", attesttest.TestOnlyKeyOne())
	two := writeTestKey(t, e.dir, "two.pem", attesttest.TestOnlyKeyTwo())
	initDone := false
	logAndCosign := func(doc, ref string) {
		t.Helper()
		e.run("log", "add", "--dir", dir, "--key", e.p("log.key"), doc, "-o", ref)
		args := []string{"witness", "cosign", "--log", dir, "--log-key", e.p("log.vkey"), "--key", e.p("w1.key"),
			"--state", e.p("w1.state.json"), "-o", e.p("w1.cosig"), "--force"}
		if !initDone {
			args, initDone = append(args, "--init"), true
		}
		e.run(args...)
		e.run("log", "add-cosignature", "--dir", dir, "--witness-key", e.p("w1.vkey"), e.p("w1.cosig"))
	}
	monitor := func() (string, string, int) {
		t.Helper()
		return runLogCLI(t, e.monitorArgs(dir, "--policy", policy, "--tlog-policy", tlogPolicy, "--watch", "ledger-notes-*")...)
	}

	// Honest: the policy's signer signs, the attested bundle is logged.
	b1 := exampleBundleFile(t, e.dir)
	e.run(signArgs(b1, one, attesttest.IdentityOne, e.p("b1.attested.json"))...)
	logAndCosign(e.p("b1.attested.json"), e.p("b1.ref.json"))
	stdout, stderr, code := monitor()
	if code != 0 || stdout != "" || !strings.Contains(stderr, "verified tree size 1, next entry 1; read 1 entries (1 watched); 0 alert(s)") {
		t.Fatalf("honest: exit %d stdout %q stderr %q", code, stdout, stderr)
	}

	// The signer's v2 reference goes into a statement of that signer only.
	e.run(signArgs(b1, one, attesttest.IdentityOne, e.p("b1.recorded.json"), "--transparency", e.p("b1.ref.json"))...)
	e.run("attest", "verify", e.p("b1.recorded.json"))
	e.fail(2, "log entry is for other signers", signArgs(b1, two, attesttest.IdentityTwo, e.p("b1.two.json"), "--transparency", e.p("b1.ref.json"))...)

	// Unauthorised: another key signs evidence about the watched subject.
	b2 := variantBundleFile(t, e.dir)
	e.run(signArgs(b2, two, attesttest.IdentityTwo, e.p("b2.attested.json"))...)
	logAndCosign(e.p("b2.attested.json"), e.p("b2.ref.json"))
	stdout, stderr, code = monitor()
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "unauthorised-entry" {
		t.Fatalf("unauthorised: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	var a struct {
		Message string
		Entry   struct {
			Index   uint64
			Subject string
			Signers []struct{ KeyFingerprint, SignerIdentity string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		t.Fatal(err)
	}
	fp := ed25519strict.Fingerprint(attesttest.TestOnlyKeyTwo().Public().(ed25519.PublicKey))
	if a.Entry.Index != 1 || a.Entry.Subject != "ledger-notes-server" || len(a.Entry.Signers) != 1 || a.Entry.Signers[0].KeyFingerprint != fp ||
		!strings.Contains(a.Message, "key "+fp+" is not a signer of the policy") {
		t.Errorf("alert %s", stdout)
	}
	if !strings.Contains(stderr, "read 1 entries (1 watched); 1 alert(s)") {
		t.Errorf("stderr %q", stderr)
	}

	// A restart resumes from the state: no second alert.
	stdout, stderr, code = monitor()
	if code != 0 || stdout != "" || !strings.Contains(stderr, "read 0 entries (0 watched); 0 alert(s)") {
		t.Fatalf("restart: exit %d stdout %q stderr %q", code, stdout, stderr)
	}

	// A bundle logged before anyone signed it names no signer: a warning,
	// or with --require-signers an alert (its own state: the same entry).
	logAndCosign(osVariantBundleFile(t, e.dir, "netbsd"), e.p("b3.ref.json"))
	strict := append(e.monitorArgs(dir, "--policy", policy, "--tlog-policy", tlogPolicy, "--watch", "ledger-notes-*", "--require-signers"), "--state", e.p("strict-state"))
	stdout, stderr, code = runLogCLI(t, strict...)
	if code != 1 || strings.Join(alertKinds(t, stdout), ",") != "unauthorised-entry,unattributed-entry" || !strings.Contains(stdout, `"index":2,`) {
		t.Fatalf("--require-signers: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = monitor()
	if code != 0 || stdout != "" || !strings.Contains(stderr, "warning: log monitor: "+testLogOrigin+": 1 watched entr(ies) name no signer") {
		t.Fatalf("unsigned bundle: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	e.fail(2, "--require-signers needs --policy", e.monitorArgs(dir, "--require-signers")...)

	// An unreadable policy is exit 2, not a silent monitor.
	e.fail(2, "--policy", e.monitorArgs(dir, "--policy", e.p("missing.json"), "--watch", "ledger-notes-*")...)
}
