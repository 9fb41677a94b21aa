package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// A companion's commands nest under the invoking command line; without
// one (the companion run by itself) nothing changes (control).
func TestNestUnder(t *testing.T) {
	root := &cobra.Command{Use: "mcpres-tuf"}
	sign := &cobra.Command{Use: "sign", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(sign)
	top, args := NestUnder(root, []string{"mcpres", "policy", "tuf"}, []string{"sign", "x"})
	if got := sign.CommandPath(); got != "mcpres policy tuf sign" || top.Name() != "mcpres" {
		t.Errorf("command path %q under %q", got, top.Name())
	}
	if !slices.Equal(args, []string{"policy", "tuf", "sign", "x"}) {
		t.Errorf("args %q", args)
	}
	alone := &cobra.Command{Use: "mcpres-oci"}
	if top, args := NestUnder(alone, nil, []string{"pull"}); top != alone || alone.Name() != "mcpres-oci" || !slices.Equal(args, []string{"pull"}) {
		t.Errorf("run alone: %q %q", top.Name(), args)
	}
}
