package verifycmd

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpres/mcpres/attest"
)

// An OCIRequest is attest verify --oci's: the image and how to reach its
// registry.
type OCIRequest struct {
	Image     string
	PlainHTTP bool
	Timeout   time.Duration
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
}

// An OCIReferrer is one referrer: its manifest's digest reference and the
// bundle's bytes (digest checked), or why it could not be used.
type OCIReferrer struct {
	Name string
	Data []byte
	Err  error
}

// OCIDefaultTimeout is --timeout's default with --oci.
const OCIDefaultTimeout = 2 * time.Minute

// runOCI is attest verify --oci: every referrer of the image is verified
// with the gate bound to the image's digest, and the command passes when
// at least one referrer passes the gate. A referrer that cannot be read
// is reported (INPUT_INVALID) and does not stop the others; none passing,
// or none found, exits 1.
func (c Config) runOCI(a *Printer, req OCIRequest, pol PolicySource, opts attest.Options, g Gate, format string) error {
	sub, err := c.FetchOCI(req)
	if err != nil {
		return c.Fail(err)
	}
	g = g.WithSubjectDigest(sub.Digest)
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
		var rep Report
		if r.Err != nil {
			rep = InputInvalidReport(name, fmt.Errorf("oci: %w", r.Err))
		} else {
			rep = VerifyData(name, r.Data, pol, opts, g)
		}
		if rep.Code == ExitValid {
			passed.Add(1)
		}
		return rep
	})
	n, k := in.Len(), passed.Load()
	line := fmt.Sprintf("oci: %s is %s; %d MCP-RES %s found through the %s", sub.Image, sub.Digest, n, plural(n, "referrer", "referrers"), sub.Via)
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
		return c.Exit(ExitInvalid)
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
