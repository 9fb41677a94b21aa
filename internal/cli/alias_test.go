package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func aliasTree(got *string) (*cobra.Command, *bytes.Buffer, *bytes.Buffer) {
	root := &cobra.Command{Use: "prog", SilenceErrors: true, SilenceUsage: true}
	gen := &cobra.Command{Use: "generate", RunE: func(cmd *cobra.Command, args []string) error { return nil }}
	gen.Flags().StringVar(got, "out-base", "", "base name")
	DeprecatedAlias(gen, "out", "out-base", func(err error) error { return usageErr{err} })
	root.AddCommand(gen)
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	return root, &stdout, &stderr
}

func TestDeprecatedAlias(t *testing.T) {
	for _, c := range []struct {
		args          []string
		value, stderr string
		usage         bool
	}{
		{[]string{"generate", "--out-base", "k"}, "k", "", false}, // control: the current name warns nothing
		{[]string{"generate", "--out", "k"}, "k", "prog: warning: --out is deprecated; use --out-base\n", false},
		{[]string{"generate", "--out=k"}, "k", "prog: warning: --out is deprecated; use --out-base\n", false},
		{[]string{"generate", "--out", "a", "--out-base", "b"}, "", "", true},
	} {
		var got string
		root, stdout, stderr := aliasTree(&got)
		root.SetArgs(c.args)
		err := root.Execute()
		var ue usageErr
		if c.usage != errors.As(err, &ue) || (!c.usage && err != nil) {
			t.Errorf("%v: error %v, want usage error %t", c.args, err, c.usage)
		}
		if !c.usage && got != c.value {
			t.Errorf("%v: value %q, want %q", c.args, got, c.value)
		}
		if stderr.String() != c.stderr || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q stdout %q, want stderr %q and no stdout", c.args, stderr, stdout, c.stderr)
		}
	}
	var got string
	root, _, _ := aliasTree(&got)
	gen, _, _ := root.Find([]string{"generate"})
	if u := gen.UsageString(); strings.Contains(u, "--out ") || !strings.Contains(u, "--out-base") {
		t.Errorf("the alias must be hidden from help:\n%s", u)
	}
}
