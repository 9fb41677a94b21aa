package offline_test

import (
	"os/exec"
	"strings"
	"testing"
)

// DESIGN §2: offline never imports anything that opens a network
// connection, checked on its real dependency list.
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
		if d == "net" || d == "net/http" || strings.HasPrefix(d, "net/") || strings.Contains(d, "/mcpres/tlog") {
			t.Errorf("offline depends on %s", d)
		}
	}
}
