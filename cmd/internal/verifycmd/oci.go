package verifycmd

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/oci/pulled"
	"github.com/spf13/pflag"
)

// An OCIRequest is attest verify --oci's: the image, how to reach its
// registry, and the private temporary folder (removed afterwards) where
// the bundles are to be written.
type OCIRequest struct {
	Image     string
	PlainHTTP bool
	Timeout   time.Duration
	Dir       string
}

// An OCISubject is an image resolved to its digest and the MCP-RES
// referrers found for it, as Config.FetchOCI returns them (package oci,
// plugged in by cmd/mcpres: verifycmd links no network).
type OCISubject struct {
	// Image is the reference given; Digest the manifest digest it
	// resolved to (sha256:HEX), which every bundle must be about.
	Image, Digest string
	// Via says how the referrers were found ("referrers API", "referrers
	// tag schema").
	Via string
	// Referrers are the MCP-RES referrers in the registry's order.
	Referrers []OCIReferrer
	// Notes are said once, after the results (a truncated listing).
	Notes []string
	// Pulled is the folder written by oci pull the referrers were read
	// from, offline ("" for a registry).
	Pulled string
}

// pulledSubject is a folder written by oci pull as the referrers of the
// image it records: each bundle bound to the image digest of the pull,
// read and checked against the index when it is verified. A folder whose
// files and index disagree is refused whole.
func pulledSubject(dir string) (OCISubject, error) {
	f, err := pulled.Read(dir)
	if err != nil {
		return OCISubject{}, err
	}
	sub := OCISubject{Image: f.Image, Digest: f.SubjectDigest, Pulled: dir}
	for i, e := range f.Entries {
		r := OCIReferrer{Name: f.Name(i)}
		if e.Err != "" {
			r.Err = fmt.Errorf("not pulled: %s", e.Err)
		} else {
			r.Read = func() ([]byte, error) { return f.Bundle(i) }
		}
		sub.Referrers = append(sub.Referrers, r)
	}
	return sub, nil
}

// An OCIReferrer is one referrer: its manifest's digest reference and the
// file in OCIRequest.Dir holding its bundle (digest checked), or why it
// could not be used.
type OCIReferrer struct {
	Name string
	Path string
	Err  error
	// Read, when not nil, returns the bundle's bytes instead of reading
	// Path (a pulled folder's bundle, checked against its index).
	Read func() ([]byte, error)
}

// OCIDefaultTimeout is --timeout's default with --oci.
const OCIDefaultTimeout = 2 * time.Minute

// runOCI is attest verify --oci: every referrer of the image is verified
// with the gate bound to the image's digest, and the command passes when
// at least one referrer passes the gate. A referrer that cannot be read
// is reported (INPUT_INVALID) and does not stop the others; none passing,
// or none found, exits 1.
func (c Config) runOCI(a *Printer, req OCIRequest, pol PolicySource, opts attest.Options, g Gate, format string) error {
	dir, err := os.MkdirTemp("", "mcpres-oci-")
	if err != nil {
		return cli.Failf("a folder for the bundles: %v", err)
	}
	defer os.RemoveAll(dir)
	req.Dir = dir
	sub, err := c.FetchOCI(req)
	if err != nil {
		return cli.Failf("%v", err)
	}
	return c.runReferrers(a, sub, pol, opts, g, format)
}

// runReferrers verifies every referrer of sub with the gate bound to the
// image's digest: the verdict of attest verify --oci and of a folder
// written by oci pull. At least one referrer must pass.
func (c Config) runReferrers(a *Printer, sub OCISubject, pol PolicySource, opts attest.Options, g Gate, format string) error {
	g = g.WithImage(sub.Image, sub.Digest)
	in := Inputs{Many: true}
	byName := make(map[string]OCIReferrer, len(sub.Referrers))
	for _, r := range sub.Referrers {
		if _, dup := byName[r.Name]; dup {
			continue
		}
		byName[r.Name] = r
		in.add(r.Name)
	}
	var passed atomic.Int64
	a.Unit = "referrers"
	a.Run(in, format, true, func(name string) Report {
		r := byName[name]
		read := r.Read
		if read == nil {
			read = func() ([]byte, error) { return canonjson.ReadFileBytes(r.Path) }
		}
		var rep Report
		if r.Err != nil {
			rep = InputInvalidReport(name, fmt.Errorf("oci: %w", r.Err))
		} else if data, err := read(); err != nil {
			rep = InputInvalidReport(name, err)
		} else {
			rep = VerifyData(name, data, pol, opts, g)
		}
		if rep.Code == ExitValid {
			passed.Add(1)
		}
		return rep
	})
	n, k := in.Len(), passed.Load()
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
	lines := append(append([]string{line}, sub.Notes...), verdict)
	for _, l := range lines {
		switch format {
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
least one passes the gate; none, or no referrer at all, exits 1. The
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
