package offline_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/mcpres/mcpres/offline"
)

const netnsEnv = "MCPRES_OFFLINE_TEST_IN_NETNS"

// Verification needs no network: the happy path and a tamper run again in
// an empty network namespace (unshare -n), where no connection can be
// opened. Skipped, with the reason, where unshare is not available or not
// permitted.
func TestVerifyWithoutNetwork(t *testing.T) {
	if os.Getenv(netnsEnv) == "1" {
		f := newFixture(t)
		if _, err := offline.Verify(f.proof(f.wa, f.wb).Marshal(), f.want, f.trust(2, f.wa, f.wb)); err != nil {
			t.Fatalf("in an empty network namespace: %v", err)
		}
		if _, err := offline.Verify(f.proof(f.wa).Marshal(), f.want, f.trust(2, f.wa, f.wb)); err == nil {
			t.Fatal("in an empty network namespace: quorum not met verified")
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not found: cannot run in an empty network namespace")
	}
	if err := exec.Command(unshare, "-n", "true").Run(); err != nil {
		t.Skipf("unshare -n is not permitted here (%v): cannot run in an empty network namespace", err)
	}
	cmd := exec.Command(unshare, "-n", os.Args[0], "-test.run=^TestVerifyWithoutNetwork$", "-test.v")
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("ran in an empty network namespace:\n%s", out)
}
