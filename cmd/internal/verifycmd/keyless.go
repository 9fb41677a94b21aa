package verifycmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mcpres/mcpres/attest"
	sgbundle "github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/pflag"
)

// A Certifier verifies the keyless signatures of attested bundles against
// one trusted root (mcpres-sigstore: keyless.Material, which checks
// certificates and timestamps with sigstore-go): the policy one bundle is
// verified against is base with the keys its Sigstore bundles certify
// standing for their identity signers, or base refusing the bundle with
// the failing check's code; one note per certification.
type Certifier interface {
	PolicyFor(base *trustpolicy.Document, wrapper *canonjson.Value, sigstoreBundles [][]byte, o trustpolicy.OpenOptions) (*attest.LoadedPolicy, []string)
}

const keylessLong = `Keyless signatures (docs/keyless.md): with --trusted-root, each attested
bundle's Sigstore bundles (FILE.sigstore.json beside it, then
FILE.sigstore.2.json, … for further keyless envelopes; or --sigstore-bundle
for a single FILE) are verified offline against that Sigstore trusted root
(which the policy must name by SHA-256): an RFC 3161 timestamp from a
trusted authority inside the certificate's validity, the certificate
chained to a trusted Fulcio CA at that time, the signature under the
certificate key, and an identity signer whose issuer, identity and
extensions match the certificate; the certified key then stands for that
identity signer (SIGNED_WITH_IDENTITY at most by itself). A check that
fails makes the result INVALID with its own diagnostic (MCPRES_KEYLESS_…).
--certificate-identity (or --certificate-identity-regexp) with
--certificate-oidc-issuer is an ad-hoc policy of one identity signer,
instead of a policy file, as --key is for keys. Without a Sigstore bundle
an identity signer trusts no envelope.`

// keylessFlags are attest verify's keyless flags.
type keylessFlags struct {
	trustedRoot                      string
	sigstoreBundles                  []string
	identity, identityRegexp, issuer string
}

func (k *keylessFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&k.trustedRoot, "trusted-root", "", "keyless: the Sigstore trusted_root.json (the one the policy names) to verify each FILE.sigstore.json against")
	fs.StringArrayVar(&k.sigstoreBundles, "sigstore-bundle", nil, "keyless: a Sigstore bundle of the single FILE's envelopes (repeatable; default FILE.sigstore.json)")
	fs.StringVar(&k.identity, "certificate-identity", "", "keyless, instead of a policy: trust only certificates with this identity (with --certificate-oidc-issuer and --trusted-root)")
	fs.StringVar(&k.identityRegexp, "certificate-identity-regexp", "", "keyless, instead of a policy: trust only certificates whose identity matches this anchored RE2 expression")
	fs.StringVar(&k.issuer, "certificate-oidc-issuer", "", "keyless, instead of a policy: the OIDC issuer of the certificates trusted (exact)")
}

// given says whether a keyless flag was given.
func (k *keylessFlags) given() bool {
	return k.trustedRoot != "" || len(k.sigstoreBundles) > 0 || k.adHoc()
}

// adHoc says whether an ad-hoc identity was given.
func (k *keylessFlags) adHoc() bool {
	return k.identity != "" || k.identityRegexp != "" || k.issuer != ""
}

// checkKeylessUsage applies the rules of the keyless flags, before
// anything is forwarded.
func (c Config) checkKeylessUsage(f *verifyFlags, args []string) error {
	k := &f.keyless
	if !k.given() {
		return nil
	}
	switch {
	case f.tuf():
		return c.usagef("keyless verification (--trusted-root) can't be used with --policy-tuf yet: fetch the policy with '%s policy tuf fetch -o POLICY' and give --policy POLICY", c.Prog)
	case k.trustedRoot == "":
		return c.usagef("--sigstore-bundle and --certificate-* go with --trusted-root (the Sigstore trusted_root.json to verify certificates and timestamps against)")
	case len(k.sigstoreBundles) > 0 && (len(args) != 1 || isDir(args[0])):
		return c.usagef("--sigstore-bundle goes with one FILE; with several, each FILE's are beside it (%s)", sgbundle.MaterialName("FILE", 1))
	}
	if !k.adHoc() {
		if f.policyPath == "" {
			return c.usagef("--trusted-root goes with --policy (whose identity signers it verifies) or --certificate-identity and --certificate-oidc-issuer")
		}
		return nil
	}
	switch {
	case f.policyPath != "" || len(f.keys) > 0 || len(f.identities) > 0:
		return c.usagef("--certificate-identity/--certificate-oidc-issuer can't be used with --policy or --key: they are the trust policy")
	case k.issuer == "":
		return c.usagef("--certificate-oidc-issuer is required with --certificate-identity or --certificate-identity-regexp")
	case (k.identity == "") == (k.identityRegexp == ""):
		return c.usagef("give one of --certificate-identity and --certificate-identity-regexp")
	}
	return nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// keylessSession verifies keyless signatures for a session: the
// certifier, the policy it certifies into (a file's, or an ad-hoc one
// bound to each bundle), the Sigstore bundles given, and the options of
// the verifier each bundle gets.
type keylessSession struct {
	cert            Certifier
	policy          *trustpolicy.Document
	adHoc           *trustpolicy.AdHoc
	open            trustpolicy.OpenOptions
	opts            attest.VerifierOptions
	sigstoreBundles []string
}

// keylessSession sets up s's keyless verification when a keyless flag is
// given (an ad-hoc identity is o's per-bundle policy and s's note), and
// warns when the policy has identity signers but no trusted root was
// given.
func (c Config) keylessSession(a *Printer, f *verifyFlags, s *session, open trustpolicy.OpenOptions, at string, o *attest.VerifierOptions) error {
	if !f.keyless.given() {
		if (c.Keyless != nil || c.ForwardKeyless != nil) && hasIdentitySigners(s.policy.Loaded) {
			a.Warnf("policy %s has identity signers (keyless): they trust no envelope unless --trusted-root names the Sigstore trusted root to verify each %s against", f.policyPath, sgbundle.MaterialName("FILE", 1))
		}
		return nil
	}
	ks, err := c.newKeyless(f, s, open, at)
	if err != nil {
		return err
	}
	s.keyless = ks
	if ks != nil && ks.adHoc != nil {
		o.PolicyFor, s.note = ks.adHoc.ForBundle, ks.adHoc.Note()
	}
	return nil
}

// newKeyless reads the trusted root and builds the certifier of the
// session's policy (a file's, or the ad-hoc identity of the flags). A
// policy that did not load gets none: each input reports why.
func (c Config) newKeyless(f *verifyFlags, s *session, open trustpolicy.OpenOptions, at string) (*keylessSession, error) {
	k := &f.keyless
	root, err := regularfile.ReadFile(k.trustedRoot, trustpolicy.MaxTrustedRootSize)
	if err != nil {
		return nil, cli.Failf("--trusted-root: %v", err)
	}
	ks := &keylessSession{open: open, sigstoreBundles: k.sigstoreBundles}
	if k.adHoc() {
		name, err := trustpolicy.NameTrustedRoot(root)
		if err != nil {
			return nil, cli.Failf("--trusted-root %s: %v", k.trustedRoot, err)
		}
		ci := trustpolicy.CertificateIdentity{Issuer: k.issuer, Identity: k.identity, IdentityRegexp: k.identityRegexp}
		adHoc, problems := trustpolicy.NewAdHocIdentity(ci, *name, at, open.Validator)
		if len(problems) > 0 {
			return nil, c.usagef("--certificate-identity/--certificate-oidc-issuer: %s", problems[0])
		}
		ks.adHoc, ks.policy = adHoc, adHoc.DocumentFor(nil)
	} else {
		if s.policy.Loaded == nil {
			return nil, nil
		}
		tp, errs, err := s.policy.Loaded.Policy()
		if err != nil || len(errs) > 0 {
			return nil, nil
		}
		p, ok := tp.(*trustpolicy.Policy)
		if !ok {
			return nil, c.usagef("--trusted-root: %s is an mcp-res.trust-policy/0.2.0 policy, which has no identity signers (docs/keyless.md)", f.policyPath)
		}
		ks.policy = p.Document()
	}
	if ks.cert, err = c.Keyless(ks.policy, root); err != nil {
		return nil, cli.Failf("--trusted-root %s: %v", k.trustedRoot, err)
	}
	return ks, nil
}

// verifier returns the verifier of the attested bundle doc named path:
// its Sigstore bundles (*material when given, a referrer's; else those
// kept beside the file path, or --sigstore-bundle) certified into the
// policy, with one note per certification (or one saying none was
// found). The error is an unreadable Sigstore bundle (exit 2).
func (k *keylessSession) verifier(path string, doc *canonjson.Value, material *[][]byte) (*attest.Verifier, []string, error) {
	sbs, err := k.material(path, material)
	if err != nil {
		return nil, nil, err
	}
	base := k.policy
	if k.adHoc != nil {
		base = k.adHoc.DocumentFor(doc)
	}
	lp, notes := k.cert.PolicyFor(base, doc, sbs, k.open)
	switch {
	case len(sbs) > 0:
	case material != nil:
		notes = append(notes, "keyless: the referrer carries no Sigstore bundle: no envelope is certified for an identity signer")
	default:
		notes = append(notes, "keyless: no Sigstore bundle at "+sgbundle.MaterialName(path, 1)+": no envelope is certified for an identity signer")
	}
	o := k.opts
	o.Policy, o.PolicyFor = lp, nil
	v, err := attest.NewVerifier(o)
	return v, notes, err
}

// hasIdentitySigners says whether lp is a loaded v1 policy with an
// identity signer.
func hasIdentitySigners(lp *attest.LoadedPolicy) bool {
	if lp == nil {
		return false
	}
	tp, _, _ := lp.Policy()
	p, ok := tp.(*trustpolicy.Policy)
	if !ok {
		return false
	}
	for _, s := range p.Document().Signers {
		if s.IsIdentity() {
			return true
		}
	}
	return false
}

// material is the Sigstore bundles of the bundle named path: *given when
// not nil, else the files of --sigstore-bundle or those kept beside path.
func (k *keylessSession) material(path string, given *[][]byte) ([][]byte, error) {
	if given != nil {
		return *given, nil
	}
	paths := k.sigstoreBundles
	if len(paths) == 0 {
		paths = MaterialBeside(path)
	}
	sbs := make([][]byte, len(paths))
	for i, p := range paths {
		data, err := regularfile.ReadFile(p, sgbundle.MaxMaterialBytes)
		if err != nil {
			return nil, &validator.InputError{Reason: fmt.Sprintf("Sigstore bundle %s: %v", p, err)}
		}
		sbs[i] = data
	}
	return sbs, nil
}

// MaterialBeside lists the Sigstore bundles kept beside the attested
// bundle at path (sigstore.MaterialName 1, 2, … up to the first that does
// not exist; one more than sigstore.MaxMaterial is listed so that too many
// are refused, not ignored).
func MaterialBeside(path string) []string {
	var paths []string
	for n := 1; n <= sgbundle.MaxMaterial+1; n++ {
		p := sgbundle.MaterialName(path, n)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			break
		}
		paths = append(paths, p)
	}
	return paths
}
