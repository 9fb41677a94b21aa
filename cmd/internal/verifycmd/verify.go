package verifycmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/oci/pulled"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

const verifyLong = `Verify attested conformance bundles fully offline, exactly in the order of
the MCP-RES reference (REFERENCE §5.3, §6): envelope shapes, schema, the core
validity of the embedded bundle (a valid signature over invalid evidence is
invalid), the claim, the trust policy window, then for each envelope a single
strict Ed25519 signature (small-order keys and non-canonical signatures are
rejected), the canonical statement, its binding to the bundle, the signer
identity and key fingerprint, and, with a policy, signing time, revocation
and trust; finally the derived authenticity level.

Without --policy only SIGNED can be derived, and a warning on stderr says
that no signer was trusted. --key PUB --identity ID (repeatable, paired in
order) verifies against an ad-hoc mcpres.trust-policy/v1 policy built from
the flags, checked and evaluated as a policy file is: it trusts exactly those
keys with those identities (SIGNED_WITH_IDENTITY; WITNESSED when every other
given key co-signed), for the trustPolicyId the first envelope names, and a
note in the result names it. --require-level above SIGNED without a trust
source (--policy, --key, or --policy-tuf where offered) is a usage error.
The evaluation time is
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
type Config struct {
	Prog           string    // message prefix and the name in examples: "mcpres", "mcpres-sigstore"
	Stdout, Stderr io.Writer // results on Stdout; summaries, progress and messages on Stderr
	// Now is the evaluation time when --evaluated-at is not given: the
	// binary's one reading of the clock.
	Now func() string
	// PolicyLoaders load policies by schemaVersion beyond the built-in
	// mcp-res.trust-policy/0.2.0 (attest.Options.PolicyLoaders):
	// mcpres-sigstore registers trustpolicy.LoaderWith(rekor.Verifier{}).
	PolicyLoaders map[string]attest.PolicyLoader
	// FetchPolicyTUF, when set, adds --policy-tuf, --policy-repo,
	// --policy-target and --policy-cache: it fetches and verifies the named
	// target and returns its name and bytes.
	FetchPolicyTUF func(root, repo, target, cacheDir string) (name string, data []byte, err error)
	// FetchOCI, when set, adds --oci IMAGE, --plain-http and --timeout: it
	// resolves the image and downloads its MCP-RES referrers.
	FetchOCI func(OCIRequest) (OCISubject, error)
	// ForwardOCI, when set instead, adds the same flags and runs attest
	// verify --oci elsewhere (mcpres runs mcpres-oci, which links the
	// registry client): it is given the flags as --name=value arguments
	// and returns the outcome.
	ForwardOCI func(args []string) error
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

// Command is `attest verify`: the same flags, formats, gates, directory
// arguments and exit codes in every binary that has it.
func Command(c Config) *cobra.Command {
	a := &Printer{Stdout: c.Stdout, Stderr: c.Stderr, Prog: c.Prog, IsTerminal: c.IsTerminal}
	var policyPath, evaluatedAt, format string
	var policyTUF, policyRepo, policyTarget, policyCache string
	var gf GateFlags
	var recursive, withFile bool
	var keys, identities []string
	var subject SubjectFlags
	var oci OCIRequest
	long := verifyLong + "\n\n" + SubjectUsage + c.LongExtra
	if c.FetchOCI != nil || c.ForwardOCI != nil {
		long += "\n\n" + ociLong
	}
	cmd := &cobra.Command{
		Use:   "verify FILE... [--policy POLICY | --key PUB --identity ID ...]",
		Short: "Verify attested bundles offline against an explicit trust policy",
		Long:  long,
		Example: strings.ReplaceAll(`  PROG attest verify bundle.attested.json --policy policy.json
  PROG attest verify --format text --evaluated-at 2026-08-27T18:05:00.000Z bundle.attested.json
  PROG attest verify bundle.attested.json --key producer.pub --identity https://example.org/release
  PROG attest verify --policy policy.json --require-level WITNESSED --artifact dist/server.tar \
      --subject-name io.github.acme/server --subject-version 1.2.0 bundle.attested.json
  PROG attest verify --recursive --require-level WITNESSED --format markdown evidence/ --policy policy.json`, "PROG", c.Prog),
		Args: func(cmd *cobra.Command, args []string) error {
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
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if oci.Image != "" && c.FetchOCI == nil {
				if policyTUF != "" || policyRepo != "" || policyTarget != "" || policyCache != "" {
					return c.usagef("--oci can't be used with --policy-tuf: fetch the policy with '%s policy tuf fetch -o POLICY' first and give --policy POLICY", c.Prog)
				}
				return c.ForwardOCI(flagArgs(cmd.Flags()))
			}
			if err := CheckFormat(format); err != nil {
				return cli.Usage(err)
			}
			if err := gf.CheckValues(); err != nil {
				return cli.Usage(err) // the values first: --require-level PLATINUM says so
			}
			trusted := policyPath != "" || policyTUF != "" || policyRepo != "" || policyTarget != "" || policyCache != "" || len(keys) > 0 || len(identities) > 0
			if !trusted {
				given := append(gf.Given(), subject.Given()...)
				if oci.Image != "" {
					given = append(given, "--oci")
				}
				if len(given) > 0 {
					return c.usagef("%s: a gate needs a trust source (%s): without one no signer is trusted, so nothing can pass", strings.Join(given, ", "), c.trustFlags("or"))
				}
			}
			q, err := subject.Requirement()
			if err != nil {
				return err
			}
			var g Gate
			if trusted {
				if g, err = NewGate(gf, q); err != nil {
					return cli.Usage(err)
				}
			}
			if cmd.Flags().Changed("evaluated-at") && evaluatedAt == "" {
				return c.usagef("--evaluated-at is empty")
			}
			if evaluatedAt == "" {
				evaluatedAt = c.Now()
			} else if !datetime.Valid(evaluatedAt) {
				return c.usagef("--evaluated-at %q is not an RFC 3339 date-time (leap seconds are rejected)", evaluatedAt)
			}
			opts := attest.Options{EvaluatedAt: evaluatedAt, Validator: validator.New(), PolicyLoaders: c.PolicyLoaders}
			if policyTUF != "" || policyRepo != "" || policyTarget != "" || policyCache != "" {
				switch {
				case policyPath != "":
					return c.usagef("--policy can't be used with --policy-tuf (the policy comes from the TUF repository)")
				case policyTUF == "" || policyRepo == "" || policyTarget == "":
					return c.usagef("--policy-tuf, --policy-repo and --policy-target go together")
				}
				name, data, err := c.FetchPolicyTUF(policyTUF, policyRepo, policyTarget, policyCache)
				if err != nil {
					return err
				}
				pol, err := canonjson.Parse(data)
				if err != nil {
					a.Render(InputInvalidReport(name, fmt.Errorf("trust policy: %w", err)), format, false, true)
					return cli.Exit(ExitInput)
				}
				opts.LoadedPolicy = attest.LoadPolicy(pol, opts)
			}
			var pol PolicySource
			if policyPath != "" {
				pol = ReadPolicyOnce(policyPath, opts)
				for _, h := range pol.Hints {
					a.Hint(h)
				}
			}
			if len(keys) > 0 || len(identities) > 0 {
				if policyPath != "" || opts.LoadedPolicy != nil {
					return c.usagef("--key/--identity can't be used with %s: the keys are the trust policy", c.policyFlags())
				}
				if pol.adHoc, err = c.newAdHocPolicy(keys, identities, evaluatedAt, opts.Validator); err != nil {
					return err
				}
			}
			if !g.Active() {
				a.Warnf("no trust policy (%s): no signer was trusted, so at most SIGNED is derived; this verifies signatures and is not a gate", c.trustFlags("or"))
			} else if g.Unbound() && oci.Image == "" && !(len(args) == 1 && pulled.IsFolder(args[0])) {
				a.Warnf("the gate is not bound to an artifact: a bundle about anything the trusted signers signed passes (bind it with %s)", SubjectFlagNames)
			}
			if oci.Image != "" {
				if recursive || withFile {
					return c.usagef("--recursive and --with-file go with FILE and DIR arguments, not --oci")
				}
				if oci.Timeout <= 0 {
					return c.usagef("--timeout must be positive")
				}
				return c.runOCI(a, oci, pol, opts, g, format)
			}
			for _, arg := range args {
				if !pulled.IsFolder(arg) {
					continue
				}
				switch {
				case len(args) > 1 || recursive:
					return c.usagef("%s is a folder written by oci pull (it holds %s): verify it on its own, without --recursive", arg, pulled.IndexName)
				case !g.Active():
					return c.usagef("%s is a folder written by oci pull, verified as attest verify --oci is (a gate bound to the image): give %s", arg, c.trustFlags("or"))
				}
				sub, err := pulledSubject(arg)
				if err != nil {
					a.Render(InputInvalidReport(arg, err), format, withFile, true)
					return cli.Exit(ExitInput)
				}
				return c.runReferrers(a, sub, pol, opts, g, format)
			}
			paths, err := ExpandInputs(args, recursive)
			if err != nil {
				return cli.Fail(err)
			}
			var reads readBuffers
			worst := a.Run(paths, format, withFile, func(path string) Report {
				return reads.verifyReport(path, pol, opts, g)
			})
			if worst != ExitValid {
				return cli.Exit(worst)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&a.Quiet, "quiet", "q", false, QuietUsage)
	gf.Register(f)
	subject.Register(f)
	f.BoolVarP(&recursive, "recursive", "r", false, "include the .json files of subdirectories of DIR arguments")
	f.BoolVar(&withFile, "with-file", false, WithFileUsage)
	f.StringVar(&policyPath, "policy", "", "trust policy file (mcp-res.trust-policy/0.2.0 or mcpres.trust-policy/v1)")
	f.StringVar(&policyPath, "trust-policy", "", "same as --policy (the reference implementation's name)")
	f.StringArrayVar(&keys, "key", nil, "trust this Ed25519 public key (SPKI PEM) with the --identity given in the same position, instead of a policy file (repeatable)")
	f.StringArrayVar(&identities, "identity", nil, "signer identity of the --key in the same position (repeatable)")
	f.StringVar(&evaluatedAt, "evaluated-at", "", "evaluation time as an RFC 3339 date-time (default: now)")
	f.StringVar(&format, "format", "json", "output format: json, text or markdown")
	if c.FetchOCI != nil || c.ForwardOCI != nil {
		f.StringVar(&oci.Image, "oci", "", "verify the MCP-RES artifacts attached to IMAGE in its OCI registry (REGISTRY/REPOSITORY:TAG or @sha256:HEX), bound to its digest, instead of FILE arguments")
		f.BoolVar(&oci.PlainHTTP, "plain-http", false, "with --oci: allow plain HTTP to a registry that is not on loopback (loopback registries always use it)")
		f.DurationVar(&oci.Timeout, "timeout", OCIDefaultTimeout, "with --oci: the most time the registry may take in all")
	}
	if c.FetchPolicyTUF == nil {
		return cmd
	}
	f.StringVar(&policyTUF, "policy-tuf", "", "pinned root metadata (1.root.json) of the TUF repository that distributes the trust policy (run by mcpres-tuf)")
	f.StringVar(&policyRepo, "policy-repo", "", "TUF repository of the trust policy: an http(s) URL or a local directory (with --policy-tuf)")
	f.StringVar(&policyTarget, "policy-target", "", "name of the trust policy in the TUF repository (with --policy-tuf)")
	f.StringVar(&policyCache, "policy-cache", "", "TUF cache directory (default: user cache dir/mcpres/tuf/<sha256 of the root>)")
	return cmd
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

// Warnf prints a warning on Stderr.
func (a *Printer) Warnf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "%s: warning: "+format+"\n", append([]any{a.Prog}, args...)...)
}

// PolicySource is a trust-policy file read and loaded once for a whole
// batch; its read error is reported per input, after that input's own
// read, and its load failure by each verification that reaches the policy
// (attest.LoadPolicy). An ad-hoc policy (--key/--identity) is bound to each
// bundle instead.
type PolicySource struct {
	Path   string
	Loaded *attest.LoadedPolicy
	Err    error
	// Hints say what the file is when it is recognisably not a trust
	// policy (KindHints), for the command to print once.
	Hints []string
	adHoc *adHocPolicy
}

// ReadPolicyOnce reads and loads the policy at path for a whole batch.
func ReadPolicyOnce(path string, opts attest.Options) PolicySource {
	data, err := canonjson.ReadFileBytes(path)
	if err != nil {
		return PolicySource{Path: path, Err: err}
	}
	doc, err := canonjson.Parse(data)
	hints := KindHints(path, data, doc, WantPolicy)
	if err != nil {
		return PolicySource{Path: path, Err: err, Hints: hints}
	}
	return PolicySource{Path: path, Loaded: attest.LoadPolicy(doc, opts), Hints: hints}
}

// VerifyReport verifies one attested bundle and applies the gate.
func VerifyReport(path string, pol PolicySource, opts attest.Options, g Gate) Report {
	data, err := canonjson.ReadFileBytes(path)
	if err != nil {
		return InputInvalidReport(path, err)
	}
	return VerifyData(path, data, pol, opts, g)
}

// readBuffers lend the workers of a batch their read buffers: each file
// is read into the buffer of an earlier one (VerifyData keeps nothing of
// the bytes it is given), not into 20 KB of fresh memory that the
// collector must then reclaim.
type readBuffers struct{ pool sync.Pool }

// maxLentBuffer is the largest read buffer lent again.
const maxLentBuffer = 1 << 20

// verifyReport is VerifyReport reading into a lent buffer.
func (b *readBuffers) verifyReport(path string, pol PolicySource, opts attest.Options, g Gate) Report {
	buf, _ := b.pool.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	defer b.pool.Put(buf)
	data, err := canonjson.ReadFileBytesInto(*buf, path)
	if err != nil {
		return InputInvalidReport(path, err)
	}
	if cap(data) <= maxLentBuffer {
		*buf = data
	}
	return VerifyData(path, data, pol, opts, g)
}

// VerifyData is VerifyReport for an attested bundle's bytes, named path
// in the report (an input that is not a file: a bundle downloaded from a
// registry).
func VerifyData(path string, data []byte, pol PolicySource, opts attest.Options, g Gate) Report {
	doc, err := canonjson.Parse(data)
	if err != nil {
		rep := InputInvalidReport(path, err)
		rep.Hints = KindHints(path, data, nil, WantAttested)
		return rep
	}
	if g.Subject().Active() {
		if why := NoSubject(doc); why != "" {
			return InputInvalidReport(path, fmt.Errorf("a subject check was asked, and this is %s: subject checks apply to attested bundles", why))
		}
	}
	if pol.Path != "" {
		// Read right after the wrapper and before any check (REFERENCE §5.3).
		if pol.Err != nil {
			return InputInvalidReport(pol.Path, fmt.Errorf("trust policy: %w", pol.Err))
		}
		opts.LoadedPolicy = pol.Loaded
	}
	if pol.adHoc != nil {
		opts.LoadedPolicy = pol.adHoc.forBundle(doc, opts)
	}
	r, err := attest.Verify(doc, opts)
	if err != nil {
		return InputInvalidReport(path, err)
	}
	if pol.adHoc != nil {
		r.Evaluation.Notes = append([]string{pol.adHoc.note()}, r.Evaluation.Notes...)
	}
	rep := AttestReport(path, r)
	if !r.Valid {
		rep.Hints = KindHints(path, nil, doc, WantAttested)
	}
	if g.Active() {
		rep = g.Apply(rep, r, data, doc)
	}
	return rep
}

// AttestReport renders a verification result.
func AttestReport(path string, r attest.Result) Report {
	rep := Report{Path: path, Obj: r.Value(), Diags: r.Diagnostics, Detail: r.Detail, Class: r.EvidenceClass}
	ev := r.Evaluation
	policy := "no policy"
	if ev.PolicySupplied {
		policy = "a policy that was not evaluated (an earlier check decided)"
	}
	if ev.PolicyID != nil {
		policy = "policy " + *ev.PolicyID + " version " + *ev.PolicyVersion
	}
	// The lines are built without fmt: every result of a batch builds
	// them, whatever the format. Room for the gate's lines too.
	rep.Text = make([]string, 0, 2+len(ev.Envelopes)+len(ev.Notes)+3)
	if r.Valid {
		rep.Code, rep.Outcome, rep.Level = ExitValid, OutcomeValid, r.Level.String()
		class := ""
		if r.EvidenceClass != "" {
			class = ", evidence class " + r.EvidenceClass
		}
		rep.Text = append(rep.Text, path+": VALID "+rep.Level+class)
	} else {
		rep.Code, rep.Outcome = ExitInvalid, OutcomeInvalid
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
