package verifycmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/oci/pulled"
	"github.com/mcpres/mcpres/offline"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const verifyLong = `Verify attested conformance bundles fully offline, exactly in the order of
the MCP-RES reference (REFERENCE §5.3, §6): envelope shapes, schema, the core
validity of the embedded bundle (a valid signature over invalid evidence is
invalid), the claim, the trust policy window, then for each envelope a single
strict Ed25519 signature (small-order keys and non-canonical signatures are
rejected), the canonical statement, its binding to the bundle, the signer
identity and key fingerprint, and, with a policy, signing time, revocation
and trust; finally the derived authenticity level.

With a trust source (--policy, --key, or --policy-tuf where offered) this
is the release gate (attest.Gate), with safe defaults: a bundle passes only
when it verifies, its statement result is PASS (--accept-result names other
results), at least one envelope is by a signer the policy trusts
(SIGNED_WITH_IDENTITY; --require-level raises it, --require-level-unsafe
lowers it by name), and every subject check and --require-evidence-class
holds. The text result opens with PASSED or FAILED and why; the JSON result
keeps the reference's members and adds "result" (the statement's) and
"gate" (every check). A gate with no subject check passes with a warning
that it is not bound to an artifact. Without a trust source only SIGNED can
be derived, a warning on stderr says that no signer was trusted, nothing is
said to pass (the exit status is the validity), and a gate flag is a usage
error; mcpres validate --policy is the reference's validator, whose exit
status ignores the statement result. --key PUB --identity ID (repeatable,
paired in order) verifies against an ad-hoc mcpres.trust-policy/v1 policy
built from the flags (trustpolicy.NewAdHoc), checked and evaluated as a
policy file is: it trusts exactly those keys with those identities
(SIGNED_WITH_IDENTITY; WITNESSED when every other given key co-signed), for
the trustPolicyId the first envelope names, and a note in the result names
it. A folder written by oci pull is verified as --oci verifies the image
(each bundle bound to the image digest its index records; one passing is
enough; a folder changed since the pull is refused). The evaluation time is
--evaluated-at, or now; it is echoed in every result as evaluatedAt, and
every comparison uses exactly that instant. No network is used.

Each result is printed as one JSON object per line (--format json, default):
the reference members valid, diagnostics, schemaErrors,
authenticityClassification, evidenceClass and evaluatedAt, followed by
"evaluation": what was evaluated (policy id and version, and per envelope the
key fingerprint, identity, signature validity, trust, revocation and whether
a transparency reference was only digest-checked, DIGEST_ONLY, or verified
offline against a log of an mcpres.trust-policy/v1 policy, VERIFIED_OFFLINE).

With several inputs or a DIR every JSON result starts with a "file" member,
the path as given or found (--with-file adds it for a single FILE too, so
that a script reads one shape whatever the number of inputs). Results stream out as they are ready, in input
order, in memory that does not grow with the number of files; a summary
follows (on stderr for json). When stderr is a terminal a progress counter
is shown there (--quiet silences it); it is cleared before every result.`

// Config is what differs between the binaries that share attest verify.

// Config is what differs between the binaries that share attest verify.
type Config struct {
	Prog           string    // message prefix and the name in examples: "mcpres", "mcpres-sigstore"
	Stdout, Stderr io.Writer // results on Stdout; summaries, progress and messages on Stderr
	// Now is the evaluation time when --evaluated-at is not given: the
	// binary's one reading of the clock.
	Now func() string
	// KindVerifiers verify transparency proof kinds beyond package
	// offline's own (trustpolicy.OpenOptions.KindVerifiers):
	// mcpres-sigstore passes offline/rekor's verifier.
	KindVerifiers []offline.KindVerifier
	// FetchPolicyTUF, when set, adds --policy-tuf, --policy-repo,
	// --policy-target and --policy-cache: it fetches and verifies the named
	// target and returns its name and bytes.
	FetchPolicyTUF func(root, repo, target, cacheDir string) (name string, data []byte, err error)
	// FetchOCI, when set, adds --oci IMAGE, --plain-http and --timeout: it
	// resolves the image and hands over its MCP-RES referrers (OCIFetch).
	FetchOCI OCIFetch
	// ForwardOCI, when set instead, adds the same flags and runs attest
	// verify --oci elsewhere (mcpres runs mcpres-oci, which links the
	// registry client): it is given the flags as --name=value arguments
	// and returns the outcome.
	ForwardOCI func(args []string) error
	// Keyless, when set, adds --trusted-root, --sigstore-bundle and the
	// --certificate-* flags and verifies keyless signatures: given a v1
	// policy with identity signers and the bytes of a Sigstore trusted
	// root, it returns their Certifier (mcpres-sigstore: package keyless).
	Keyless func(policy *trustpolicy.Document, trustedRoot []byte) (Certifier, error)
	// ForwardKeyless, when set instead, adds the same flags and, when one
	// is given, runs attest verify elsewhere (mcpres runs mcpres-sigstore,
	// which links sigstore-go): it is given the flags as --name=value
	// arguments, then "--" and the FILE arguments.
	ForwardKeyless func(args []string) error
	// LongExtra is appended to the long help.
	LongExtra string
	// IsTerminal replaces the terminal test of Stdout and Stderr (tests;
	// Printer.IsTerminal).
	IsTerminal func(io.Writer) bool
}

// WithFileUsage is the help of --with-file on the batch commands.
const WithFileUsage = `add the input path as a first "file" member of each JSON result also for a single FILE (several inputs or a DIR always have it)`

func (c Config) usagef(format string, args ...any) error {
	return cli.Usage(fmt.Errorf(format, args...))
}

// verifyFlags are attest verify's flags.
type verifyFlags struct {
	policyPath, evaluatedAt, format                  string
	policyTUF, policyRepo, policyTarget, policyCache string
	gate                                             GateFlags
	subject                                          SubjectFlags
	recursive, withFile                              bool
	keys, identities                                 []string
	oci                                              OCIRequest
	keyless                                          keylessFlags
	// pulled is set for a single argument that is a folder written by
	// oci pull (bound to its image, so never "not bound").
	pulled bool
}

// tuf says whether a TUF flag was given.
func (f *verifyFlags) tuf() bool {
	return f.policyTUF != "" || f.policyRepo != "" || f.policyTarget != "" || f.policyCache != ""
}

// trusted says whether a trust source was given.
func (f *verifyFlags) trusted() bool {
	return f.policyPath != "" || f.tuf() || len(f.keys) > 0 || len(f.identities) > 0 || f.keyless.adHoc()
}

func (f *verifyFlags) register(fs *pflag.FlagSet, c Config, a *Printer) {
	fs.BoolVarP(&a.Quiet, "quiet", "q", false, QuietUsage)
	f.gate.Register(fs)
	f.subject.Register(fs)
	fs.BoolVarP(&f.recursive, "recursive", "r", false, "include the .json files of subdirectories of DIR arguments")
	fs.BoolVar(&f.withFile, "with-file", false, WithFileUsage)
	fs.StringVar(&f.policyPath, "policy", "", "trust policy file (mcp-res.trust-policy/0.2.0 or mcpres.trust-policy/v1)")
	fs.StringVar(&f.policyPath, "trust-policy", "", "same as --policy (the reference implementation's name)")
	fs.StringArrayVar(&f.keys, "key", nil, "trust this Ed25519 public key (SPKI PEM) with the --identity given in the same position, instead of a policy file (repeatable)")
	fs.StringArrayVar(&f.identities, "identity", nil, "signer identity of the --key in the same position (repeatable)")
	fs.StringVar(&f.evaluatedAt, "evaluated-at", "", "evaluation time as an RFC 3339 date-time (default: now)")
	fs.StringVar(&f.format, "format", "json", "output format: json, text or markdown")
	if c.FetchOCI != nil || c.ForwardOCI != nil {
		fs.StringVar(&f.oci.Image, "oci", "", "verify the MCP-RES artifacts attached to IMAGE in its OCI registry (REGISTRY/REPOSITORY:TAG or @sha256:HEX), bound to its digest, instead of FILE arguments")
		fs.BoolVar(&f.oci.PlainHTTP, "plain-http", false, "with --oci: allow plain HTTP to a registry that is not on loopback (loopback registries always use it)")
		fs.DurationVar(&f.oci.Timeout, "timeout", OCIDefaultTimeout, "with --oci: the most time the registry may take in all")
	}
	if c.Keyless != nil || c.ForwardKeyless != nil {
		f.keyless.register(fs)
	}
	if c.FetchPolicyTUF != nil {
		fs.StringVar(&f.policyTUF, "policy-tuf", "", "pinned root metadata (1.root.json) of the TUF repository that distributes the trust policy (run by mcpres-tuf)")
		fs.StringVar(&f.policyRepo, "policy-repo", "", "TUF repository of the trust policy: an http(s) URL or a local directory (with --policy-tuf)")
		fs.StringVar(&f.policyTarget, "policy-target", "", "name of the trust policy in the TUF repository (with --policy-tuf)")
		fs.StringVar(&f.policyCache, "policy-cache", "", "TUF cache directory (default: user cache dir/mcpres/tuf/<sha256 of the root>)")
	}
}

// Command is `attest verify`: the same flags, formats, gates, directory
// arguments and exit codes in every binary that has it. It parses, builds
// one verifier (newSession) and renders: every decision is attest's.
func Command(c Config) *cobra.Command {
	a := &Printer{Stdout: c.Stdout, Stderr: c.Stderr, Prog: c.Prog, IsTerminal: c.IsTerminal}
	var f verifyFlags
	long := verifyLong + "\n\n" + SubjectUsage + c.LongExtra
	if c.FetchOCI != nil || c.ForwardOCI != nil {
		long += "\n\n" + ociLong
	}
	if c.Keyless != nil || c.ForwardKeyless != nil {
		long += "\n\n" + keylessLong
	}
	cmd := &cobra.Command{
		Use:   "verify FILE... [--policy POLICY | --key PUB --identity ID ...]",
		Short: "Verify attested bundles offline against an explicit trust policy",
		Long:  long,
		Example: strings.ReplaceAll(`  PROG attest verify bundle.attested.json --policy policy.json --artifact dist/server.tar
  PROG attest verify --format text --evaluated-at 2026-08-27T18:05:00.000Z bundle.attested.json
  PROG attest verify bundle.attested.json --key producer.pub --identity https://example.org/release
  PROG attest verify --policy policy.json --require-level WITNESSED --artifact dist/server.tar \
      --subject-name io.github.acme/server --subject-version 1.2.0 bundle.attested.json
  PROG attest verify --recursive --require-level WITNESSED --format markdown evidence/ --policy policy.json`, "PROG", c.Prog),
		Args: ociArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd, a, &f, args) },
	}
	f.register(cmd.Flags(), c, a)
	return cmd
}

// ociArgs checks the arguments against --oci: none with it, at least one
// without it, and the registry flags only with it.
func ociArgs(cmd *cobra.Command, args []string) error {
	if cmd.Flags().Changed("oci") {
		if len(args) > 0 {
			return fmt.Errorf("FILE arguments can't be used with --oci (the inputs are the image's referrers)")
		}
		return nil
	}
	for _, f := range []string{"plain-http", "timeout"} {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("--%s goes with --oci", f)
		}
	}
	return cobra.MinimumNArgs(1)(cmd, args)
}

// run is attest verify once its flags are parsed: the usage rules, one
// session (policy, gate, verifier), then the inputs.
func (c Config) run(cmd *cobra.Command, a *Printer, f *verifyFlags, args []string) error {
	if err := c.checkKeylessUsage(f, args); err != nil {
		return err
	}
	if f.keyless.given() && c.Keyless == nil {
		return c.ForwardKeyless(append(append(flagArgs(cmd.Flags()), "--"), args...))
	}
	if f.oci.Image != "" && c.FetchOCI == nil {
		if f.tuf() {
			return c.usagef("--oci can't be used with --policy-tuf: fetch the policy with '%s policy tuf fetch -o POLICY' first and give --policy POLICY", c.Prog)
		}
		return c.ForwardOCI(flagArgs(cmd.Flags()))
	}
	if err := CheckFormat(f.format); err != nil {
		return cli.Usage(err)
	}
	if err := c.checkUsage(f, args); err != nil {
		return err
	}
	at, err := c.evaluationTime(cmd, f.evaluatedAt)
	if err != nil {
		return err
	}
	f.pulled = len(args) == 1 && pulled.IsFolder(args[0])
	s, err := c.newSession(a, f, at)
	if err != nil {
		return err
	}
	s.noText = f.format != "text"
	switch {
	case f.oci.Image != "":
		return c.runOCI(a, f.oci, s, f.format)
	case f.pulled:
		return c.runPulled(a, args[0], s, f.format, f.withFile)
	}
	paths, err := ExpandInputs(args, f.recursive)
	if err != nil {
		return cli.Fail(err)
	}
	var reads readBuffers
	if worst := a.Run(paths, f.format, f.withFile, func(path string) Report { return reads.verifyReport(path, s) }); worst != ExitValid {
		return cli.Exit(worst)
	}
	return nil
}

// checkUsage applies the rules between flags and arguments: the gate
// flags' values first, then that a gate (any gate flag, --oci, a pulled
// folder) needs a trust source, and the forms of --oci and pulled
// folders.
func (c Config) checkUsage(f *verifyFlags, args []string) error {
	if err := f.gate.CheckValues(); err != nil {
		return cli.Usage(err) // --require-level PLATINUM says so first
	}
	if !f.trusted() {
		given := append(f.gate.Given(), f.subject.Given()...)
		if f.oci.Image != "" {
			given = append(given, "--oci")
		}
		if len(given) > 0 {
			return c.usagef("%s: a gate needs a trust source (%s): without one no signer is trusted, so nothing can pass", strings.Join(given, ", "), c.trustFlags("or"))
		}
	}
	if f.oci.Image != "" {
		switch {
		case f.recursive || f.withFile:
			return c.usagef("--recursive and --with-file go with FILE and DIR arguments, not --oci")
		case f.oci.Timeout <= 0:
			return c.usagef("--timeout must be positive")
		}
	}
	for _, arg := range args {
		if !pulled.IsFolder(arg) {
			continue
		}
		switch {
		case len(args) > 1 || f.recursive:
			return c.usagef("%s is a folder written by oci pull (it holds %s): verify it on its own, without --recursive", arg, pulled.IndexName)
		case !f.trusted():
			return c.usagef("%s is a folder written by oci pull, verified as attest verify --oci is (a gate bound to the image): give %s", arg, c.trustFlags("or"))
		}
	}
	return nil
}

// evaluationTime is --evaluated-at, checked, or the binary's now.
func (c Config) evaluationTime(cmd *cobra.Command, at string) (string, error) {
	switch {
	case cmd.Flags().Changed("evaluated-at") && at == "":
		return "", c.usagef("--evaluated-at is empty")
	case at == "":
		return c.Now(), nil
	case !datetime.Valid(at):
		return "", c.usagef("--evaluated-at %q is not an RFC 3339 date-time (leap seconds are rejected)", at)
	}
	return at, nil
}

// policyFlags names the policy flags of this binary: "--policy or
// --policy-tuf", or "--policy" where TUF is not offered.
func (c Config) policyFlags() string {
	if c.FetchPolicyTUF == nil {
		return "--policy"
	}
	return "--policy or --policy-tuf"
}

// trustFlags names every trust source of this binary, the last joined
// with conj: "--policy, --policy-tuf or --key".
func (c Config) trustFlags(conj string) string {
	if c.FetchPolicyTUF == nil {
		return "--policy " + conj + " --key"
	}
	return "--policy, --policy-tuf " + conj + " --key"
}

// AttestReport renders a verification result.
func AttestReport(path string, r attest.Result) Report {
	return attestReport(path, r, true)
}

// attestReport is AttestReport, with the lines for --format text only
// when text is set (a batch printed as JSON or markdown does not build
// them for every file; Report.Text is then nil).
func attestReport(path string, r attest.Result, text bool) Report {
	rep := Report{Path: path, Obj: r.Value(), Diags: r.Diagnostics, Detail: r.Detail}
	if r.HasEvidenceClass {
		rep.Class = r.EvidenceClass.String()
	}
	if r.Valid {
		rep.Code, rep.Outcome, rep.Level = ExitValid, OutcomeValid, r.Level.String()
	} else {
		rep.Code, rep.Outcome = ExitInvalid, OutcomeInvalid
	}
	if !text {
		return rep
	}
	ev := r.Evaluation
	policy := "no policy"
	if ev.PolicySupplied {
		policy = "a policy that was not evaluated (an earlier check decided)"
	}
	if ev.PolicyID != nil {
		policy = "policy " + *ev.PolicyID + " version " + *ev.PolicyVersion
	}
	// The lines are built without fmt: a batch printed as text builds
	// them for every file. Room for the gate's lines too.
	rep.Text = make([]string, 0, 2+len(ev.Envelopes)+len(ev.Notes)+3)
	if r.Valid {
		class := ""
		if r.HasEvidenceClass {
			class = ", evidence class " + rep.Class
		}
		rep.Text = append(rep.Text, path+": VALID "+rep.Level+class)
	} else {
		rep.Text = append(rep.Text, fmt.Sprintf("%s: INVALID %s: %s", path, strings.Join(r.Diagnostics, ", "), r.Detail))
	}
	keys := "keys"
	if ev.DistinctKeys == 1 {
		keys = "key"
	}
	rep.Text = append(rep.Text, "  evaluated at "+ev.EvaluatedAt+" with "+policy+"; "+strconv.Itoa(ev.DistinctKeys)+" distinct signing "+keys+", counted by SPKI fingerprint")
	for _, e := range ev.Envelopes {
		rep.Text = append(rep.Text, "  envelope "+strconv.Itoa(e.Index)+": key "+e.KeyFingerprint+" identity "+strconv.Quote(e.SignerIdentity)+
			" signature "+okText(e.SignatureValid)+", trusted "+strconv.FormatBool(e.Trusted)+", revoked "+strconv.FormatBool(e.Revoked)+", transparency "+e.Transparency)
	}
	for _, n := range ev.Notes {
		rep.Text = append(rep.Text, "  note: "+n)
	}
	return rep
}

// LevelsStrongestFirst lists the authenticity levels as
// "TRANSPARENCY_RECORDED > … > UNSIGNED_INTEGRITY_ONLY".
func LevelsStrongestFirst() string {
	var names []string
	for l := attest.TransparencyRecorded; l >= attest.UnsignedIntegrityOnly; l-- {
		names = append(names, l.String())
	}
	return strings.Join(names, " > ")
}

// StrongestFirst lists the evidence classes as "GENUINE_RUNTIME > … >
// DOCUMENTED_ONLY".
func StrongestFirst() string {
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

// NowMillis is the current time as an MCP-RES date-time with milliseconds
// (UTC), the default evaluation time.
func NowMillis() string {
	return datetime.Millis(time.Now())
}
