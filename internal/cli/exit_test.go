package cli_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
)

// TestRun: every binary's exit and error convention. A command that
// succeeds exits 0; an *ExitError exits with its status and prints
// nothing more; a usage error, a flag error and an unknown subcommand exit
// 2 with the cause and the pointer to the help; an error of the command's
// body exits 2 with the cause alone.
func TestRun(t *testing.T) {
	var body error
	tree := func() *cobra.Command {
		root := &cobra.Command{Use: "prog"}
		run := &cobra.Command{Use: "run", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return body }}
		run.Flags().String("name", "", "a name")
		root.AddCommand(run)
		return root
	}
	tests := []struct {
		name   string
		body   error
		args   []string
		code   int
		stderr string // "" means nothing printed
		help   bool
	}{
		{"success", nil, []string{"run"}, 0, "", false},
		{"exit status", cli.Exit(1), []string{"run"}, 1, "", false},
		{"usage error", cli.Usagef("--name is required"), []string{"run"}, 2, "prog: error: --name is required\n", true},
		{"command error", cli.Failf("cannot read x"), []string{"run"}, 2, "prog: error: cannot read x\n", false},
		{"plain error of the body", errors.New("it broke"), []string{"run"}, 2, "prog: error: it broke\n", false},
		{"unknown flag", nil, []string{"run", "--nope"}, 2, "prog: error: unknown flag: --nope\n", true},
		{"an argument too many", nil, []string{"run", "x"}, 2, "prog: error: unknown command \"x\" for \"prog run\"\n", true},
		{"unknown subcommand", nil, []string{"rnu"}, 2, "prog: error: unknown command \"rnu\" for \"prog\"", true},
		{"empty flag value", nil, []string{"run", "--name="}, 2, "prog: error: invalid argument \"\" for \"--name\" flag: an empty value is refused", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body = tt.body
			var out, errb bytes.Buffer
			code := cli.Run(tree(), "prog", tt.args, strings.NewReader(""), &out, &errb)
			got := errb.String()
			if code != tt.code || !strings.HasPrefix(got, tt.stderr) || (tt.stderr == "") != (got == "") {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, got, tt.code, tt.stderr)
			}
			if help := strings.Contains(got, "--help' for usage."); help != tt.help {
				t.Errorf("the pointer to the help: %v, want %v (stderr %q)", help, tt.help, got)
			}
		})
	}
}

// TestRunEscapesErrors: an error that quotes untrusted text (a server's
// answer, a file name) reaches stderr with its controls escaped, whatever
// printed it: Run's own message, cobra's, or a command writing to the
// stream Run was given wrapped. Newlines of a message are kept.
func TestRunEscapesErrors(t *testing.T) {
	hostile := "body\x1b[2J\rnothing was verified\u202e\u0085"
	for _, tc := range []struct {
		name string
		args []string
		body error
	}{
		{"error of the body", []string{"run"}, errors.New("the server said: " + hostile + "\nsecond line")},
		{"unknown subcommand", []string{hostile}, nil},
		{"flag value", []string{"run", "--count", hostile}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &cobra.Command{Use: "prog"}
			run := &cobra.Command{Use: "run", Args: cobra.NoArgs, RunE: func(c *cobra.Command, _ []string) error {
				c.Println("out " + hostile)
				c.PrintErrln("err " + hostile)
				return tc.body
			}}
			run.Flags().Int("count", 0, "a number")
			root.AddCommand(run)
			var out, errb bytes.Buffer
			cli.Run(root, "prog", tc.args, strings.NewReader(""), &out, &errb)
			for name, s := range map[string]string{"stdout": out.String(), "stderr": errb.String()} {
				if strings.ContainsAny(s, "\x1b\r\u202e\u0085") {
					t.Errorf("%s holds raw controls: %q", name, s)
				}
			}
			// (cobra quotes a subcommand or flag value with %q itself.)
			if !strings.Contains(errb.String(), `err body\u001b[2J\u000dnothing was verified\u202e\u0085`) && tc.body != nil {
				t.Errorf("stderr does not show the escapes: %q", errb.String())
			}
			if tc.body != nil && !strings.Contains(errb.String(), "\nsecond line\n") {
				t.Errorf("the message's own line break is gone: %q", errb.String())
			}
		})
	}
}
