package witness_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The witness package opens no connection and links neither Tessera nor
// package tlog (DESIGN §2): the log is read through a LogReader the caller
// chooses. Checked on its real dependency list. Package net itself is
// linked through crypto/x509 (via attest), which opens nothing.
func TestNoNetworkDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH: cannot list dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("implausible dependency list: %q", deps)
	}
	for _, d := range deps {
		if d == "net/http" || d == "net/rpc" || d == "net/smtp" || d == "crypto/tls" || strings.Contains(d, "/mcpres/tlog") ||
			strings.Contains(d, "transparency-dev/tessera") || strings.HasPrefix(d, "k8s.io/klog") {
			t.Errorf("witness depends on %s", d)
		}
	}
}
