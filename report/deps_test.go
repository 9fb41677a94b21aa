package report_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPureDependencies: rendering is pure (DESIGN §2), checked on the real
// dependency list: report links nothing that fetches, listens or starts
// programs, and none of the log, witness or TUF packages.
func TestPureDependencies(t *testing.T) {
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
		switch {
		case d == "net/http", d == "crypto/tls", d == "os/exec", strings.HasPrefix(d, "net/http/"),
			strings.Contains(d, "/mcpres/tlog"), strings.Contains(d, "/mcpres/witness"), strings.Contains(d, "/tufdist"):
			t.Errorf("report depends on %s", d)
		}
	}
}
