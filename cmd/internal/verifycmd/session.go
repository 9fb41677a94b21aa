package verifycmd

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/keyhints"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/keyfile"
	"github.com/mcpres/mcpres/trustpolicy"
	"github.com/mcpres/mcpres/validator"
)

// A session is one run of attest verify: the verifier built once from the
// trust source, the evaluation time and the gate (attest.Verifier), and
// what the command renders of them.
type session struct {
	v *attest.Verifier
	// gate renders the verifier's gate; its zero value (no trust source)
	// is no gate: results are verified, never said to pass.
	gate Gate
	// policy is the policy file, whose read error is reported for each
	// input, after that input's own read (REFERENCE §5.3).
	policy PolicySource
	// note names an ad-hoc policy, first in every result's notes.
	note string
	// keyless, when set, gives each bundle its own verifier: its keyless
	// signatures certified into the policy.
	keyless *keylessSession
	// noText is set when results are not printed as text: their lines
	// (Report.Text) are not built.
	noText bool
}

// newSession builds the session of f: the policy (a file, TUF, --key
// pairs or none), the gate and the verifier. It prints the warnings that
// concern every input: no trust source, a gate not bound to an artifact.
func (c Config) newSession(a *Printer, f *verifyFlags, at string) (*session, error) {
	val := validator.New()
	open := trustpolicy.OpenOptions{Validator: val, KindVerifiers: c.KindVerifiers}
	s := &session{}
	o := attest.VerifierOptions{EvaluatedAt: at, Validator: val}
	switch {
	case f.tuf():
		lp, err := c.tufPolicy(a, f, open)
		if err != nil {
			return nil, err
		}
		o.Policy = lp
	case f.policyPath != "":
		s.policy, o.Policy = openPolicyFile(a, f.policyPath, open)
	}
	if len(f.keys) > 0 || len(f.identities) > 0 {
		if f.policyPath != "" || f.tuf() {
			return nil, c.usagef("--key/--identity can't be used with %s: the keys are the trust policy", c.policyFlags())
		}
		adHoc, err := c.adHocPolicy(f.keys, f.identities, at, val)
		if err != nil {
			return nil, err
		}
		o.PolicyFor, s.note = adHoc.ForBundle, adHoc.Note()
	}
	if err := c.keylessSession(a, f, s, open, at, &o); err != nil {
		return nil, err
	}
	if f.trusted() {
		q, err := f.subject.Requirement()
		if err != nil {
			return nil, err
		}
		if s.gate, err = NewGate(f.gate, q); err != nil {
			return nil, cli.Usage(err)
		}
		o.Gate = s.gate.g
	} else {
		o.NoPolicyUnsafe = true
		a.Warnf("no trust policy (%s): no signer was trusted, so at most SIGNED is derived; this verifies signatures and is not a gate", c.trustFlags("or"))
	}
	if s.gate.Unbound() && f.oci.Image == "" && !f.pulled {
		a.Warnf("the gate is not bound to an artifact: a bundle about anything the trusted signers signed passes (bind it with %s)", SubjectFlagNames)
	}
	v, err := attest.NewVerifier(o)
	if err != nil {
		return nil, cli.Fail(err)
	}
	s.v = v
	if s.keyless != nil {
		s.keyless.opts = o
	}
	return s, nil
}

// openPolicyFile reads and opens the policy file at path once for the batch,
// printing the hints about what it is when it is not a policy; an
// unreadable file is reported for each input, never "no policy".
func openPolicyFile(a *Printer, path string, open trustpolicy.OpenOptions) (PolicySource, *attest.LoadedPolicy) {
	src := ReadPolicyOnce(path, open)
	for _, h := range src.Hints {
		a.Hint(h)
	}
	if src.Loaded == nil {
		return src, trustpolicy.Unreadable(src.Err)
	}
	return src, src.Loaded
}

// tufPolicy fetches the policy through TUF (the companion verifies it) and
// opens it; a fetched policy that is not JSON is an unreadable input.
func (c Config) tufPolicy(a *Printer, f *verifyFlags, open trustpolicy.OpenOptions) (*attest.LoadedPolicy, error) {
	switch {
	case f.policyPath != "":
		return nil, c.usagef("--policy can't be used with --policy-tuf (the policy comes from the TUF repository)")
	case f.policyTUF == "" || f.policyRepo == "" || f.policyTarget == "":
		return nil, c.usagef("--policy-tuf, --policy-repo and --policy-target go together")
	}
	name, data, err := c.FetchPolicyTUF(f.policyTUF, f.policyRepo, f.policyTarget, f.policyCache)
	if err != nil {
		return nil, err
	}
	doc, err := canonjson.Parse(data)
	if err != nil {
		a.Render(InputInvalidReport(name, fmt.Errorf("trust policy: %w", err)), f.format, false, true)
		return nil, cli.Exit(ExitInput)
	}
	return trustpolicy.Open(doc, open), nil
}

// adHocPolicy reads the --key files (SPKI PEM public keys) and pairs them
// with the --identity values in order (trustpolicy.NewAdHoc). A policy
// that does not load is a usage error naming each problem by its flag.
func (c Config) adHocPolicy(keyPaths, identities []string, at string, val *validator.Validator) (*trustpolicy.AdHoc, error) {
	if len(keyPaths) != len(identities) {
		return nil, c.usagef("--key and --identity go in pairs: %d --key and %d --identity given", len(keyPaths), len(identities))
	}
	signers := make([]trustpolicy.AdHocSigner, len(keyPaths))
	for i, path := range keyPaths {
		pem, err := regularfile.ReadFile(path, keyfile.MaxBytes)
		if err != nil {
			return nil, cli.Fail(fmt.Errorf("--key: %v", err))
		}
		if err := keyfile.CheckKind(pem, keyfile.PEMPublicKey); err != nil {
			return nil, cli.Fail(fmt.Errorf("--key %s: %v", path, keyhints.Word(err, "--key")))
		}
		signers[i] = trustpolicy.AdHocSigner{PublicKeyPEM: pem, Identity: identities[i], Name: path}
	}
	adHoc, problems := trustpolicy.NewAdHoc(signers, at, val)
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = adHocProblem(p, keyPaths)
		}
		return nil, c.usagef("--key/--identity: %s", strings.Join(msgs, "; "))
	}
	return adHoc, nil
}

// adHocProblem says a policy problem in terms of the flags: /signers/N is
// the N+1th --key.
func adHocProblem(p trustpolicy.Problem, keyPaths []string) string {
	var i int
	var rest string
	if n, _ := fmt.Sscanf(p.Path, "/signers/%d%s", &i, &rest); n >= 1 && i >= 0 && i < len(keyPaths) {
		msg := p.Message
		if p.Keyword == "publicKey" {
			msg += " (only Ed25519 public keys are accepted)"
		}
		return fmt.Sprintf("--key %s: %s", keyPaths[i], msg)
	}
	return p.String()
}

// withImage returns the session with its gate bound to the image ref
// whose manifest digest is d (attest verify --oci, a pulled folder).
func (s *session) withImage(ref, d string) (*session, error) {
	c := *s
	c.gate = s.gate.WithImage(ref, d)
	v, err := s.v.WithGate(c.gate.g)
	if err != nil {
		return nil, cli.Fail(err)
	}
	c.v = v
	return &c, nil
}

// PolicySource is a trust-policy file read and opened once for a whole
// batch (trustpolicy.Open); its read error is reported per input, after
// that input's own read, and its load failure by each verification that
// reaches the policy.
type PolicySource struct {
	Path   string
	Loaded *attest.LoadedPolicy
	Err    error
	// Hints say what the file is when it is recognisably not a trust
	// policy (KindHints), for the command to print once.
	Hints []string
}

// ReadPolicyOnce reads and opens the policy at path for a whole batch.
func ReadPolicyOnce(path string, o trustpolicy.OpenOptions) PolicySource {
	data, err := canonjson.ReadFileBytes(path)
	if err != nil {
		return PolicySource{Path: path, Err: err}
	}
	doc, err := canonjson.Parse(data)
	hints := KindHints(path, data, doc, WantPolicy)
	if err != nil {
		return PolicySource{Path: path, Err: err, Hints: hints}
	}
	return PolicySource{Path: path, Loaded: trustpolicy.Open(doc, o), Hints: hints}
}

// readBuffers lend the workers of a batch their read buffers and parse
// arenas: each file is read into the buffer of an earlier one, and parsed
// into the tree's memory of an earlier one (canonjson.Arena), not into
// 20 KB and 45 KB of fresh memory that the collector must then reclaim.
// verifyWith keeps nothing of the bytes it is given, and the report keeps
// nothing of the tree (Arena.Keep).
type readBuffers struct{ pool sync.Pool }

// A workspace is what readBuffers lends one file at a time.
type workspace struct {
	buf   []byte
	arena canonjson.Arena
}

// maxLentBuffer is the largest read buffer lent again.
const maxLentBuffer = 1 << 20

// verifyReport verifies the attested bundle at path, read into a lent
// buffer and parsed into a lent arena.
func (b *readBuffers) verifyReport(path string, s *session) Report {
	ws, _ := b.pool.Get().(*workspace)
	if ws == nil {
		ws = new(workspace)
	}
	defer b.pool.Put(ws)
	data, err := canonjson.ReadFileBytesInto(ws.buf, path)
	if err != nil {
		return InputInvalidReport(path, err)
	}
	if cap(data) <= maxLentBuffer {
		ws.buf = data
	}
	rep := s.verifyWith(path, data, nil, &ws.arena)
	rep.Obj = ws.arena.Keep(rep.Obj)
	ws.arena.Reset()
	return rep
}

// verifyData verifies one attested bundle's bytes read from the file at
// path (its keyless material, if any, kept beside it), and renders the
// gate's verdict when there is a gate.
func (s *session) verifyData(path string, data []byte) Report {
	return s.verifyWith(path, data, nil, nil)
}

// verifyWith is verifyData of a bundle named path in the report (a file,
// or a referrer handed over in memory) whose keyless material is
// *material when material is not nil (a referrer's), else read beside
// path. It parses data into arena when arena is not nil: the report may
// then hold parts of the tree until the caller takes it with Keep.
func (s *session) verifyWith(path string, data []byte, material *[][]byte, arena *canonjson.Arena) Report {
	parse := canonjson.Parse
	if arena != nil {
		parse = arena.Parse
	}
	doc, err := parse(data)
	if err != nil {
		rep := InputInvalidReport(path, err)
		rep.Hints = KindHints(path, data, nil, WantAttested)
		return rep
	}
	if s.gate.Subject().Active() {
		if why := NoSubject(doc); why != "" {
			return InputInvalidReport(path, fmt.Errorf("a subject check was asked, and this is %s: subject checks apply to attested bundles", why))
		}
	}
	if s.policy.Err != nil {
		// Read right after the wrapper and before any check (REFERENCE §5.3).
		return InputInvalidReport(s.policy.Path, fmt.Errorf("trust policy: %w", s.policy.Err))
	}
	v, notes := s.v, []string(nil)
	if s.keyless != nil {
		if v, notes, err = s.keyless.verifier(path, doc, material); err != nil {
			return InputInvalidReport(path, err)
		}
	}
	var r attest.Result
	var verdict attest.Verdict
	if s.gate.Active() {
		r, verdict, err = v.Verify(doc)
	} else {
		r, err = v.Check(doc)
	}
	if err != nil {
		return InputInvalidReport(path, err)
	}
	if s.note != "" || notes != nil {
		if s.note != "" {
			notes = append([]string{s.note}, notes...)
		}
		r.Evaluation.Notes = append(notes, r.Evaluation.Notes...)
	}
	rep := attestReport(path, r, !s.noText)
	if !r.Valid {
		rep.Hints = KindHints(path, nil, doc, WantAttested)
	}
	if s.gate.Active() {
		rep = s.gate.Render(rep, r, verdict, data, doc)
	}
	return rep
}

// Warnf prints a warning on Stderr.
func (a *Printer) Warnf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "%s: warning: "+format+"\n", append([]any{a.Prog}, args...)...)
}
