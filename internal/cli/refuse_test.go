package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// WriteError words each refusal to write the same way in every binary:
// what is in the way (never replaced), the missing folder, an existing
// file without --force, and any other error of the path or not.
func TestWriteError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&atomicfile.NotRegularError{Path: "out", Kind: "a directory"}, "refusing to write out: it is a directory, not a regular file (never replaced, even with --force)"},
		{fmt.Errorf("writing: %w", &atomicfile.NoFolderError{Path: "d/out", Folder: "d"}), "cannot write out: the folder d does not exist"},
		{&fs.PathError{Op: "open", Path: "out", Err: fs.ErrExist}, "refusing to overwrite out (use --force to replace it)"},
		{&fs.PathError{Op: "open", Path: "out", Err: fs.ErrPermission}, "writing out: permission denied"},
		{&fs.PathError{Op: "rename", Path: "out.tmp", Err: fs.ErrPermission}, "writing out: rename out.tmp: permission denied"},
		{errors.New("disk full"), "writing out: disk full"},
	} {
		if got := cli.WriteError("out", c.err); got != c.want {
			t.Errorf("WriteError(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	// The real errors of atomicfile are worded so.
	dir := t.TempDir()
	err := atomicfile.WriteFile(dir, []byte("x"), 0o644, true)
	if got := cli.WriteError(dir, err); !strings.Contains(got, "it is a directory") {
		t.Errorf("a directory in the way: %q (%v)", got, err)
	}
	p := filepath.Join(dir, "f")
	os.WriteFile(p, nil, 0o644)
	err = atomicfile.WriteFile(p, []byte("x"), 0o644, false)
	if got := cli.WriteError(p, err); !strings.Contains(got, "use --force") {
		t.Errorf("an existing file without --force: %q (%v)", got, err)
	}
}

// A command body that fails with Fail is reported without the pointer to
// the help and exits 2; with an *ExitError it exits with the status and
// prints nothing (its message is "exit status N").
func TestFailAndExitError(t *testing.T) {
	run := func(body error) (int, string) {
		root := &cobra.Command{Use: "prog"}
		root.AddCommand(&cobra.Command{Use: "do", RunE: func(*cobra.Command, []string) error { return body }})
		var out, errs bytes.Buffer
		code := cli.Run(root, "prog", []string{"do"}, nil, &out, &errs)
		return code, errs.String()
	}
	if code, msg := run(cli.Fail(errors.New("the gate failed"))); code != cli.ExitInput || msg != "prog: error: the gate failed\n" {
		t.Errorf("Fail: %d %q", code, msg)
	}
	if code, msg := run(cli.Exit(cli.ExitInvalid)); code != cli.ExitInvalid || msg != "" {
		t.Errorf("Exit(1): %d %q", code, msg)
	}
	if got := cli.Exit(3).Error(); got != "exit status 3" {
		t.Errorf("ExitError: %q", got)
	}
	if !errors.Is(cli.Fail(fs.ErrNotExist), fs.ErrNotExist) {
		t.Error("Fail does not wrap")
	}
}

// CompleteEnums offers, for each enumerated flag anywhere in the tree,
// the values its usage names (all when it names none, a "(default X)"
// not counting), never files; a flag with its own completion keeps it.
func TestCompleteEnums(t *testing.T) {
	root := &cobra.Command{Use: "prog"}
	sub := &cobra.Command{Use: "sub", Run: func(*cobra.Command, []string) {}}
	sub.Flags().String("format", "text", `"json" or "text" (default "text")`)
	sub.Flags().String("level", "", "how loud")
	sub.Flags().String("mode", "", "a or b")
	root.AddCommand(sub)
	own := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"mine"}, cobra.ShellCompDirectiveDefault
	}
	if err := sub.RegisterFlagCompletionFunc("mode", own); err != nil {
		t.Fatal(err)
	}
	cli.CompleteEnums(root, map[string][]string{"format": {"json", "text", "sarif"}, "level": {"low", "high"}, "mode": {"a", "b"}})
	for flag, want := range map[string]string{"format": "json text", "level": "low high", "mode": "mine"} {
		f, ok := sub.GetFlagCompletionFunc(flag)
		if !ok {
			t.Errorf("--%s: no completion", flag)
			continue
		}
		got, dir := f(sub, nil, "")
		if strings.Join(got, " ") != want {
			t.Errorf("--%s offers %q, want %q", flag, got, want)
		}
		if flag != "mode" && dir != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("--%s offers files", flag)
		}
	}
}

// Without $MCPRES_PASSWORD, $COSIGN_PASSWORD or a terminal, a passphrase
// is refused with ErrNoTerminal (the process's /dev/tty is tried: the
// test skips when it has one, since it would then ask); with the variable,
// the control takes it.
func TestPassphraseWithoutTerminal(t *testing.T) {
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		isTerm := term.IsTerminal(int(f.Fd()))
		f.Close()
		if isTerm {
			t.Skip("this process has a terminal: it would be asked for a passphrase")
		}
	}
	noEnv := func(string) (string, bool) { return "", false }
	p := &cli.Printer{Prog: "prog", Stderr: &bytes.Buffer{}, LookupEnv: noEnv}
	if _, err := p.Passphrase("key.pem"); !errors.Is(err, cli.ErrNoTerminal) {
		t.Errorf("Passphrase without a terminal: %v", err)
	}
	if _, err := p.NewPassphrase(); !errors.Is(err, cli.ErrNoTerminal) {
		t.Errorf("NewPassphrase without a terminal: %v", err)
	}
	p.LookupEnv = func(n string) (string, bool) { return "pw", n == cli.EnvPassword }
	if got, err := p.Passphrase("key.pem"); err != nil || string(got) != "pw" {
		t.Errorf("control: %q, %v", got, err)
	}
}
