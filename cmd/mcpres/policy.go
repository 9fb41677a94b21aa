package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/ed25519strict"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/keyref"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

// exportFormatUpstream is the only --format of policy export.
const exportFormatUpstream = "mcp-res-0.2.0"

// schemaVersionPolicyCheck versions the JSON objects of policy check --format json.
const schemaVersionPolicyCheck = "mcpres.trust-policy-check/v1"

const policyLong = `Write and check mcpres.trust-policy/v1 trust policies (docs/trust-policy.md).

A v1 policy extends the upstream mcp-res.trust-policy/0.2.0 with signer roles
(signer, witness), per-key validity windows, a witness quorum counted by key
fingerprint with optional distinct identities, revocations with reasons, and
a tlog-policy text for transparency. attest verify --policy reads both kinds.

Every editing command reads FILE, applies the change, increments "version",
re-checks the whole result with the strict loader and only then replaces
FILE atomically (a temporary file renamed over it): a failed check or write
leaves FILE as it was. policy check prints every problem of a policy;
policy export writes the upstream projection and refuses when it would
silently weaken a rule.

Exit status: 0 success, 1 the policy has problems (or an export would lose
a rule), 2 unreadable input or a usage error.`

func (a *app) policyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Write, check and export mcpres.trust-policy/v1 trust policies",
		Long:  policyLong,
	}
	cmd.AddCommand(
		a.policyInitCommand(),
		a.policyAddSignerCommand(),
		a.policyAddWitnessCommand(),
		a.policySetQuorumCommand(),
		a.policyRevokeCommand(),
		a.policyCheckCommand(),
		a.policyExportCommand(),
		a.policySetTransparencyCommand(),
		a.policyTufCommand(),
		a.policyTLogCommand(),
	)
	return cmd
}

func checkPolicyTime(flag, value string) error {
	if value != "" && !datetime.Valid(value) {
		return cli.Usagef("%s %q is not an RFC 3339 date-time (leap seconds are rejected)", flag, value)
	}
	return nil
}

// printProblems writes a refusal and every problem to stderr.
func (a *app) printPolicyProblems(headline string, problems []trustpolicy.Problem) {
	a.msgs().Errorf("%s", headline)
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "  %s\n", p)
	}
}

// readPolicyFile reads a policy file with the strict reader.
func readPolicyFile(path string) (*canonjson.Value, error) {
	_, doc, err := canonjson.ReadFile(path)
	if err != nil {
		return nil, cli.Failf("%s: %v", path, err)
	}
	return doc, nil
}

// writePolicy checks d with the strict loader and writes it to path
// atomically; replace says whether an existing file may be replaced.
func (a *app) writePolicy(path string, d *trustpolicy.Document, replace bool, val *validator.Validator) (*trustpolicy.Policy, error) {
	v := d.Value()
	p, problems := trustpolicy.Load(v, val)
	if len(problems) > 0 {
		a.printPolicyProblems(fmt.Sprintf("the policy would not load; nothing written to %s:", path), problems)
		return nil, cli.Exit(exitInvalid)
	}
	data, err := canonjson.Pretty(v)
	if err != nil {
		return nil, cli.Failf("encoding the policy: %v", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o644, replace); err != nil {
		return nil, writeFileError(path, err)
	}
	a.wrote(path, "trust policy %s version %d", d.ID, d.Version)
	return p, nil
}

// editPolicy reads the policy at path, applies edit, increments the
// version, re-checks the result and replaces the file. An input that
// fails the schema is refused; one with only semantic problems may be
// repaired by the edit.
func (a *app) editPolicy(path string, edit func(d *trustpolicy.Document) (string, error)) error {
	if err := fileOnly("FILE", path); err != nil {
		return err
	}
	doc, err := readPolicyFile(path)
	if err != nil {
		return err
	}
	val := validator.New()
	d, problems := trustpolicy.Decode(doc, val)
	if len(problems) > 0 {
		a.printPolicyProblems(fmt.Sprintf("%s is not an %s document; it is unchanged:", path, trustpolicy.SchemaVersionPolicy), problems)
		return cli.Exit(exitInvalid)
	}
	what, err := edit(d)
	if err != nil {
		return err
	}
	if d.Version >= canonjson.MaxSafeInteger {
		return cli.Failf("%s: version %d cannot be incremented", path, d.Version)
	}
	d.Version++
	if _, err := a.writePolicy(path, d, true, val); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: version %d: %s\n", path, d.Version, what)
	return nil
}

// readPolicyPublicKey reads an SPKI PEM or base64 SPKI public key file,
// or the public half of a key in a token or an agent (pkcs11:,
// ssh-agent:), and returns it as base64 SPKI with its fingerprint.
func (a *app) readPolicyPublicKey(path string) (spki, fp string, err error) {
	ref, perr := keyref.Parse(path)
	if perr != nil {
		// Not read as a path: a mistyped pkcs11: URI would be quoted with its PIN.
		return "", "", cli.Usagef("--key: %v", perr)
	}
	if !ref.Secret() {
		k, err := a.openKeyWith("--key", path, "key", keyref.Options{})
		if err != nil {
			return "", "", err
		}
		defer k.Close()
		der := ed25519strict.MarshalSPKI(k.PublicKey())
		return base64.StdEncoding.EncodeToString(der), ed25519strict.SPKIFingerprint(der), nil
	}
	if ref.Scheme == keyref.File {
		path = ref.Path
	}
	data, err := regularfile.ReadFile(path, keyfile.MaxBytes)
	if err != nil {
		return "", "", cli.Failf("public key: %v", err)
	}
	pub, err := keyfile.ParsePublicKeyPEM(data)
	if err != nil {
		return "", "", cli.Failf("public key %s: %v", path, keyhints.Word(err, "--key"))
	}
	der := ed25519strict.MarshalSPKI(pub)
	return base64.StdEncoding.EncodeToString(der), ed25519strict.SPKIFingerprint(der), nil
}

// evaluationInstant is evaluationTime as an instant too.
func evaluationInstant(flag string) (datetime.Instant, string, error) {
	text, err := evaluationTime(flag)
	if err != nil {
		return 0, "", err
	}
	at, err := datetime.Parse(text)
	if err != nil {
		return 0, "", cli.Usagef("--evaluated-at %q: %v", text, err)
	}
	return at, text, nil
}

// warnWindow warns when the policy in path is not in force at the
// evaluation time: attest verify would refuse every bundle with it.
func (a *app) warnWindow(path string, p *trustpolicy.Policy, at datetime.Instant, atText string) {
	if why := p.OutOfWindow(at.Time(), atText); why != "" {
		a.warnf("%s: the policy is %s; attest verify refuses every bundle with it then (%s)", path, why, attest.CodeTrustPolicyExpired)
	}
}

// evaluatedAtUsage is the help of --evaluated-at on policy init and check.
const evaluatedAtUsage = "the time the policy's window is checked against, for a warning (RFC 3339 date-time; default: now)"

func (a *app) policyInitCommand() *cobra.Command {
	var id, from, until, evaluatedAt string
	cmd := &cobra.Command{
		Use:   "init FILE --id ID --valid-from T --valid-until T",
		Short: "Create a policy with no signers (never overwrites)",
		Long: `Create FILE holding an mcpres.trust-policy/v1 policy at version 1 with the
given id and inclusive validity window, and no signers, revocations or
rules. An existing FILE is never overwritten. A window that has ended or not
yet begun at --evaluated-at (default now) is written with a warning naming
the window and that time.`,
		Example: `  mcpres policy init policy.json --id example/release-policy \
      --valid-from 2026-01-01T00:00:00.000Z --valid-until 2027-01-01T00:00:00.000Z`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := fileOnly("FILE", args[0]); err != nil {
				return err
			}
			switch {
			case id == "":
				return cli.Usagef("--id is required")
			case from == "":
				return cli.Usagef("--valid-from is required")
			case until == "":
				return cli.Usagef("--valid-until is required")
			}
			if err := errors.Join(checkPolicyTime("--valid-from", from), checkPolicyTime("--valid-until", until)); err != nil {
				return cli.Usagef("%v", err)
			}
			at, atText, err := evaluationInstant(evaluatedAt)
			if err != nil {
				return err
			}
			d := trustpolicy.New(id, from, until)
			p, err := a.writePolicy(args[0], d, false, validator.New())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: version 1: created policy %q\n", args[0], id)
			a.warnWindow(args[0], p, at, atText)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&evaluatedAt, "evaluated-at", "", evaluatedAtUsage)
	f.StringVar(&id, "id", "", "policy id, 1..128 characters (the trustPolicyId signers write into their statements)")
	f.StringVar(&from, "valid-from", "", "start of the validity window (RFC 3339 date-time, inclusive)")
	f.StringVar(&until, "valid-until", "", "end of the validity window (RFC 3339 date-time, inclusive)")
	return cmd
}

// policySignerFlags are the flags shared by add-signer and add-witness.
type policySignerFlags struct {
	name, identity, key, from, until string
	roles, subjects                  []string
}

func (s *policySignerFlags) register(cmd *cobra.Command, window bool) {
	f := cmd.Flags()
	f.StringVar(&s.name, "name", "", "signer name, unique in the policy ([A-Za-z0-9][A-Za-z0-9._-]{0,63})")
	f.StringVar(&s.identity, "identity", "", "the signerIdentity its envelopes must carry")
	f.StringVar(&s.key, "key", "", "public key file (SPKI PEM, as written by key generate, or base64 SPKI), or a key in a token or an agent: pkcs11:URI, ssh-agent:SHA256:FINGERPRINT (its public half)")
	f.StringArrayVar(&s.subjects, "subject", nil, "trust the key only for subjects whose name matches PATTERN ('*' matches any run of characters without '/'; repeatable, at most 32; default: every subject)")
	if window {
		f.StringSliceVar(&s.roles, "role", nil, "role: signer or witness; repeat or separate with commas (default signer)")
		f.StringVar(&s.from, "valid-from", "", "start of the key's own window (optional)")
		f.StringVar(&s.until, "valid-until", "", "end of the key's own window (optional)")
	}
}

func (s *policySignerFlags) signer(a *app) (trustpolicy.Signer, string, error) {
	switch {
	case s.name == "":
		return trustpolicy.Signer{}, "", cli.Usagef("--name is required")
	case s.identity == "":
		return trustpolicy.Signer{}, "", cli.Usagef("--identity is required")
	case s.key == "":
		return trustpolicy.Signer{}, "", cli.Usagef("--key is required")
	}
	if err := errors.Join(checkPolicyTime("--valid-from", s.from), checkPolicyTime("--valid-until", s.until)); err != nil {
		return trustpolicy.Signer{}, "", cli.Usagef("%v", err)
	}
	roles := []string{}
	for _, r := range s.roles {
		if r != trustpolicy.RoleSigner && r != trustpolicy.RoleWitness {
			return trustpolicy.Signer{}, "", cli.Usagef("--role must be signer or witness, not %q", r)
		}
		roles = append(roles, r)
	}
	if len(roles) == 0 {
		roles = []string{trustpolicy.RoleSigner}
	}
	for _, p := range s.subjects {
		if _, err := trustpolicy.ParseScope(p); err != nil {
			return trustpolicy.Signer{}, "", cli.Usagef("--subject: %v", err)
		}
	}
	spki, fp, err := a.readPolicyPublicKey(s.key)
	if err != nil {
		return trustpolicy.Signer{}, "", err
	}
	return trustpolicy.Signer{Name: s.name, Identity: s.identity, PublicKey: spki, Roles: roles, ValidFrom: s.from, ValidUntil: s.until, Subjects: s.subjects}, fp, nil
}

// scopeSuffix is ", subjects …" for a scoped signer, else "".
func scopeSuffix(subjects []string) string {
	if subjects == nil {
		return ""
	}
	return ", " + scopeText(subjects)
}

// scopeText says which subjects a signer is trusted for.
func scopeText(subjects []string) string {
	if subjects == nil {
		return "every subject"
	}
	return "subjects " + strings.Join(subjects, ", ")
}

func (a *app) policyAddSignerCommand() *cobra.Command {
	var s policySignerFlags
	var id identitySignerFlags
	cmd := &cobra.Command{
		Use:   "add-signer FILE --name N --identity I --key PUBFILE [--role signer|witness]... [--valid-from T] [--valid-until T] [--subject PATTERN]...",
		Short: "Trust a key with an identity, roles and an optional window",
		Long: `Add a signer: a public key trusted together with exactly one identity. An
envelope is trusted only when its key is a signer's key, its signerIdentity
is that signer's identity, and the signer's own window (when given) covers
both its signing time and the evaluation time.

Roles: signer (the default) lets the key be the primary, first signer;
witness lets it count toward the witness quorum once it is also listed in
witnesses.members (policy add-witness does both for a new key). Names and
keys are unique: the same key under another name or identity is refused.

--subject PATTERN (repeatable, at most 32) scopes the key to subjects: an
envelope it signs is trusted only for a bundle whose subject name
(evidence.subject.name) matches one of the patterns, and the result of
any other says "signer NAME is not trusted for subject …". A pattern is
matched against the whole name, byte for byte; "*" stands for any run of
characters without "/" ("io.github.acme/*" matches io.github.acme/server,
not io.github.acme/team/server), and nothing else is special. Patterns
that could match more than meant are refused: "**", white space, and
patterns of only "*" and "/". Without --subject the key is trusted for
every subject.

An identity signer (keyless: docs/keyless.md) is given by --issuer, the
OIDC issuer exactly, and --identity (the certificate identity, exactly) or
--identity-regexp (RE2 anchored with ^ and $; expressions that could match
another owner's identities are refused), optionally pinning certificate
extensions (--github-workflow-repository OWNER/REPO, --github-workflow-ref,
--github-workflow-trigger, --github-workflow-sha) and naming the Sigstore
trusted_root.json it is verified against (--trusted-root FILE: the policy
records its SHA-256; required once, for the first identity signer). It has
no --key. attest verify --policy POLICY --trusted-root TRUSTED_ROOT
verifies their keyless signatures (run by mcpres-sigstore); without
--trusted-root they trust no envelope.`,
		Example: `  mcpres policy add-signer policy.json --name release-2026 \
      --identity https://example.org/release --key release-2026.pub \
      --valid-until 2026-07-01T00:00:00.000Z
  mcpres policy add-signer policy.json --name release-a \
      --identity https://example.org/release-a --key release-a.pub --subject 'io.github.acme/server-*'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if id.set() {
				return a.addIdentitySigner(args[0], &s, &id)
			}
			if id.trustedRoot != "" {
				return cli.Usagef("--trusted-root goes with an identity signer (--issuer)")
			}
			signer, fp, err := s.signer(a)
			if err != nil {
				return err
			}
			return a.editPolicy(args[0], func(d *trustpolicy.Document) (string, error) {
				d.AddSigner(signer)
				return fmt.Sprintf("added signer %q (roles %s, key %s%s)", signer.Name, strings.Join(signer.Roles, ","), fp, scopeSuffix(signer.Subjects)), nil
			})
		},
	}
	s.register(cmd, true)
	id.register(cmd)
	return cmd
}

func (a *app) policyAddWitnessCommand() *cobra.Command {
	var s policySignerFlags
	cmd := &cobra.Command{
		Use:   "add-witness FILE --name N --identity I --key PUBFILE [--subject PATTERN]...",
		Short: "Trust a witness key and count it toward the witness quorum",
		Long: `Add a signer with the witness role and list it in witnesses.members. Without
a witnesses rule, one is created with quorum 1 and distinctIdentities true
(each counted witness must have its own identity, different from the
primary signer's); change them with policy set-quorum.

Witnesses are counted by key fingerprint, never by name, and the primary
(first) envelope never counts toward its own quorum. --subject PATTERN
(repeatable) scopes the witness to subjects as in policy add-signer: its
cosignature counts only for bundles whose subject name matches.`,
		Example: `  mcpres policy add-witness policy.json --name witness-a \
      --identity https://witness-a.example --key witness-a.pub`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			signer, fp, err := s.signer(a)
			if err != nil {
				return err
			}
			return a.editPolicy(args[0], func(d *trustpolicy.Document) (string, error) {
				d.AddWitness(signer)
				w := d.Witnesses
				return fmt.Sprintf("added witness %q (key %s%s); quorum %d of %d members", signer.Name, fp, scopeSuffix(signer.Subjects), w.Quorum, len(w.Members)), nil
			})
		},
	}
	s.register(cmd, false)
	return cmd
}

func (a *app) policySetTransparencyCommand() *cobra.Command {
	var remove bool
	var maxAge time.Duration
	cmd := &cobra.Command{
		Use:   "set-transparency FILE TLOG-POLICY | --remove FILE",
		Short: "Set the logs and checkpoint witnesses transparency references are verified against",
		Long: `Set transparency.tlogPolicy to the text of the file TLOG-POLICY (log, witness,
group and quorum lines with signed-note verifier keys, as printed by
mcpres log keygen and mcpres witness keygen; see docs/trust-policy.md).
Transparency references are then verified offline against those logs and
witnesses, and TRANSPARENCY_RECORDED is derived only for references that
verify. --remove deletes the section.

--max-cosignature-age D (a Go duration, whole seconds, such as 720h) sets
transparency.maxCosignatureAgeSeconds: a witness cosignature older than D
at the evaluation time is not counted. Without it the section has no
maximum age (only cosignatures dated after the evaluation time are left
out).`,
		Example: `  mcpres policy set-transparency policy.json tlog-policy.txt`,
		Args: func(cmd *cobra.Command, args []string) error {
			if remove {
				return cobra.ExactArgs(1)(cmd, args)
			}
			return cobra.ExactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxAge < 0 || maxAge%time.Second != 0 || (remove && maxAge != 0) {
				return cli.Usagef("--max-cosignature-age %v must be a positive whole number of seconds, and goes with a TLOG-POLICY", maxAge)
			}
			var text string
			if !remove {
				b, err := readTLogPolicyFile(args[1])
				if err != nil {
					return cli.Failf("%v", err)
				}
				text = string(b)
			}
			return a.editPolicy(args[0], func(d *trustpolicy.Document) (string, error) {
				if remove {
					d.Transparency = nil
					return "transparency section removed", nil
				}
				d.Transparency = &trustpolicy.Transparency{TLogPolicy: text, MaxCosignatureAgeSeconds: int64(maxAge / time.Second)}
				return "transparency section set from " + args[1], nil
			})
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "remove the transparency section")
	cmd.Flags().DurationVar(&maxAge, "max-cosignature-age", 0, "the oldest a counted witness cosignature may be at the evaluation time (whole seconds; 0: no maximum)")
	return cmd
}

func (a *app) policySetQuorumCommand() *cobra.Command {
	var distinct bool
	cmd := &cobra.Command{
		Use:   "set-quorum FILE K [--distinct-identities=true|false]",
		Short: "Set how many witnesses WITNESSED needs",
		Long: `Set witnesses.quorum to K: WITNESSED then needs K witness keys besides the
primary signer, 1 ≤ K ≤ the number of members. --distinct-identities
sets whether every counted witness needs an identity of its own (left
unchanged when the flag is not given).`,
		Example: `  mcpres policy set-quorum policy.json 2`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil {
				return cli.Usagef("quorum %q is not an integer", args[1])
			}
			setDistinct := cmd.Flags().Changed("distinct-identities")
			return a.editPolicy(args[0], func(d *trustpolicy.Document) (string, error) {
				if err := d.SetQuorum(k); err != nil {
					a.msgs().Errorf("%s: %v; it is unchanged", args[0], err)
					return "", cli.Exit(exitInvalid)
				}
				if setDistinct {
					d.Witnesses.DistinctIdentities = distinct
				}
				return fmt.Sprintf("witness quorum %d of %d members, distinct identities %t", k, len(d.Witnesses.Members), d.Witnesses.DistinctIdentities), nil
			})
		},
	}
	cmd.Flags().BoolVar(&distinct, "distinct-identities", true, "require every counted witness to have its own identity")
	return cmd
}

func (a *app) policyRevokeCommand() *cobra.Command {
	var fingerprint, keyPath, reason, revokedAt string
	cmd := &cobra.Command{
		Use:   "revoke FILE (--fingerprint F | --key PUBFILE) --reason R [--revoked-at T]",
		Short: "Revoke a key: its envelopes fail at every level",
		Long: `Add a revocation. Every envelope signed with the key then fails with
MCP_RES_ATTESTATION_KEY_REVOKED, whatever its claim (SIGNED included) and
whatever its signing time: signing times are asserted by the signer, so an
attacker holding the key could backdate them. --revoked-at is recorded and
reported, never used to accept an attestation. The key may stay listed as a
signer (the revocation wins) or be any other key.`,
		Example: `  mcpres policy revoke policy.json --key release-2026.pub --reason "key compromise" \
      --revoked-at 2026-05-01T00:00:00.000Z`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case fingerprint != "" && keyPath != "":
				return cli.Usagef("--fingerprint and --key exclude each other")
			case fingerprint == "" && keyPath == "":
				return cli.Usagef("one of --fingerprint or --key is required")
			case reason == "":
				return cli.Usagef("--reason is required")
			}
			if err := checkPolicyTime("--revoked-at", revokedAt); err != nil {
				return err
			}
			if keyPath != "" {
				var err error
				if _, fingerprint, err = a.readPolicyPublicKey(keyPath); err != nil {
					return err
				}
			}
			return a.editPolicy(args[0], func(d *trustpolicy.Document) (string, error) {
				d.Revoke(trustpolicy.Revocation{Fingerprint: fingerprint, Reason: reason, RevokedAt: revokedAt})
				what := fmt.Sprintf("revoked key %s (%s)", fingerprint, reason)
				for _, s := range d.Signers {
					if k, err := keyfile.ParsePublicKeyPEM([]byte(s.PublicKey)); err == nil && ed25519strict.SPKIFingerprint(ed25519strict.MarshalSPKI(k)) == fingerprint {
						what += fmt.Sprintf("; signer %q stays listed, its envelopes now fail", s.Name)
					}
				}
				return what, nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&fingerprint, "fingerprint", "", "key fingerprint: lowercase hex SHA-256 of the SPKI DER (see key fingerprint)")
	f.StringVar(&keyPath, "key", "", "public key file to revoke (instead of --fingerprint)")
	f.StringVar(&reason, "reason", "", "why the key is revoked (required)")
	f.StringVar(&revokedAt, "revoked-at", "", "when the key stopped being trustworthy (recorded only)")
	return cmd
}

func (a *app) policyCheckCommand() *cobra.Command {
	var format, evaluatedAt string
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Print every problem of mcpres.trust-policy/v1 policies",
		Long: `Load each FILE with the strict loader and print every problem at once:
unknown members, duplicate keys (by SPKI fingerprint, under any name or
identity), duplicate names, invalid or small-order keys, inverted windows,
witness members that are unknown or lack the witness role or appear twice,
a quorum outside 1..members, malformed or duplicate revocations, subject
patterns that break the pattern language (policy add-signer --help) or
repeat, and every problem of the tlog-policy text. A valid policy's
scoped signers are listed with their subjects.

--format text (default) prints one line per file and one per problem;
--format json prints one object per file: {"schemaVersion", "file",
"valid", "problems": [{"instancePath", "keyword", "message"}]}. Exit status:
0 all valid, 1 a policy has problems, 2 a file is unreadable.

A valid policy whose window has ended or not yet begun at --evaluated-at
(default now) gets a warning on stderr naming the window and that time:
attest verify would refuse every bundle with it then.`,
		Example: `  mcpres policy check policy.json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			at, atText, err := evaluationInstant(evaluatedAt)
			if err != nil {
				return err
			}
			val := validator.New()
			worst := exitValid
			for _, path := range args {
				worst = max(worst, a.checkPolicyFile(val, path, format, at, atText))
			}
			if worst != exitValid {
				return cli.Exit(worst)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&evaluatedAt, "evaluated-at", "", evaluatedAtUsage)
	return cmd
}

func (a *app) checkPolicyFile(val *validator.Validator, path, format string, at datetime.Instant, atText string) int {
	data, err := canonjson.ReadFileBytes(path)
	if err != nil {
		a.printInputInvalid(path, err, format, format == "json")
		return exitInput
	}
	doc, err := canonjson.Parse(data)
	if err != nil {
		a.hints(kindHints(path, data, nil, wantPolicy))
		a.printInputInvalid(path, err, format, format == "json")
		return exitInput
	}
	p, problems := trustpolicy.Load(doc, val)
	if p == nil {
		a.hints(kindHints(path, nil, doc, wantPolicy))
	} else {
		a.warnWindow(path, p, at, atText)
	}
	if format == "json" {
		items := make([]*canonjson.Value, len(problems))
		for i, pr := range problems {
			items[i], _ = canonjson.FromGo(pr)
		}
		a.printJSON(path, canonjson.NewObject(
			canonjson.Member{Key: "schemaVersion", Value: canonjson.NewString(schemaVersionPolicyCheck)},
			canonjson.Member{Key: "valid", Value: canonjson.NewBool(p != nil)},
			canonjson.Member{Key: "problems", Value: canonjson.NewArray(items...)},
		), true)
	} else if p == nil {
		fmt.Fprintf(a.stdout, "%s: INVALID: %d problem(s)\n", path, len(problems))
		for _, pr := range problems {
			fmt.Fprintf(a.stdout, "  %s\n", pr)
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: VALID %s %q version %s: %s\n", path, trustpolicy.SchemaVersionPolicy, p.ID(), p.Version(), policySummary(p))
		for _, s := range p.Document().Signers {
			if s.Subjects != nil {
				fmt.Fprintf(a.stdout, "  signer %q is trusted only for %s\n", s.Name, scopeText(s.Subjects))
			}
		}
		for _, l := range identityLines(p.Document()) {
			fmt.Fprintf(a.stdout, "  %s\n", l)
		}
	}
	if p == nil {
		return exitInvalid
	}
	return exitValid
}

// describePolicy summarizes a valid policy in one line.
func policySummary(p *trustpolicy.Policy) string {
	d := p.Document()
	parts := []string{fmt.Sprintf("%d signer(s)", len(d.Signers)), fmt.Sprintf("%d revocation(s)", len(d.Revocations))}
	if w := d.Witnesses; w != nil {
		parts = append(parts, fmt.Sprintf("witnesses %d of [%s] (distinct identities %t)", w.Quorum, strings.Join(w.Members, ", "), w.DistinctIdentities))
	} else {
		parts = append(parts, "no witnesses rule")
	}
	if t := p.TLogPolicy(); t != nil {
		parts = append(parts, fmt.Sprintf("tlog policy: %d log(s), %d witness(es), quorum %s", len(t.Logs), len(t.Witnesses), t.Quorum))
	}
	return strings.Join(parts, ", ")
}

func (a *app) policyExportCommand() *cobra.Command {
	var format, out string
	var acceptLoss, force bool
	cmd := &cobra.Command{
		Use:   "export FILE --format mcp-res-0.2.0 -o OUT [--accept-loss]",
		Short: "Project a v1 policy to an upstream mcp-res.trust-policy/0.2.0",
		Long: `Write the upstream projection of a v1 policy, for tools that only know
mcp-res.trust-policy/0.2.0: the same id and window, version "<n>.0.0",
trustedSigners = {keyFingerprint, signerIdentity} of every signer, and the
revoked fingerprints.

Upstream has no roles, per-key windows, subject scopes, witness quorum,
identity distinctness or transparency section: it trusts every listed key
as a signer for every subject for the whole window and derives WITNESSED
from any 2 distinct trusted keys. When the projection would weaken a rule of FILE this way,
export refuses (exit 1), writes nothing and lists each rule lost;
--accept-loss writes anyway and lists them on stderr. OUT is written
atomically, never replaces FILE, and replaces an existing file only with
--force.`,
		Example: `  mcpres policy export policy.json --format mcp-res-0.2.0 -o policy.upstream.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != exportFormatUpstream {
				return cli.Usagef("--format must be %s, not %q", exportFormatUpstream, format)
			}
			if out == "" {
				return cli.Usagef("-o/--output is required")
			}
			doc, err := readPolicyFile(args[0])
			if err != nil {
				return err
			}
			val := validator.New()
			p, problems := trustpolicy.Load(doc, val)
			if len(problems) > 0 {
				a.printPolicyProblems(fmt.Sprintf("%s does not load; nothing written:", args[0]), problems)
				return cli.Exit(exitInvalid)
			}
			up, losses, err := p.ExportUpstream(val)
			if err != nil {
				return cli.Failf("%v", err)
			}
			if len(losses) > 0 && !acceptLoss {
				a.msgs().Errorf("exporting %s to %s would weaken it; nothing written (use --accept-loss to write it anyway):", args[0], bundle.SchemaVersionTrustPolicy)
				for _, l := range losses {
					fmt.Fprintf(a.stderr, "  - %s\n", l)
				}
				return cli.Exit(exitInvalid)
			}
			data, err := canonjson.Pretty(up)
			if err != nil {
				return cli.Failf("encoding the policy: %v", err)
			}
			if err := a.writeOutput(out, []string{args[0]}, data, force); err != nil {
				return err
			}
			if len(losses) > 0 {
				a.warnf("%s is weaker than %s (written because of --accept-loss):", out, args[0])
				for _, l := range losses {
					fmt.Fprintf(a.stderr, "  - %s\n", l)
				}
			}
			fmt.Fprintf(a.stdout, "%s: %s %q version %s, %d trusted signer(s), %d revoked key(s)\n", out, bundle.SchemaVersionTrustPolicy,
				p.ID(), up.Get("version").Str, len(up.Get("trustedSigners").Items), len(up.Get("revokedKeyFingerprints").Items))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "target format: "+exportFormatUpstream+" (required)")
	f.StringVarP(&out, "output", "o", "", "where to write the upstream policy (required; - for standard output)")
	f.BoolVar(&acceptLoss, "accept-loss", false, "write even when rules are lost (they are listed on stderr)")
	f.BoolVar(&force, "force", false, "replace an existing output file")
	return cmd
}
