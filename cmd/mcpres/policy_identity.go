package main

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

// identitySignerFlags are the flags of policy add-signer that make an
// identity (keyless) signer instead of a key.
type identitySignerFlags struct {
	issuer, identityRegexp, trustedRoot     string
	ghRepo, ghRef, ghTrigger, ghWorkflowSHA string
}

func (f *identitySignerFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.issuer, "issuer", "", "identity signer: the OIDC issuer, exactly (e.g. https://token.actions.githubusercontent.com); --identity is then the certificate identity")
	fl.StringVar(&f.identityRegexp, "identity-regexp", "", "identity signer: the certificate identity as an RE2 expression anchored with ^ and $ (instead of --identity)")
	fl.StringVar(&f.ghRepo, "github-workflow-repository", "", "identity signer: the certificate's source repository, OWNER/REPO")
	fl.StringVar(&f.ghRef, "github-workflow-ref", "", "identity signer: the certificate's source repository ref (e.g. refs/tags/v1.4.0)")
	fl.StringVar(&f.ghTrigger, "github-workflow-trigger", "", "identity signer: the event that triggered the workflow (e.g. push)")
	fl.StringVar(&f.ghWorkflowSHA, "github-workflow-sha", "", "identity signer: the commit the workflow ran at (source repository digest)")
	fl.StringVar(&f.trustedRoot, "trusted-root", "", "identity signer: the Sigstore trusted_root.json they are verified against; the policy names it by SHA-256")
}

// set reports whether an identity signer was asked for.
func (f *identitySignerFlags) set() bool {
	return f.issuer != "" || f.identityRegexp != "" || f.ghRepo != "" || f.ghRef != "" || f.ghTrigger != "" || f.ghWorkflowSHA != ""
}

// signer builds the identity signer from the shared flags s and f; the
// policy's load checks (Load: anchored expression, issuer) run when it is
// written.
func (f *identitySignerFlags) signer(s *policySignerFlags) (trustpolicy.Signer, error) {
	switch {
	case s.name == "":
		return trustpolicy.Signer{}, cli.Usagef("--name is required")
	case f.issuer == "":
		return trustpolicy.Signer{}, cli.Usagef("--issuer is required for an identity signer")
	case s.key != "":
		return trustpolicy.Signer{}, cli.Usagef("--key and --issuer exclude each other: an identity signer has no fixed key")
	case (s.identity == "") == (f.identityRegexp == ""):
		return trustpolicy.Signer{}, cli.Usagef("give one of --identity (exact) and --identity-regexp")
	}
	if f.identityRegexp != "" {
		if err := trustpolicy.CheckIdentityRegexp(f.identityRegexp); err != nil {
			return trustpolicy.Signer{}, cli.Usagef("--identity-regexp: %v", err)
		}
	}
	roles := s.roles
	if len(roles) == 0 {
		roles = []string{trustpolicy.RoleSigner}
	}
	ci := &trustpolicy.CertificateIdentity{Issuer: f.issuer, Identity: s.identity, IdentityRegexp: f.identityRegexp}
	ext := trustpolicy.Extensions{SourceRepositoryRef: f.ghRef, BuildTrigger: f.ghTrigger, SourceRepositoryDigest: f.ghWorkflowSHA}
	if f.ghRepo != "" {
		uri, err := trustpolicy.GitHubRepositoryURI(f.ghRepo)
		if err != nil {
			return trustpolicy.Signer{}, cli.Usagef("--github-workflow-repository: %v", err)
		}
		ext.SourceRepositoryURI = uri
	}
	if ext != (trustpolicy.Extensions{}) {
		ci.Extensions = &ext
	}
	return trustpolicy.Signer{Name: s.name, Roles: roles, ValidFrom: s.from, ValidUntil: s.until, Subjects: s.subjects, CertificateIdentity: ci}, nil
}

// root reads --trusted-root and names it for the policy (nil without it).
func (f *identitySignerFlags) root() (*trustpolicy.TrustedRoot, error) {
	if f.trustedRoot == "" {
		return nil, nil
	}
	data, err := canonjson.ReadFileBytes(f.trustedRoot)
	if err != nil {
		return nil, cli.Failf("--trusted-root %s: %v", f.trustedRoot, err)
	}
	r, err := trustpolicy.NameTrustedRoot(data)
	if err != nil {
		return nil, cli.Failf("--trusted-root %s: %v", f.trustedRoot, err)
	}
	return r, nil
}

// addIdentitySigner is policy add-signer for an identity signer.
func (a *app) addIdentitySigner(path string, s *policySignerFlags, f *identitySignerFlags) error {
	signer, err := f.signer(s)
	if err != nil {
		return err
	}
	root, err := f.root()
	if err != nil {
		return err
	}
	return a.editPolicy(path, func(d *trustpolicy.Document) (string, error) {
		d.AddSigner(signer)
		msg := fmt.Sprintf("added identity signer %q (roles %s, certificate %s%s)", signer.Name, strings.Join(signer.Roles, ","), signer.CertificateIdentity, scopeSuffix(signer.Subjects))
		if root != nil {
			d.TrustedRoot = root
			msg += ", trusted root " + root.SHA256
		}
		return msg, nil
	})
}

// identityLines are policy check's lines about identity signers and the
// trusted root.
func identityLines(d *trustpolicy.Document) []string {
	var out []string
	for _, s := range d.Signers {
		if ci := s.CertificateIdentity; ci != nil {
			line := fmt.Sprintf("signer %q is an identity (keyless): certificate %s", s.Name, ci)
			if ci.Extensions != nil {
				line += ", extensions " + ci.Extensions.String()
			}
			out = append(out, line+"; verified by attest verify --trusted-root TRUSTED_ROOT (each FILE.sigstore.json: certificate, timestamp, identity; without --trusted-root it trusts no envelope)")
		}
	}
	if r := d.TrustedRoot; r != nil {
		out = append(out, "trusted root: trusted_root.json with SHA-256 "+r.SHA256)
	}
	return out
}
