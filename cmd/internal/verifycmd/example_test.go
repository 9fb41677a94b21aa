package verifycmd_test

import (
	"fmt"
	"os"

	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
)

// A binary builds attest verify from what differs: its name, its writers,
// its error types and its policy loaders. A file that cannot be read is
// reported on stdout (MCP_RES_INPUT_INVALID) and exits 2; without a trust
// source a warning says that no signer was trusted.
func ExampleCommand() {
	cmd := verifycmd.Command(verifycmd.Config{
		Prog: "example", Stdout: os.Stdout, Stderr: os.Stdout,
		Now: verifycmd.NowMillis,
	})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs([]string{"--format", "text", "missing.attested.json"})
	fmt.Println(cmd.Execute())
	// Output:
	// example: warning: no trust policy (--policy or --key): no signer was trusted, so at most SIGNED is derived; this verifies signatures and is not a gate
	// missing.attested.json: INPUT INVALID MCP_RES_INPUT_INVALID: cannot read missing.attested.json: no such file
	// exit status 2
}
