package main

import (
	"fmt"
	material "github.com/mcpres/mcpres/attest/sigstore"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	cmdcli "github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

// keylessPolicyCommand is what mcpres report runs for --trusted-root: the
// policy one attested bundle is verified against once its keyless
// signatures are certified (keyless.Material.Resolved), as one JSON object
// on stdout: {"policy": DOCUMENT, "notes": [...]}, or {"refused": {"code",
// "detail"}} when a Sigstore bundle does not verify. It is hidden: a
// protocol between the two binaries, whose decisions are package
// keyless's; attest verify --trusted-root is the command for people.
func (a *app) keylessPolicyCommand() *cobra.Command {
	var policyPath, rootPath string
	var sbPaths []string
	cmd := &cobra.Command{
		Use:    "keyless-policy FILE --policy POLICY --trusted-root TRUSTED_ROOT [--sigstore-bundle SB]...",
		Short:  "Print the policy FILE is verified against once its keyless signatures are certified (run by mcpres report)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if policyPath == "" || rootPath == "" {
				return cmdcli.Usagef("--policy and --trusted-root are required")
			}
			out, err := keylessPolicy(args[0], policyPath, rootPath, sbPaths)
			if err != nil {
				return err
			}
			line, err := canonjson.Compact(out)
			if err != nil {
				return cmdcli.Fail(err)
			}
			fmt.Fprintf(a.stdout, "%s\n", line)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&policyPath, "policy", "", "the mcpres.trust-policy/v1 policy with identity signers")
	f.StringVar(&rootPath, "trusted-root", "", "the Sigstore trusted_root.json the policy names by SHA-256")
	f.StringArrayVar(&sbPaths, "sigstore-bundle", nil, "a Sigstore bundle of FILE's envelopes (repeatable; default those kept beside FILE)")
	return cmd
}

// keylessPolicy reads the policy, the trusted root, FILE and its Sigstore
// bundles and certifies them; any read or load failure is an error (exit
// 2), a check that fails is the "refused" object.
func keylessPolicy(path, policyPath, rootPath string, sbPaths []string) (*canonjson.Value, error) {
	_, pdoc, err := canonjson.ReadFile(policyPath)
	if err != nil {
		return nil, cmdcli.Failf("--policy %s: %v", policyPath, err)
	}
	p, problems := trustpolicy.Load(pdoc, nil)
	if problems != nil {
		return nil, cmdcli.Failf("--policy %s does not load: %s", policyPath, problems[0])
	}
	root, err := regularfile.ReadFile(rootPath, trustpolicy.MaxTrustedRootSize)
	if err != nil {
		return nil, cmdcli.Failf("--trusted-root: %v", err)
	}
	m, err := keyless.NewMaterial(p.Document(), root)
	if err != nil {
		return nil, cmdcli.Failf("--trusted-root %s: %v", rootPath, err)
	}
	_, wrapper, err := canonjson.ReadFile(path)
	if err != nil {
		return nil, cmdcli.Failf("%s: %v", path, err)
	}
	if len(sbPaths) == 0 {
		sbPaths = verifycmd.MaterialBeside(path)
	}
	sbs := make([][]byte, len(sbPaths))
	for i, sb := range sbPaths {
		if sbs[i], err = regularfile.ReadFile(sb, material.MaxMaterialBytes); err != nil {
			return nil, cmdcli.Failf("Sigstore bundle %s: %v", sb, err)
		}
	}
	mb := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	d, notes, f := m.Resolved(p.Document(), wrapper, sbs)
	if f != nil {
		return canonjson.NewObject(mb("refused", canonjson.NewObject(mb("code", canonjson.NewString(f.Code)), mb("detail", canonjson.NewString(f.Detail))))), nil
	}
	ns := make([]*canonjson.Value, len(notes))
	for i, n := range notes {
		ns[i] = canonjson.NewString(n)
	}
	if len(sbs) == 0 {
		ns = append(ns, canonjson.NewString("keyless: no Sigstore bundle beside "+path+": no envelope is certified for an identity signer"))
	}
	return canonjson.NewObject(mb("policy", d.Value()), mb("notes", canonjson.NewArray(ns...))), nil
}
