package main

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/canonjson"
	"github.com/mcpres/mcpres/internal/datetime"
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

// nowMillis is the current time as an MCP-RES date-time with milliseconds,
// the only place the CLI reads the clock.
func nowMillis() string {
	return time.Now().UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
}

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
without knowing the verifier's trust policy. The private key (--key) is a
PKCS#8 PEM file (PATH or file:PATH), or env:NAME for PEM text held in an
environment variable such as a CI secret; an encrypted key's passphrase comes
from $MCPRES_PASSWORD or a prompt. The key is never printed or written. OUTPUT is written atomically and never replaces an input; an
existing OUTPUT is replaced only with --force.`

func (a *app) attestSignCommand() *cobra.Command {
	var keyPath, identity, policyID, claim, signingTime, transparency, out string
	var force bool
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
			switch {
			case keyPath == "":
				return usagef("--key is required")
			case identity == "":
				return usagef("--identity is required")
			case policyID == "":
				return usagef("--policy-id is required")
			case out == "":
				return usagef("-o/--output is required")
			}
			if n := utf8.RuneCountInString(identity); n > 256 {
				return usagef("--identity is %d characters long; an MCP-RES signer identity has at most 256", n)
			}
			if n := utf8.RuneCountInString(policyID); n > 128 {
				return usagef("--policy-id is %d characters long; an MCP-RES trust-policy id has at most 128", n)
			}
			if cmd.Flags().Changed("signing-time") && signingTime == "" {
				return usagef("--signing-time is empty")
			}
			if signingTime == "" {
				signingTime = nowMillis()
			} else if !datetime.Valid(signingTime) {
				return usagef("--signing-time %q is not an RFC 3339 date-time", signingTime)
			}
			var claimLevel *attest.Level
			if claim != "" {
				l, err := attest.ParseLevel(claim)
				if err != nil {
					return usagef("--claim: %v", err)
				}
				claimLevel = &l
			}
			opts := attest.SignOptions{SignerIdentity: identity, SigningTime: signingTime, TrustPolicyID: policyID}
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
				return &exitError{exitInput}
			}
			if opts.Transparency != nil {
				if err := a.checkTransparency(transparency, opts.Transparency, doc); err != nil {
					return err
				}
			}
			priv, err := a.loadPrivateKey(keyPath)
			if err != nil {
				return err
			}
			wrapper, err := a.sign(args[0], doc, priv, opts, claimLevel)
			if err != nil {
				return err
			}
			data, err := canonjson.Pretty(wrapper)
			if err != nil {
				return failf("encoding the attested bundle: %v", err)
			}
			inputs := []string{args[0]}
			if !strings.HasPrefix(keyPath, "env:") {
				inputs = append(inputs, strings.TrimPrefix(keyPath, "file:"))
			}
			return a.writeOutput(out, inputs, data, force)
		},
	}
	f := cmd.Flags()
	f.StringVar(&keyPath, "key", "", "private key: PATH or file:PATH (PKCS#8 PEM, optionally encrypted), or env:NAME to read the PEM from an environment variable")
	f.StringVar(&identity, "identity", "", "signer identity written into the statement and the signature")
	f.StringVar(&policyID, "policy-id", "", "id of the trust policy the attestation is meant for")
	f.StringVar(&claim, "claim", "", "claimed authenticity level (default SIGNED; kept when co-signing)")
	f.StringVar(&signingTime, "signing-time", "", "signing time as an RFC 3339 date-time (default: now, UTC, milliseconds)")
	f.StringVar(&transparency, "transparency", "", "JSON file holding a transparency reference {logId, entryUuid, inclusionProofBase64, inclusionProofSha256}")
	f.StringVarP(&out, "output", "o", "", "where to write the attested bundle (required; - for standard output)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}

func (a *app) readTransparency(path string) (*attest.TransparencyReference, error) {
	_, v, err := canonjson.ReadFile(path)
	if err != nil {
		return nil, failf("transparency reference %s: %v", path, err)
	}
	var ref attest.TransparencyReference
	if err := canonjson.Unmarshal(v, &ref); err != nil {
		return nil, failf("transparency reference %s: %v", path, err)
	}
	proof, err := attest.DecodeStrictBase64(ref.InclusionProofBase64)
	if err != nil {
		return nil, failf("transparency reference %s: inclusionProofBase64: %v", path, err)
	}
	if canonjson.BytesDigest(proof) != ref.InclusionProofSha256 {
		return nil, failf("transparency reference %s: inclusionProofSha256 is not the SHA-256 of the proof bytes", path)
	}
	return &ref, nil
}

// checkTransparency checks before signing that a tlog-proof reference binds
// the bundle being signed and names its checkpoint origin and leaf index
// (offline.CheckReference). Other proof kinds can only be digest-checked here.
func (a *app) checkTransparency(path string, ref *attest.TransparencyReference, doc *canonjson.Value) error {
	b := document.CoreBundle(doc)
	proof, err := attest.DecodeStrictBase64(ref.InclusionProofBase64)
	if err != nil {
		return failf("transparency reference %s: inclusionProofBase64: %v", path, err)
	}
	if err := offline.CheckReference(ref.LogID, ref.EntryUUID, proof, b); err != nil {
		if errors.Is(err, offline.ErrNotTLogProof) {
			a.warnf("transparency reference %s is %s: only its SHA-256 was checked; a trust policy with a transparency section verifies c2sp.org/tlog-proof references (and Rekor v1 entries, with mcpres-sigstore)", path, offline.DetectKind(proof))
			return nil
		}
		return failf("transparency reference %s does not bind this bundle: %v", path, err)
	}
	return nil
}

// sign signs a bundle, or appends an envelope to an attested bundle
// (attest.SignBundle, attest.Cosign), and prints a refusal.
func (a *app) sign(path string, doc *canonjson.Value, priv []byte, opts attest.SignOptions, claim *attest.Level) (*canonjson.Value, error) {
	o := attest.BundleSignOptions{SignOptions: opts, Claim: claim, Validator: validator.New()}
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
			return nil, failf("%v", err)
		}
		return s.Attested, nil
	}
	switch se.Refusal {
	case attest.RefusedInput:
		a.printInputInvalid(path, se.Err, "text", false)
		return nil, &exitError{exitInput}
	case attest.RefusedInvalidEvidence:
		a.printResult(path, *se.Evidence, "text", false)
		fmt.Fprintln(a.stderr, "mcpres: error: refusing to sign invalid evidence")
		return nil, &exitError{exitInvalid}
	case attest.RefusedUnverified:
		fmt.Fprintf(a.stdout, "%s: INVALID %s: %s\n", path, strings.Join(se.Verification.Diagnostics, ", "), se.Verification.Detail)
		fmt.Fprintln(a.stderr, "mcpres: error: refusing to co-sign an attested bundle that does not verify")
		return nil, &exitError{exitInvalid}
	case attest.RefusedFull:
		return nil, failf("refusing to co-sign: %s already holds %d envelopes, the most an attested bundle may carry", path, se.Envelopes)
	case attest.RefusedKeyAlreadySigned:
		return nil, failf("refusing to co-sign: key %s already signed this bundle (as %q); one key is one signer, never two witnesses", se.KeyID, se.SignerIdentity)
	case attest.RefusedWouldNotVerify:
		if se.Err != nil {
			return nil, failf("the attested bundle would not verify: %v", se.Err)
		}
		return nil, failf("refusing to write an attested bundle that would not verify: %s: %s", strings.Join(se.Verification.Diagnostics, ", "), se.Verification.Detail)
	}
	return nil, failf("%v", err)
}

const verifyLong = `Verify attested conformance bundles fully offline, exactly in the order of
the MCP-RES reference (REFERENCE §5.3, §6): envelope shapes, schema, the core
validity of the embedded bundle (a valid signature over invalid evidence is
invalid), the claim, the trust policy window, then for each envelope a single
strict Ed25519 signature (small-order keys and non-canonical signatures are
rejected), the canonical statement, its binding to the bundle, the signer
identity and key fingerprint, and, with a policy, signing time, revocation
and trust; finally the derived authenticity level.

Without --policy only SIGNED can be derived. The evaluation time is
--evaluated-at, or now; it is echoed in every result as evaluatedAt, and
every comparison uses exactly that instant. No network is used.

Each result is printed as one JSON object per line (--format json, default):
the reference members valid, diagnostics, schemaErrors,
authenticityClassification, evidenceClass and evaluatedAt, followed by
"evaluation": what was evaluated (policy id and version, and per envelope the
key fingerprint, identity, signature validity, trust, revocation and whether
a transparency reference was only digest-checked, DIGEST_ONLY, or verified
offline against a log of an mcpres.trust-policy/v1 policy, VERIFIED_OFFLINE).`

func (a *app) attestVerifyCommand() *cobra.Command {
	var policyPath, evaluatedAt, format string
	var policyTUF, policyRepo, policyTarget, policyCache string
	var requireLevel, requireClass string
	var recursive, quiet bool
	cmd := &cobra.Command{
		Use:   "verify FILE... [--policy POLICY]",
		Short: "Verify attested bundles offline against an explicit trust policy",
		Long:  verifyLong,
		Example: `  mcpres attest verify bundle.attested.json --policy policy.json
  mcpres attest verify --format text --evaluated-at 2026-08-27T18:05:00.000Z bundle.attested.json
  mcpres attest verify bundle.attested.json --policy-tuf 1.root.json --policy-repo https://example.org/tuf --policy-target release-policy.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkBatchFormat(format); err != nil {
				return err
			}
			g, err := newGate(requireLevel, requireClass)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("evaluated-at") && evaluatedAt == "" {
				return usagef("--evaluated-at is empty")
			}
			if evaluatedAt == "" {
				evaluatedAt = nowMillis()
			} else if !datetime.Valid(evaluatedAt) {
				return usagef("--evaluated-at %q is not an RFC 3339 date-time (leap seconds are rejected)", evaluatedAt)
			}
			opts := attest.Options{EvaluatedAt: evaluatedAt, Validator: validator.New(),
				PolicyLoaders: map[string]attest.PolicyLoader{trustpolicy.SchemaVersion: trustpolicy.Loader}}
			if policyTUF != "" || policyRepo != "" || policyTarget != "" || policyCache != "" {
				switch {
				case policyPath != "":
					return usagef("--policy can't be used with --policy-tuf (the policy comes from the TUF repository)")
				case policyTUF == "" || policyRepo == "" || policyTarget == "":
					return usagef("--policy-tuf, --policy-repo and --policy-target go together")
				}
				name, data, err := a.fetchPolicyTUF(policyTUF, policyRepo, policyTarget, policyCache)
				if err != nil {
					return err
				}
				pol, err := canonjson.Parse(data)
				if err != nil {
					a.printInputInvalid(name, fmt.Errorf("trust policy: %w", err), format, false)
					return &exitError{exitInput}
				}
				opts.LoadedPolicy = attest.LoadPolicy(pol, opts)
			}
			var pol policySource
			if policyPath != "" {
				pol = readPolicyOnce(policyPath, opts)
			}
			paths, err := expandInputs(args, recursive)
			if err != nil {
				return err
			}
			worst := a.runBatch(paths, batchOutput{format: format, quiet: quiet}, func(path string) report {
				return a.verifyReport(path, pol, opts, g)
			})
			if worst != exitValid {
				return &exitError{worst}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&quiet, "quiet", "q", false, quietUsage)
	f.StringVar(&requireLevel, "require-level", "", "gate: exit 1 unless the derived authenticity level is at least LEVEL")
	f.StringVar(&requireClass, "require-evidence-class", "", "gate: exit 1 unless the evidence class is at least CLASS ("+strongestFirst()+")")
	f.BoolVarP(&recursive, "recursive", "r", false, "include the .json files of subdirectories of DIR arguments")
	f.StringVar(&policyPath, "policy", "", "trust policy file (mcp-res.trust-policy/0.2.0 or mcpres.trust-policy/v1)")
	f.StringVar(&policyPath, "trust-policy", "", "same as --policy (the reference implementation's name)")
	f.StringVar(&evaluatedAt, "evaluated-at", "", "evaluation time as an RFC 3339 date-time (default: now)")
	f.StringVar(&format, "format", "json", "output format: json, text or markdown")
	f.StringVar(&policyTUF, "policy-tuf", "", "pinned root metadata (1.root.json) of the TUF repository that distributes the trust policy (run by mcpres-tuf)")
	f.StringVar(&policyRepo, "policy-repo", "", "TUF repository of the trust policy: an http(s) URL or a local directory (with --policy-tuf)")
	f.StringVar(&policyTarget, "policy-target", "", "name of the trust policy in the TUF repository (with --policy-tuf)")
	f.StringVar(&policyCache, "policy-cache", "", "TUF cache directory (default: user cache dir/mcpres/tuf/<sha256 of the root>)")
	return cmd
}

// policySource is a trust-policy file read and loaded once for a whole
// batch; its read error is reported per input, after that input's own
// read, and its load failure by each verification that reaches the policy
// (attest.LoadPolicy).
type policySource struct {
	path   string
	loaded *attest.LoadedPolicy
	err    error
}

func readPolicyOnce(path string, opts attest.Options) policySource {
	_, doc, err := canonjson.ReadFile(path)
	if err != nil {
		return policySource{path: path, err: err}
	}
	return policySource{path: path, loaded: attest.LoadPolicy(doc, opts)}
}

// verifyReport verifies one attested bundle and applies the gate.
func (a *app) verifyReport(path string, pol policySource, opts attest.Options, g gate) report {
	_, doc, err := canonjson.ReadFile(path)
	if err != nil {
		return inputInvalidReport(path, err)
	}
	if pol.path != "" {
		// Read right after the wrapper and before any check (REFERENCE §5.3).
		if pol.err != nil {
			return inputInvalidReport(pol.path, fmt.Errorf("trust policy: %w", pol.err))
		}
		opts.LoadedPolicy = pol.loaded
	}
	r, err := attest.Verify(doc, opts)
	if err != nil {
		return inputInvalidReport(path, err)
	}
	rep := attestReport(path, r)
	if g.active() {
		rep = g.apply(rep, r, doc.Path("bundle", "statement", "evidenceClass"))
	}
	return rep
}

// attestReport renders a verification result.
func attestReport(path string, r attest.Result) report {
	rep := report{path: path, obj: r.Value(), diags: r.Diagnostics, detail: r.Detail, class: r.EvidenceClass}
	ev := r.Evaluation
	policy := "no policy"
	if ev.PolicySupplied {
		policy = "a policy that was not evaluated (an earlier check decided)"
	}
	if ev.PolicyID != nil {
		policy = fmt.Sprintf("policy %s version %s", *ev.PolicyID, *ev.PolicyVersion)
	}
	if r.Valid {
		rep.code, rep.outcome, rep.level = exitValid, outcomeValid, r.Level.String()
		class := ""
		if r.EvidenceClass != "" {
			class = ", evidence class " + r.EvidenceClass
		}
		rep.text = append(rep.text, fmt.Sprintf("%s: VALID %s%s", path, r.Level, class))
	} else {
		rep.code, rep.outcome = exitInvalid, outcomeInvalid
		rep.text = append(rep.text, fmt.Sprintf("%s: INVALID %s: %s", path, strings.Join(r.Diagnostics, ", "), r.Detail))
	}
	rep.text = append(rep.text, fmt.Sprintf("  evaluated at %s with %s; %d distinct signing keys, counted by SPKI fingerprint", ev.EvaluatedAt, policy, ev.DistinctKeys))
	for _, e := range ev.Envelopes {
		rep.text = append(rep.text, fmt.Sprintf("  envelope %d: key %s identity %q signature %s, trusted %t, revoked %t, transparency %s",
			e.Index, e.KeyFingerprint, e.SignerIdentity, okText(e.SignatureValid), e.Trusted, e.Revoked, e.Transparency))
	}
	for _, n := range ev.Notes {
		rep.text = append(rep.text, "  note: "+n)
	}
	return rep
}

// strongestFirst lists the evidence classes as "GENUINE_RUNTIME > … >
// DOCUMENTED_ONLY".
func strongestFirst() string {
	cs := bundle.EvidenceClasses()
	names := make([]string, len(cs))
	for i, c := range cs {
		names[len(cs)-1-i] = c.String()
	}
	return strings.Join(names, " > ")
}

func okText(ok bool) string {
	if ok {
		return "valid"
	}
	return "not verified"
}
