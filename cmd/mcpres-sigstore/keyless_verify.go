package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	cmdcli "github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyless"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
)

const keylessVerifyLong = `Verify an attested bundle whose envelopes are keyless signatures, offline,
against a policy with identity signers (docs/keyless.md).

Each Sigstore bundle (--sigstore-bundle, repeatable; default FILE.sigstore.json)
is verified with sigstore-go against TRUSTED_ROOT (--trusted-root, which
must be the file the policy names by SHA-256): an RFC 3161 timestamp from a
trusted authority, inside the certificate's validity, the certificate
chained to a trusted Fulcio CA at that time, the signature under the
certificate key (and SCTs when the trusted root lists CT logs), an identity
signer whose issuer, identity and extensions match the certificate, and the
envelope of FILE carrying that signature under that key with the
certificate's identity. Each failure has its own diagnostic
(MCPRES_KEYLESS_…, exit 1). The certified keys then stand for their
identity signers, with the same roles, subjects and windows, and FILE is
verified as attest verify does (levels, witnesses, transparency): a
certificate gives SIGNED_WITH_IDENTITY at most by itself. The gate is
attest verify's: a PASS result, SIGNED_WITH_IDENTITY, and a subject
(--subject-digest, --subject-name, --subject-version, or --no-subject-unsafe).

Nothing is fetched: no TUF, no network.`

func (a *app) keylessVerifyCommand() *cobra.Command {
	var policyPath, rootPath, evaluatedAt string
	var sbPaths []string
	var q attest.SubjectRequirement
	var noSubject bool
	cmd := &cobra.Command{
		Use:   "verify-keyless FILE... --policy POLICY --trusted-root TRUSTED_ROOT [--sigstore-bundle SB]... [--evaluated-at T]",
		Short: "Verify keyless signatures (certificate, timestamp, identity) offline, then the attested bundle",
		Long:  keylessVerifyLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if policyPath == "" || rootPath == "" {
				return cmdcli.Usagef("--policy and --trusted-root are required")
			}
			if evaluatedAt == "" {
				evaluatedAt = verifycmd.NowMillis()
			} else if !datetime.Valid(evaluatedAt) {
				return cmdcli.Usagef("--evaluated-at %q is not an RFC 3339 date-time", evaluatedAt)
			}
			if len(sbPaths) > 0 && len(args) > 1 {
				return cmdcli.Usagef("--sigstore-bundle goes with one FILE; with several, each FILE's is FILE.sigstore.json")
			}
			gate := attest.Gate{Subject: q, NoSubjectUnsafe: noSubject}
			if err := gate.Check(); err != nil {
				return cmdcli.Usagef("%v", err)
			}
			return a.verifyKeyless(args, policyPath, rootPath, evaluatedAt, sbPaths, gate)
		},
	}
	f := cmd.Flags()
	f.StringVar(&policyPath, "policy", "", "the mcpres.trust-policy/v1 policy with identity signers")
	f.StringVar(&rootPath, "trusted-root", "", "the Sigstore trusted_root.json the policy names by SHA-256")
	f.StringArrayVar(&sbPaths, "sigstore-bundle", nil, "a Sigstore bundle of one of FILE's envelopes (repeatable; default FILE.sigstore.json)")
	f.StringVar(&evaluatedAt, "evaluated-at", "", "evaluation time (RFC 3339; default now)")
	f.StringArrayVar(&q.Digests, "subject-digest", nil, "the gate: the subject digest must be this sha256:HEX (repeatable: any of them)")
	f.StringVar(&q.Name, "subject-name", "", "the gate: the subject name must be this")
	f.StringVar(&q.Version, "subject-version", "", "the gate: the subject version must be this")
	f.BoolVar(&noSubject, "no-subject-unsafe", false, "the gate is bound to no artifact: any subject the policy's signers signed passes")
	return cmd
}

// Bounds on the files verify-keyless reads (regular files only).
const (
	maxKeylessInput = 64 << 20 // an attested bundle
	maxMaterialFile = 1 << 20  // a trusted root or a Sigstore bundle
)

// verifyKeyless verifies each FILE with the material of one policy and
// trusted root, read and parsed once; the exit status is the worst.
func (a *app) verifyKeyless(paths []string, policyPath, rootPath, at string, sbPaths []string, gate attest.Gate) error {
	_, pdoc, err := canonjson.ReadFile(policyPath)
	if err != nil {
		return cmdcli.Failf("--policy %s: %v", policyPath, err)
	}
	p, problems := trustpolicy.Load(pdoc, nil)
	if problems != nil {
		return cmdcli.Failf("--policy %s does not load: %s", policyPath, problems[0])
	}
	rootData, err := regularfile.ReadFile(rootPath, maxMaterialFile)
	if err != nil {
		return cmdcli.Failf("--trusted-root: %v", err)
	}
	m, err := keyless.NewMaterial(p.Document(), rootData)
	if err != nil {
		var f *keyless.Failure
		if errors.As(err, &f) {
			fmt.Fprintf(a.stdout, "%s: INVALID %s\n", rootPath, err)
			return cmdcli.Exit(exitInvalid)
		}
		return cmdcli.Failf("%v", err)
	}
	worst := exitValid
	for _, path := range paths {
		sbs := sbPaths
		if len(sbs) == 0 {
			sbs = []string{path + ".sigstore.json"}
		}
		worst = max(worst, a.verifyKeylessOne(m, path, at, sbs, gate))
	}
	if worst != exitValid {
		return cmdcli.Exit(worst)
	}
	return nil
}

// verifyKeylessOne verifies one attested bundle and prints its result
// line; it returns its exit status.
func (a *app) verifyKeylessOne(m *keyless.Material, path, at string, sbPaths []string, gate attest.Gate) int {
	data, err := regularfile.ReadFile(path, maxKeylessInput)
	if err != nil {
		a.msgs().Errorf("%s: %v", path, err)
		return exitInput
	}
	wrapper, err := canonjson.Parse(data)
	if err != nil {
		a.msgs().Errorf("%s: %v", path, err)
		return exitInput
	}
	var certs []*keyless.Certification
	for _, sb := range sbPaths {
		data, err := regularfile.ReadFile(sb, maxMaterialFile)
		if err != nil {
			a.msgs().Errorf("%s: Sigstore bundle: %v", path, err)
			return exitInput
		}
		c, err := m.Certify(data, wrapper)
		if err != nil {
			return a.keylessFailed(path, fmt.Errorf("%s: %w", sb, err))
		}
		certs = append(certs, c)
	}
	resolved, err := m.Resolve(certs)
	if err != nil {
		a.msgs().Errorf("%s: %v", path, err)
		return exitInput
	}
	v, err := attest.NewVerifier(attest.VerifierOptions{Policy: trustpolicy.Open(resolved.Value(), trustpolicy.OpenOptions{}), EvaluatedAt: at, Gate: gate})
	if err != nil {
		a.msgs().Errorf("%v", err)
		return exitInput
	}
	r, verdict, err := v.Verify(wrapper)
	if err != nil {
		a.msgs().Errorf("%s: %v", path, err)
		return exitInput
	}
	obj := r.Value()
	items := make([]*canonjson.Value, len(certs))
	for i, c := range certs {
		items[i], _ = canonjson.FromGo(keylessItem{Envelope: int64(c.Envelope), Signer: c.Signer, Identity: c.Identity, Issuer: c.Issuer,
			Timestamp: c.Timestamp.UTC().Format(time.RFC3339Nano)})
	}
	obj.Set("keyless", canonjson.NewArray(items...))
	obj = canonjson.NewObject(append([]canonjson.Member{{Key: "file", Value: canonjson.NewString(path)}}, obj.Members...)...)
	line, err := canonjson.Compact(obj)
	if err != nil {
		a.msgs().Errorf("%s: %v", path, err)
		return exitInput
	}
	fmt.Fprintf(a.stdout, "%s\n", line)
	if !verdict.Passed {
		for _, c := range verdict.Checks {
			if !c.Passed {
				a.msgs().Errorf("%s: gate: %s", path, c.Reason)
			}
		}
		return exitInvalid
	}
	return exitValid
}

// keylessFailed prints a keyless check's diagnostic as a result line and
// returns 1 (2, with the message on stderr, for anything that is not a
// check).
func (a *app) keylessFailed(path string, err error) int {
	var f *keyless.Failure
	if !errors.As(err, &f) {
		a.msgs().Errorf("%s: %v", path, err)
		return exitInput
	}
	fmt.Fprintf(a.stdout, "%s: INVALID %s: %s\n", path, f.Code, err)
	return exitInvalid
}

// keylessItem is one certification in the result's "keyless" member.
type keylessItem struct {
	Envelope  int64  `json:"envelope"`
	Signer    string `json:"signer"`
	Identity  string `json:"identity"`
	Issuer    string `json:"issuer"`
	Timestamp string `json:"timestamp"`
}
