package main

import (
	"crypto"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

func (a *app) attestCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "attest",
		Short: "Sign attested conformance bundles and verify them offline",
	}
	cmd.AddCommand(a.attestSignCommand(), a.attestVerifyCommand(), a.attestExportCommand())
	return cmd
}

// nowMillis is the current time as an MCP-RES date-time with milliseconds
// (verifycmd.NowMillis, the only place the CLIs read the clock).
func nowMillis() string { return verifycmd.NowMillis() }

const signLong = `Sign a conformance bundle: build the in-toto statement that binds the bundle
(subject, bundle digest, scenario fingerprint, execution digest, profile,
validator, signer identity and key fingerprint, algorithm, signing time,
trust-policy id, optional transparency reference), sign its canonical bytes
with Ed25519 over the DSSE pre-authentication encoding, and write an
mcp-res.attested-conformance-bundle/0.2.0 with one envelope.

The bundle is validated first: invalid evidence is never signed.

Given an already attested bundle, one more envelope is appended: this is how
a co-signer (witness) adds its signature, and how WITNESSED is reached. The
existing envelopes are verified first, and a key that already signed is
refused. The claim is kept unless --claim is given.

--claim defaults to SIGNED, the highest level a signer can honestly claim
without knowing the verifier's trust policy. A claim no policy can derive
from what is written (WITNESSED with one envelope: it needs two distinct
keys; TRANSPARENCY_RECORDED with no transparency reference) is written with
a warning: verification fails it until a co-signer, who keeps the claim,
adds what is missing. A TRANSPARENCY_RECORDED claim whose reference's
checkpoint carries no witness cosignature, or cosignatures not verified
here, is written with a warning: the consumers' witness quorum decides at
verification. --require-quorum TLOG-POLICY (the tlog policy consumers
verify with) verifies the reference's cosignatures against its witnesses
now and refuses to sign (exit 1) unless they satisfy its quorum.
The private key (--key) is a PKCS#8 PEM file (PATH or
file:PATH), env:NAME for PEM text held in an environment variable such as a
CI secret (an encrypted key's passphrase comes from $MCPRES_PASSWORD or a
prompt), or a key that never leaves its holder: pkcs11:URI (RFC 7512, an
Ed25519 key in a PKCS#11 token; module and PIN from the URI or
$MCPRES_PKCS11_MODULE and $MCPRES_PKCS11_PIN) or ssh-agent:SHA256:FINGERPRINT
(an ssh-ed25519 key of the agent at $SSH_AUTH_SOCK); see docs/keys.md. The
key is never printed or written, and every signature is verified with its
public key before anything is written. OUTPUT is written atomically and
never replaces an input; an existing OUTPUT is replaced only with --force.

--keyless signs without a long-lived key (docs/keyless.md): an Ed25519 key
made in memory for this one signature, certified by Fulcio for the OIDC
identity of --identity-token (or of the GitHub Actions job), with an RFC
3161 timestamp over the signature; the signer identity is the
certificate's, and OUTPUT.sigstore.json (--sigstore-bundle) holds the
certificate, the timestamp and the same signature. It is carried out by
mcpres-sigstore ($MCPRES_SIGSTORE, next to mcpres, or on PATH); --key,
--signing-time, --require-quorum and --policy do not go with it.`

func (a *app) attestSignCommand() *cobra.Command {
	var keyPath, identity, policyID, claim, signingTime, transparency, out, requireQuorum, policyPath string
	var force, keyless bool
	cmd := &cobra.Command{
		Use:   "sign BUNDLE --key KEY --identity ID --policy-id POLICY -o OUTPUT",
		Short: "Sign a bundle (or co-sign an attested bundle)",
		Long:  signLong,
		Example: `  mcpres attest sign bundle.json --key release.key \
      --identity https://example.org/release --policy-id example/release-policy -o bundle.attested.json
  mcpres attest sign bundle.attested.json --key witness.key \
      --identity https://example.org/witness --policy-id example/release-policy \
      --claim WITNESSED -o bundle.witnessed.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := a.forwardKeyless(cmd, args, keyless); done {
				return err
			}
			switch {
			case keyPath == "":
				return cli.Usagef("--key is required")
			case identity == "":
				return cli.Usagef("--identity is required")
			case policyID == "":
				return cli.Usagef("--policy-id is required")
			case out == "":
				return cli.Usagef("-o/--output is required")
			}
			if n := utf8.RuneCountInString(identity); n > 256 {
				return cli.Usagef("--identity is %d characters long; an MCP-RES signer identity has at most 256", n)
			}
			if n := utf8.RuneCountInString(policyID); n > 128 {
				return cli.Usagef("--policy-id is %d characters long; an MCP-RES trust-policy id has at most 128", n)
			}
			if signingTime == "" {
				signingTime = nowMillis()
			} else if !datetime.Valid(signingTime) {
				return cli.Usagef("--signing-time %q is not an RFC 3339 date-time", signingTime)
			}
			var claimLevel *attest.Level
			if claim != "" {
				l, err := attest.ParseLevel(claim)
				if err != nil {
					return cli.Usagef("--claim: %v", err)
				}
				claimLevel = &l
			}
			opts := attest.SignOptions{SignerIdentity: identity, SigningTime: signingTime, TrustPolicyID: policyID}
			if requireQuorum != "" && transparency == "" {
				return cli.Usagef("--require-quorum goes with --transparency: it is the quorum the reference's cosignatures must satisfy")
			}
			quorum, err := a.loadQuorumTrust(requireQuorum)
			if err != nil {
				return err
			}
			if transparency != "" {
				ref, err := a.readTransparency(transparency)
				if err != nil {
					return err
				}
				opts.Transparency = ref
			}
			_, doc, err := canonjson.ReadFile(args[0])
			if err != nil {
				a.printInputInvalid(args[0], err, "text", false)
				return cli.Exit(exitInput)
			}
			key, err := a.openKey("--key", keyPath, "private key", keyfile.PEMPrivateKey)
			if err != nil {
				return err
			}
			defer key.Close()
			if quorum != nil {
				quorum.EvaluatedAt = time.Now() // the cosignatures count under the verifier's time rule, now
			}
			s, err := a.sign(args[0], transparency, doc, key, opts, claimLevel, quorum)
			if err != nil {
				return err
			}
			if why := s.TransparencyUnchecked(); why != "" {
				a.warnf("%s: %s", transparency, why)
			}
			if why := s.QuorumUnchecked(); why != "" {
				a.warnf("%s: --claim %s: %s", transparency, s.Claim, why)
			}
			if s.Witnessing != nil {
				a.msgs().Notef("%s: %s (tlog policy %s)", transparency, s.Witnessing, requireQuorum)
			}
			data, err := canonjson.Pretty(s.Attested)
			if err != nil {
				return cli.Failf("encoding the attested bundle: %v", err)
			}
			inputs := append([]string{args[0]}, keyInputs(keyPath)...)
			if err := a.writeOutput(out, inputs, data, force); err != nil {
				return err
			}
			a.wrote(out, "%d %s, claim %s", s.Envelopes, plural(s.Envelopes, "envelope", "envelopes"), s.Claim)
			if why := s.ClaimUnreachable(); why != "" {
				a.warnf("the claim %s cannot hold yet: %s; attest verify fails it (%s) until a co-signer adds what is missing (mcpres attest sign %s --key KEY ..., which keeps the claim)",
					s.Claim, why, attest.CodeClassificationOverclaim, out)
			} else if policyPath != "" {
				pol := readPolicyOnce(policyPath, trustpolicy.OpenOptions{})
				a.hints(pol.Hints)
				if pol.Err != nil {
					return cli.Failf("--policy: %v", pol.Err)
				}
				why, err := s.ClaimBeyond(pol.Loaded, signingTime, validator.New())
				if err != nil {
					return cli.Failf("--policy: %v", err)
				}
				if why != "" {
					a.warnf("the claim %s is more than %s derives: every consumer with this policy fails the bundle (%s)", s.Claim, policyPath, why)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&keyPath, "key", "", "private key: "+keyRefUsage)
	f.StringVar(&identity, "identity", "", "signer identity written into the statement and the signature")
	f.StringVar(&policyID, "policy-id", "", "id of the trust policy the attestation is meant for")
	f.StringVar(&claim, "claim", "", "claimed authenticity level ("+verifycmd.LevelsStrongestFirst()+"); default SIGNED, kept when co-signing")
	f.StringVar(&signingTime, "signing-time", "", "signing time as an RFC 3339 date-time (default: now, UTC, milliseconds)")
	f.StringVar(&transparency, "transparency", "", "JSON file holding a transparency reference {logId, entryUuid, inclusionProofBase64, inclusionProofSha256}")
	f.StringVar(&requireQuorum, "require-quorum", "", "a tlog policy (the consumers'): refuse to sign (exit 1) unless the --transparency reference's cosignatures satisfy its quorum")
	f.StringVarP(&out, "output", "o", "", "where to write the attested bundle (required; - for standard output)")
	f.StringVar(&policyPath, "policy", "", "the trust policy the consumers verify with (the producer's own copy): warn when the claim is more than it derives, which those consumers fail whatever their gate")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	addKeylessFlags(f, &keyless)
	return cmd
}

func (a *app) readTransparency(path string) (*attest.TransparencyReference, error) {
	data, err := canonjson.ReadFileBytes(path)
	if err != nil {
		return nil, cli.Failf("transparency reference %s: %v", path, err)
	}
	ref, _, err := attest.ParseTransparencyReference(data)
	if err != nil {
		return nil, cli.Failf("%s: %v", path, err)
	}
	return ref, nil
}

// sign signs a bundle, or appends an envelope to an attested bundle
// (attest.SignBundle, attest.Cosign), and prints a refusal: the document's
// report when its evidence or input is at fault, attest's message in
// every case.
func (a *app) sign(path, transparency string, doc *canonjson.Value, priv crypto.Signer, opts attest.SignOptions, claim *attest.Level, quorum *offline.Trust) (*attest.Signing, error) {
	o := attest.BundleSignOptions{SignOptions: opts, Claim: claim, Validator: validator.New(), RequireQuorum: quorum}
	var s *attest.Signing
	var err error
	if document.Detect(doc) == document.AttestedBundle {
		s, err = attest.Cosign(doc, priv, o)
	} else {
		s, err = attest.SignBundle(doc, priv, o)
	}
	var se *attest.SignError
	if !errors.As(err, &se) {
		if err != nil {
			return nil, cli.Failf("%v", err)
		}
		return s, nil
	}
	switch se.Refusal {
	case attest.RefusedInput:
		a.printInputInvalid(path, se.Err, "text", false)
		a.hints(documentHints(path, doc))
		return nil, cli.Exit(exitInput)
	case attest.RefusedInvalidEvidence:
		a.printResult(path, *se.Evidence, "text", false)
		a.msgs().Errorf("%s: %v", path, se)
		a.hints(documentHints(path, doc))
		return nil, cli.Exit(exitInvalid)
	case attest.RefusedUnverified:
		a.render(attestReport(path, *se.Verification), "text", false, true)
		a.msgs().Errorf("%s: %v", path, se)
		return nil, cli.Exit(exitInvalid)
	case attest.RefusedTransparency:
		return nil, cli.Failf("%s: %v (--transparency %s)", path, se, transparency)
	case attest.RefusedQuorum:
		a.msgs().Errorf("%s: %v (--transparency %s); nothing signed: get a re-witnessed reference once the witnesses are back (log add --server again, or log proof --witness-policy)", path, se, transparency)
		return nil, cli.Exit(exitInvalid)
	}
	return nil, cli.Failf("%s: %v", path, se)
}
