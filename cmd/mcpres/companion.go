package main

import (
	"errors"
	"fmt"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// mcpres runs companion binaries for commands whose dependencies would
// slow every mcpres run (DESIGN §4 startup budget): mcpres-tuf,
// mcpres-sigstore and mcpres-oci.

// findCompanion returns $env, else the program name next to this
// executable, else name on PATH; the error says what it carries out
// (what) and how to install it.
func findCompanion(name, env, what string) (string, error) {
	if p := os.Getenv(env); p != "" {
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if runtime.GOOS == "windows" {
			p += ".exe"
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s in the %s binary, which was not found next to mcpres, on PATH or in $%s (go install github.com/mcpres/mcpres/cmd/%s)",
		what, name, env, name)
}

// runCompanion runs bin with args, this command's standard streams and
// the extra environment; its exit status becomes ours (it has printed
// why it failed).
func (a *app) runCompanion(bin string, args []string, env ...string) error {
	c := exec.Command(bin, args...)
	c.Stdin, c.Stdout, c.Stderr = a.stdin, a.document(), termsafe.Unwrap(a.stderr) // it escapes its own text
	c.Env = append(os.Environ(), env...)
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code > 0 {
			return cli.Exit(code)
		}
		return cli.Failf("%s: %v", bin, err)
	}
	if err != nil {
		return cli.Failf("running %s: %v", bin, err)
	}
	return nil
}
