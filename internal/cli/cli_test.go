package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

type usageErr struct{ error }

func tree(ran *string) *cobra.Command {
	root := &cobra.Command{Use: "prog", SilenceErrors: true, SilenceUsage: true}
	parent := &cobra.Command{Use: "attest"}
	for _, name := range []string{"verify", "sign"} {
		parent.AddCommand(&cobra.Command{Use: name, RunE: func(cmd *cobra.Command, args []string) error {
			*ran = cmd.Name()
			return nil
		}})
	}
	root.AddCommand(parent)
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	RejectUnknownSubcommands(root, func(err error) error { return usageErr{err} })
	return root
}

func TestRejectUnknownSubcommands(t *testing.T) {
	for _, c := range []struct {
		args    []string
		ran     string
		errPart string
	}{
		{[]string{"attest", "verify", "x.json"}, "verify", ""}, // control: a known command runs
		{[]string{"attest", "verfy", "x.json"}, "", "unknown command \"verfy\" for \"prog attest\"\n\nDid you mean this?\n\tverify"},
		{[]string{"attest"}, "", `"prog attest" needs a command: one of sign, verify`},
		{[]string{"attest", "zzzzzz"}, "", `unknown command "zzzzzz"`},
		{[]string{"atest", "verify"}, "", `unknown command "atest" for "prog"`}, // cobra's own, at the root
		{[]string{"help", "attest", "verfy"}, "", "unknown command \"verfy\" for \"prog attest\"\n\nDid you mean this?\n\tverify"},
		{[]string{"help", "atest"}, "", `unknown command "atest" for "prog"`},
		{[]string{"help", "attest"}, "", ""},           // control: a known topic prints its help
		{[]string{"help", "attest", "verify"}, "", ""}, // and a known leaf
		{[]string{"help"}, "", ""},
	} {
		var ran string
		root := tree(&ran)
		root.SetArgs(c.args)
		err := root.Execute()
		if ran != c.ran {
			t.Errorf("%q ran %q, want %q", c.args, ran, c.ran)
		}
		if c.errPart == "" {
			if err != nil {
				t.Errorf("%q: %v", c.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.errPart) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.errPart)
		}
		if len(c.args) > 0 && (c.args[0] == "attest" || c.args[0] == "help") && !errors.As(err, new(usageErr)) {
			t.Errorf("%q: %T is not the binary's usage error", c.args, err)
		}
	}
}
