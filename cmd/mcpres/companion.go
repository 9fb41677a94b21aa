package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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

// maxCompanionOutput bounds what companionOutput reads.
const maxCompanionOutput = 16 << 20

// companionOutput runs bin with args and returns its standard output (its
// messages go to this command's stderr); a failure is an error naming it.
func (a *app) companionOutput(bin string, args []string) ([]byte, error) {
	var out bytes.Buffer
	c := exec.Command(bin, args...)
	c.Stdout, c.Stderr = &limitedWriter{w: &out, n: maxCompanionOutput}, termsafe.Unwrap(a.stderr)
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v", filepath.Base(bin), strings.Join(args[:2], " "), err)
	}
	return out.Bytes(), nil
}

// limitedWriter writes at most n bytes to w, then fails.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errors.New("output too large")
	}
	l.n -= len(p)
	return l.w.Write(p)
}
