package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
)

// gateTree is a small binary: `prog gate verify FILE...` with a string
// gate flag, a repeatable string-array flag, a string-slice flag, a
// persistent string flag on the parent and an int flag. ran records the
// flags the body saw.
func gateTree(ran *string) (*cobra.Command, *bytes.Buffer) {
	root := &cobra.Command{Use: "prog", SilenceErrors: true, SilenceUsage: true}
	parent := &cobra.Command{Use: "gate"}
	var level, policy string
	var keys, roles []string
	var n int
	verify := &cobra.Command{Use: "verify FILE...", RunE: func(cmd *cobra.Command, args []string) error {
		*ran = fmt.Sprintf("level=%q policy=%q keys=%q roles=%q n=%d args=%q", level, policy, keys, roles, n, args)
		return nil
	}}
	verify.Flags().StringVar(&level, "require-level", "", "gate")
	verify.Flags().StringArrayVar(&keys, "key", nil, "trusted key (repeatable)")
	verify.Flags().StringSliceVar(&roles, "role", nil, "roles")
	verify.Flags().IntVar(&n, "n", 0, "a number")
	parent.PersistentFlags().StringVar(&policy, "policy", "", "trust policy")
	parent.AddCommand(verify)
	root.AddCommand(parent)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	RejectUnknownSubcommands(root, func(err error) error { return usageErr{err} })
	return root, &out
}

// An explicitly given empty or blank value of any string flag is a flag
// error before the body runs; a value, or leaving the flag out, is not.
func TestExecuteRefusesEmptyValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		ran  string // "" when the body must not run
	}{
		{[]string{"gate", "verify", "--require-level", "", "x.json"}, ""},
		{[]string{"gate", "verify", "--require-level=", "x.json"}, ""},
		{[]string{"gate", "verify", "--require-level", " \t", "x.json"}, ""},
		{[]string{"gate", "verify", "--require-level", "WITNESSED", "--require-level", "", "x.json"}, ""},
		{[]string{"gate", "verify", "--require-level", "", "--require-level", "WITNESSED", "x.json"}, ""},
		{[]string{"gate", "verify", "--key", "a.pub", "--key", "", "x.json"}, ""},
		{[]string{"gate", "verify", "--role", "", "x.json"}, ""},
		{[]string{"gate", "verify", "--policy", "", "x.json"}, ""}, // persistent, given after the command
		{[]string{"gate", "--policy=", "verify", "x.json"}, ""},    // persistent, given before it
		// Controls: values, and flags left out, run the body.
		{[]string{"gate", "verify", "--require-level", "WITNESSED", "x.json"}, `level="WITNESSED" policy="" keys=[] roles=[] n=0 args=["x.json"]`},
		{[]string{"gate", "verify", "--key", "a.pub", "--key", "b.pub", "--policy=p.json", "x.json"}, `level="" policy="p.json" keys=["a.pub" "b.pub"] roles=[] n=0 args=["x.json"]`},
		{[]string{"gate", "verify", "--role", "signer,witness", "x.json"}, `level="" policy="" keys=[] roles=["signer" "witness"] n=0 args=["x.json"]`},
		{[]string{"gate", "verify", "x.json"}, `level="" policy="" keys=[] roles=[] n=0 args=["x.json"]`},
	} {
		var ran string
		root, _ := gateTree(&ran)
		root.SetArgs(c.args)
		_, _, err := Execute(root, func(err error) error { return usageErr{err} })
		if ran != c.ran {
			t.Errorf("%q: ran %s, want %s", c.args, ran, c.ran)
		}
		if c.ran != "" {
			if err != nil {
				t.Errorf("%q: %v", c.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "an empty value is refused") {
			t.Errorf("%q: error %v, want the empty-value refusal", c.args, err)
		}
	}
	// Another flag error is not reported as an empty value.
	var ran string
	root, _ := gateTree(&ran)
	root.SetArgs([]string{"gate", "verify", "--n", "", "x.json"})
	if _, _, err := Execute(root, func(err error) error { return usageErr{err} }); err == nil || strings.Contains(err.Error(), "empty value is refused") || ran != "" {
		t.Errorf("--n \"\": %v (ran %s), want strconv's own error", err, ran)
	}
}

// Help together with anything else is a usage error and prints nothing;
// help alone prints help.
func TestExecuteHelpAlone(t *testing.T) {
	for _, c := range []struct {
		args  []string
		given string // "" when help must be printed
	}{
		{[]string{"gate", "verify", "--require-level", "WITNESSED", "-h", "rogue.json"}, "(--require-level, 1 argument)"},
		{[]string{"gate", "verify", "-h", "rogue.json"}, "(1 argument)"},
		{[]string{"gate", "verify", "--help", "--key", "a.pub"}, "(--key)"},
		{[]string{"gate", "--policy", "p.json", "verify", "--help"}, "(--policy)"},
		{[]string{"gate", "-h", "verify", "x.json"}, "(2 arguments)"}, // cobra stops at gate
		{[]string{"gate", "verify", "--help"}, ""},
		{[]string{"gate", "verify", "-h"}, ""},
		{[]string{"gate", "--help"}, ""},
		{[]string{"--help"}, ""},
		{[]string{"help", "gate", "verify"}, ""},
	} {
		var ran string
		root, out := gateTree(&ran)
		root.SetArgs(c.args)
		_, _, err := Execute(root, func(err error) error { return usageErr{err} })
		if ran != "" {
			t.Errorf("%q ran the command: %s", c.args, ran)
		}
		if c.given == "" {
			if err != nil || !strings.Contains(out.String(), "Usage:") {
				t.Errorf("%q: %v, printed %q; want help", c.args, err, out)
			}
			continue
		}
		if !errors.As(err, new(usageErr)) || !strings.Contains(err.Error(), "-h/--help was given with other flags or arguments "+c.given+": nothing was run") {
			t.Errorf("%q: error %v, want a usage error naming %s", c.args, err, c.given)
		}
		if out.Len() != 0 {
			t.Errorf("%q printed %q", c.args, out)
		}
	}
}

// The help command refuses a topic followed by an argument that is not a
// command.
func TestHelpCommandRefusesArguments(t *testing.T) {
	var ran string
	root, out := gateTree(&ran)
	root.SetArgs([]string{"help", "gate", "verify", "rogue.json"})
	_, _, err := Execute(root, func(err error) error { return usageErr{err} })
	if !errors.As(err, new(usageErr)) || !strings.Contains(err.Error(), `help takes a command only, not "rogue.json"`) || out.Len() != 0 || ran != "" {
		t.Errorf("help gate verify rogue.json: %v, printed %q, ran %q", err, out, ran)
	}
}

func TestPrintError(t *testing.T) {
	var ran string
	root, _ := gateTree(&ran)
	verify, _, _ := root.Find([]string{"gate", "verify"})
	var w bytes.Buffer
	PrintError(&w, "prog", verify, errors.New("--require-level: unknown level"), true)
	if want := "prog: error: --require-level: unknown level\nRun 'prog gate verify --help' for usage.\n"; w.String() != want {
		t.Errorf("usage error printed %q, want %q", w.String(), want)
	}
	w.Reset()
	PrintError(&w, "prog", verify, fmt.Errorf("private key: %w", &fs.PathError{Op: "open", Path: "k.key", Err: syscall.ENOENT}), false)
	if want := "prog: error: private key: cannot read k.key: no such file\n"; w.String() != want {
		t.Errorf("command error printed %q, want %q", w.String(), want)
	}
}

func TestDescribeError(t *testing.T) {
	pe := &fs.PathError{Op: "lstat", Path: "b.json", Err: syscall.ENOENT}
	for _, c := range []struct {
		err  error
		want string
	}{
		{pe, "cannot read b.json: no such file"},
		{fmt.Errorf("trust policy: %w", pe), "trust policy: cannot read b.json: no such file"},
		// Controls: a write error and an error without a path error keep
		// their words.
		{fmt.Errorf("x: %w", &fs.PathError{Op: "write", Path: "o", Err: syscall.ENOSPC}), "x: write o: " + syscall.ENOSPC.Error()},
		{errors.New("lstat: a word in a message"), "lstat: a word in a message"},
	} {
		if got := DescribeError(c.err); got != c.want {
			t.Errorf("DescribeError(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

// ran tells an error of the command line (before the body) from one the
// body raised.
func TestExecuteRan(t *testing.T) {
	for _, c := range []struct {
		args []string
		ran  bool
	}{
		{[]string{"gate", "verify", "--nope", "x.json"}, false},
		{[]string{"gate", "verify", "--require-level", ""}, false},
		{[]string{"gate", "verify", "-h", "x.json"}, false},
		{[]string{"gate", "fail", "x.json"}, true},
	} {
		var ran string
		root, _ := gateTree(&ran)
		gate, _, _ := root.Find([]string{"gate"})
		gate.AddCommand(&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error { return errors.New("the body failed") }})
		root.SetArgs(c.args)
		_, bodyRan, err := Execute(root, func(err error) error { return usageErr{err} })
		if err == nil || bodyRan != c.ran {
			t.Errorf("%q: ran %t, error %v; want ran %t and an error", c.args, bodyRan, err, c.ran)
		}
	}
}

// --version alone prints the version; with anything else it is a usage
// error that prints nothing (cobra printed the version and exited 0).
func TestExecuteVersionAlone(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // printed; "" for a usage error
	}{
		{[]string{"--version"}, "prog 1.2.3\n"},
		{[]string{"-v"}, "prog 1.2.3\n"},
		{[]string{"--version", "gate"}, ""},
		{[]string{"--version", "rogue.json"}, ""},
		{[]string{"--version", "gate", "verify", "x.json"}, ""},
		{[]string{"gate", "verify", "--version", "x.json"}, ""},
	} {
		var ran string
		root, out := gateTree(&ran)
		root.Version = "1.2.3"
		root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
		root.SetArgs(c.args)
		_, _, err := Execute(root, func(err error) error { return usageErr{err} })
		if ran != "" {
			t.Errorf("%q ran the command: %s", c.args, ran)
		}
		if c.want != "" {
			if err != nil || out.String() != c.want {
				t.Errorf("%q: %v, printed %q; want %q", c.args, err, out, c.want)
			}
			continue
		}
		if err == nil || out.Len() != 0 {
			t.Errorf("%q: error %v, printed %q; want a usage error and nothing printed", c.args, err, out)
		}
	}
}
