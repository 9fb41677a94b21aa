package verifycmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/oci/pulled"
	"github.com/spf13/pflag"
)

// An OCIRequest is attest verify --oci's: the image and how to reach its
// registry.
type OCIRequest struct {
	Image     string
	PlainHTTP bool
	Timeout   time.Duration
}

// An OCISubject is an image resolved to its digest, which every bundle
// must be about, and what its referrers' listing says (package oci,
// plugged in by cmd/mcpres-oci: verifycmd links no network).
type OCISubject struct {
	// Image is the reference given; Digest the manifest digest it
	// resolved to (sha256:HEX).
	Image, Digest string
	// Via says how the referrers were found ("referrers API", "referrers
	// tag schema").
	Via string
	// Notes are said once, after the results (a flood, a listing cut).
	Notes []string
	// Pulled is the folder written by oci pull the referrers were read
	// from, offline ("" for a registry).
	Pulled string
}

// An OCIReferrer is one MCP-RES referrer: its manifest's digest reference
// and its bundle's bytes (digest checked), or why it could not be used.
type OCIReferrer struct {
	Name string
	Data []byte
	// Sigstore are the Sigstore bundles the referrer carries beside its
	// attested bundle (keyless signatures' material).
	Sigstore [][]byte
	Err      error
}

// An OCIFetch resolves req's image, calls resolved with the image and its
// digest before anything else, then hands over each MCP-RES referrer in
// turn, in memory, one bundle at a time (each is verified before the next
// is downloaded), and returns what the listing says.
type OCIFetch func(req OCIRequest, resolved func(OCISubject) error, each func(OCIReferrer)) (OCISubject, error)

// OCIDefaultTimeout is --timeout's default with --oci.
const OCIDefaultTimeout = 2 * time.Minute

// runOCI is attest verify --oci: every referrer of the image is verified
// as it arrives, with the gate bound to the image's digest, and the
// command passes when at least one referrer passes the gate. A referrer
// that cannot be read is reported (INPUT_INVALID) and does not stop the
// others; none passing, or none found, exits 1. Nothing is written to
// disk.
func (c Config) runOCI(a *Printer, req OCIRequest, s *session, format string) error {
	var run *referrerRun
	sub, err := c.FetchOCI(req, func(sub OCISubject) error {
		var err error
		run, err = newReferrerRun(a, s, sub, format)
		return err
	}, func(r OCIReferrer) { run.add(r) })
	if err != nil {
		return cli.Failf("%v", err)
	}
	if run == nil { // resolved never called: the fetch is broken
		return cli.Failf("oci: %s was not resolved", req.Image)
	}
	run.sub.Via, run.sub.Notes = sub.Via, sub.Notes
	return run.finish()
}

// runPulled verifies a folder written by oci pull exactly as runOCI
// verifies the image it was pulled from: each bundle bound to the image
// digest its index records, read and checked against the index when it is
// verified. A folder whose files and index disagree is refused whole
// (exit 2).
func (c Config) runPulled(a *Printer, dir string, s *session, format string, withFile bool) error {
	f, err := pulled.Read(dir)
	if err != nil {
		a.Render(InputInvalidReport(dir, err), format, withFile, true)
		return cli.Exit(ExitInput)
	}
	run, err := newReferrerRun(a, s, OCISubject{Image: f.Image, Digest: f.SubjectDigest, Pulled: dir}, format)
	if err != nil {
		return err
	}
	for i, e := range f.Entries {
		r := OCIReferrer{Name: f.Name(i)}
		if e.Err != "" {
			r.Err = fmt.Errorf("not pulled: %s", e.Err)
		} else {
			if r.Data, r.Err = f.Bundle(i); r.Err == nil {
				r.Sigstore, r.Err = f.Sigstore(i)
			}
		}
		run.add(r)
	}
	return run.finish()
}

// A referrerRun renders the referrers of one image in turn and counts
// those that pass the gate bound to its digest.
type referrerRun struct {
	a       *Printer
	s       *session
	sub     OCISubject
	format  string
	seen    map[string]bool
	summary batchSummary
	passed  int
}

func newReferrerRun(a *Printer, s *session, sub OCISubject, format string) (*referrerRun, error) {
	bound, err := s.withImage(sub.Image, sub.Digest)
	if err != nil {
		return nil, err
	}
	a.Unit = "referrers"
	return &referrerRun{a: a, s: bound, sub: sub, format: format, seen: map[string]bool{}}, nil
}

// add verifies one referrer and renders its result (a name seen before,
// one bundle listed twice, is verified once).
func (r *referrerRun) add(ref OCIReferrer) {
	if r.seen[ref.Name] {
		return
	}
	r.seen[ref.Name] = true
	var rep Report
	if ref.Err != nil {
		rep = InputInvalidReport(ref.Name, fmt.Errorf("oci: %w", ref.Err))
	} else {
		rep = r.s.verifyWith(ref.Name, ref.Data, &ref.Sigstore, nil)
	}
	if rep.Code == ExitValid {
		r.passed++
	}
	r.a.Render(rep, r.format, true, r.summary.files == 0)
	r.summary.add(rep)
}

// finish prints the summary and the verdict on the image: passed when at
// least one referrer passed.
func (r *referrerRun) finish() error {
	a, sub, n, k := r.a, r.sub, r.summary.files, r.passed
	if n > 0 {
		a.summary(r.summary, r.format)
	}
	line := fmt.Sprintf("oci: %s is %s; %d MCP-RES %s found through the %s", sub.Image, sub.Digest, n, plural(n, "referrer", "referrers"), sub.Via)
	if sub.Pulled != "" {
		line = fmt.Sprintf("oci: %s holds %d MCP-RES %s of %s, pulled when it was %s (%s)", sub.Pulled, n, plural(n, "referrer", "referrers"), sub.Image, sub.Digest, pulled.IndexName)
	}
	verdict := fmt.Sprintf("gate: passed: %d of %d %s bound to %s passed", k, n, plural(n, "referrer", "referrers"), sub.Digest)
	if k == 0 {
		verdict = "gate: FAILED: no MCP-RES referrer of " + sub.Image + " passed"
		if n == 0 {
			verdict = "gate: FAILED: " + sub.Image + " has no MCP-RES referrer"
		}
	}
	for _, l := range append(append([]string{line}, sub.Notes...), verdict) {
		switch r.format {
		case "json":
			fmt.Fprintln(a.Stderr, a.Prog+": "+l)
		case "markdown":
			fmt.Fprintln(a.Stdout, "\n"+mdCell(l))
		default:
			fmt.Fprintln(a.Stdout, l)
		}
	}
	if k == 0 {
		return cli.Exit(ExitInvalid)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ociLong is the help of --oci.
var ociLong = strings.TrimSpace(`
With --oci IMAGE (REGISTRY/REPOSITORY:TAG or @sha256:HEX) the inputs are
the MCP-RES artifacts attached to the image in its registry (mcpres oci
attach): IMAGE is resolved to its manifest digest, its referrers are found
(the referrers API, or the referrers tag schema on registries without it),
and each bundle is downloaded, its digest checked, and verified with the
gate bound to that digest: a valid bundle about another subject fails the
gate with ` + attest.CodeSubjectMismatch + `. Every referrer gets a result
(its file member is its manifest reference), and the command passes when at
least one passes the gate; none, or no referrer at all, exits 1. Each bundle is verified as it arrives, in memory, before the next is
downloaded; nothing is written to disk. The
registry is the only network used (HTTPS; plain HTTP to loopback
registries, elsewhere with --plain-http; credentials from the Docker
configuration); verification itself is offline.`)

// flagArgs is the command line of the flags given, one --name=value per
// value (so that no value is taken for a flag), for ForwardOCI.
func flagArgs(fs *pflag.FlagSet) []string {
	var args []string
	fs.Visit(func(f *pflag.Flag) {
		v := f.Value
		for {
			u, ok := v.(interface{ Unwrap() pflag.Value })
			if !ok {
				break
			}
			v = u.Unwrap()
		}
		if sv, ok := v.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}
