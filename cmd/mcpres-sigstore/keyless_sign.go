package main

import (
	"context"
	"errors"
	"os"
	"time"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/internal/atomicfile"
	cmdcli "github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/keyless"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/spf13/cobra"
)

// keylessTimeout bounds one keyless signing (token, certificate,
// timestamp, trusted root).
const keylessTimeout = 2 * time.Minute

const keylessSignLong = `Sign a bundle (or co-sign an attested bundle) keylessly: with an Ed25519
key made in memory for this one signature and never written, certified for
the signer's OIDC identity by Fulcio, with an RFC 3161 timestamp over the
signature from a timestamp authority (see docs/keyless.md).

The identity token comes from --identity-token (a file, or env:NAME), else,
inside GitHub Actions (a job with permissions: id-token: write), from
$ACTIONS_ID_TOKEN_REQUEST_URL with $ACTIONS_ID_TOKEN_REQUEST_TOKEN, for
audience sigstore. It is sent to Fulcio only, and never written, logged or
printed.

The envelope's signer identity is the certificate's (the email, or for
GitHub Actions the workflow URI https://github.com/OWNER/REPO/.github/
workflows/FILE@REF); --identity, when given, must be that identity. Two
files are written: OUTPUT, the attested bundle exactly as the standard
defines it, and the Sigstore bundle v0.3 of the new envelope (the
certificate, the timestamp and the same DSSE signature; --sigstore-bundle,
default OUTPUT.sigstore.json), which consumers verify with sigstore-go or
cosign. Before anything is written the certificate's key is checked to be
the ephemeral key and the Sigstore bundle is verified with sigstore-go
against --trusted-root (a Sigstore trusted_root.json), or, without it,
against the chains the two servers publish, which proves them consistent
and nothing more.

Plain-HTTP URLs are accepted on loopback addresses only (tests).`

func (a *app) keylessSignCommand() *cobra.Command {
	var keyless_, force bool
	var fulcioURL, tsaURL, tokenRef, identity, policyID, claim, transparency, trustedRoot, out, sgOut string
	cmd := &cobra.Command{
		Use:   "sign BUNDLE --keyless --policy-id POLICY -o OUTPUT",
		Short: "Sign a bundle keylessly (Fulcio certificate, RFC 3161 timestamp)",
		Long:  keylessSignLong,
		Example: `  mcpres-sigstore attest sign bundle.json --keyless --policy-id acme/release -o bundle.attested.json
  mcpres-sigstore attest sign bundle.json --keyless --identity-token env:ID_TOKEN \
      --fulcio https://fulcio.internal.example --tsa https://tsa.internal.example/api/v1/timestamp \
      --trusted-root trusted_root.json --policy-id acme/release -o bundle.attested.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case !keyless_:
				return cmdcli.Usagef("--keyless is required: mcpres-sigstore signs keylessly only (key-based signing is mcpres attest sign --key)")
			case policyID == "":
				return cmdcli.Usagef("--policy-id is required")
			case out == "":
				return cmdcli.Usagef("-o/--output is required")
			case sgOut == "" && out == "-":
				return cmdcli.Usagef("-o -: give --sigstore-bundle FILE too (the Sigstore bundle is written beside the attested bundle)")
			}
			if sgOut == "" {
				sgOut = out + ".sigstore.json"
			}
			if sgOut == out || sgOut == "-" {
				return cmdcli.Usagef("--sigstore-bundle must be a file other than -o")
			}
			if n := utf8.RuneCountInString(policyID); n > 128 {
				return cmdcli.Usagef("--policy-id is %d characters long; an MCP-RES trust-policy id has at most 128", n)
			}
			o := keyless.Options{FulcioURL: fulcioURL, TSAURL: tsaURL}
			o.SignerIdentity, o.TrustPolicyID, o.SigningTime = identity, policyID, verifycmd.NowMillis()
			if claim != "" {
				l, err := attest.ParseLevel(claim)
				if err != nil {
					return cmdcli.Usagef("--claim: %v", err)
				}
				o.Claim = &l
			}
			for _, p := range []string{out, sgOut} {
				if p == "-" {
					continue
				}
				if err := atomicfile.CheckTarget(p, force); err != nil {
					return errors.New(cmdcli.WriteError(p, err))
				}
			}
			if transparency != "" {
				data, err := canonjson.ReadFileBytes(transparency)
				if err != nil {
					return cmdcli.Failf("transparency reference %s: %v", transparency, err)
				}
				if o.Transparency, _, err = attest.ParseTransparencyReference(data); err != nil {
					return cmdcli.Failf("%s: %v", transparency, err)
				}
			}
			if trustedRoot != "" {
				tr, err := root.NewTrustedRootFromPath(trustedRoot)
				if err != nil {
					return cmdcli.Failf("--trusted-root %s: %v", trustedRoot, err)
				}
				o.TrustedRoot = tr
			}
			_, doc, err := canonjson.ReadFile(args[0])
			if err != nil {
				return cmdcli.Failf("%s: %v", args[0], err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), keylessTimeout)
			defer cancel()
			if tokenRef != "" {
				o.Token, err = keyless.ReadToken(tokenRef, time.Now())
			} else if keyless.InActions(os.Getenv) {
				o.Token, err = keyless.ActionsToken(ctx, nil, os.Getenv, time.Now())
			} else {
				return cmdcli.Usagef("no identity token: give --identity-token FILE|env:NAME, or run in GitHub Actions with permissions: id-token: write")
			}
			if err != nil {
				return cmdcli.Failf("%v", err)
			}
			res, err := keyless.Sign(ctx, doc, o)
			if err != nil {
				return a.keylessRefusal(args[0], err)
			}
			return a.writeKeyless(res, out, sgOut, force)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&keyless_, "keyless", false, "sign with an ephemeral key certified by Fulcio for the OIDC identity (required)")
	f.StringVar(&fulcioURL, "fulcio", keyless.PublicFulcio, "the Fulcio certificate authority's base URL")
	f.StringVar(&tsaURL, "tsa", keyless.PublicTSA, "the RFC 3161 timestamp authority's endpoint")
	f.StringVar(&tokenRef, "identity-token", "", "the OIDC identity token: FILE or env:NAME (default: GitHub Actions' token endpoint, audience sigstore)")
	f.StringVar(&identity, "identity", "", "the signer identity expected in the certificate (refused when it differs)")
	f.StringVar(&policyID, "policy-id", "", "id of the trust policy the attestation is meant for")
	f.StringVar(&claim, "claim", "", "claimed authenticity level; default SIGNED, kept when co-signing")
	f.StringVar(&transparency, "transparency", "", "JSON file holding a transparency reference")
	f.StringVar(&trustedRoot, "trusted-root", "", "Sigstore trusted_root.json to verify the certificate and timestamp against before writing")
	f.StringVarP(&out, "output", "o", "", "where to write the attested bundle (required; - for standard output)")
	f.StringVar(&sgOut, "sigstore-bundle", "", "where to write the Sigstore bundle v0.3 (default OUTPUT.sigstore.json)")
	f.BoolVar(&force, "force", false, "replace existing output files")
	return cmd
}

// keylessRefusal prints why keyless signing refused and returns the exit
// status: 1 when a check failed (the certificate is for another key or
// another identity, the material does not verify against the trusted
// root, the timestamp is not over the signature, attest refused the
// evidence), 2 otherwise (an unreadable bundle, an unusable token, a
// server that refused or could not be reached).
func (a *app) keylessRefusal(path string, err error) error {
	a.msgs().Errorf("%s: %v; nothing written", path, err)
	var se *attest.SignError
	switch {
	case errors.As(err, &se):
		if se.Refusal == attest.RefusedInput {
			return cmdcli.Exit(exitInput)
		}
		return cmdcli.Exit(exitInvalid)
	case errors.Is(err, keyless.ErrOtherKey), errors.Is(err, keyless.ErrIdentity),
		errors.Is(err, keyless.ErrMaterial), errors.Is(err, keyless.ErrBadTimestamp):
		return cmdcli.Exit(exitInvalid)
	}
	return cmdcli.Exit(exitInput)
}

// writeKeyless writes the Sigstore bundle, then the attested bundle; if
// the second write fails the first is removed.
func (a *app) writeKeyless(res *keyless.Result, out, sgOut string, force bool) error {
	data, err := canonjson.Pretty(res.Attested)
	if err != nil {
		return cmdcli.Failf("encoding the attested bundle: %v", err)
	}
	if err := atomicfile.WriteFile(sgOut, append(res.SigstoreBundle, '\n'), 0o644, force); err != nil {
		return errors.New(cmdcli.WriteError(sgOut, err))
	}
	if out == "-" {
		_, err = a.stdout.Write(data)
	} else {
		err = atomicfile.WriteFile(out, data, 0o644, force)
	}
	if err != nil {
		os.Remove(sgOut)
		return errors.New(cmdcli.WriteError(out, err))
	}
	m := a.msgs()
	if out != "-" {
		m.Wrote(out, "%d %s, claim %s", res.Envelopes, plural(res.Envelopes), res.Claim)
	}
	m.Wrote(sgOut, "Sigstore bundle: certificate for %s (issuer %s), timestamp %s", res.Identity, res.Issuer, res.Timestamp.UTC().Format(time.RFC3339))
	return nil
}

func plural(n int) string {
	if n == 1 {
		return "envelope"
	}
	return "envelopes"
}
