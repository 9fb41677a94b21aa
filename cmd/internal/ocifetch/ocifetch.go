// Package ocifetch is attest verify --oci's registry half
// (verifycmd.OCIFetch), shared by the binaries that link the registry
// client: mcpres-oci, and mcpres-sigstore for keyless verification of an
// image's referrers.
package ocifetch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/version"
	"github.com/mcpres/mcpres/oci"
)

// Client returns the registry client and a context bounded by timeout.
func Client(plainHTTP bool, timeout time.Duration) (*oci.Client, context.Context, context.CancelFunc, error) {
	if timeout <= 0 {
		return nil, nil, nil, cli.Usagef("--timeout must be positive")
	}
	c, err := oci.NewClient(oci.Options{PlainHTTP: plainHTTP, UserAgent: "mcpres/" + version.Version})
	if err != nil {
		return nil, nil, nil, cli.Failf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	return c, ctx, cancel, nil
}

// Fetch resolves the image, then hands over each referrer's bundle (with
// the Sigstore bundles it carries) in memory as it is downloaded, one at
// a time: the verifier judges it before the next is asked for.
func Fetch(req verifycmd.OCIRequest, resolved func(verifycmd.OCISubject) error, each func(verifycmd.OCIReferrer)) (verifycmd.OCISubject, error) {
	c, ctx, cancel, err := Client(req.PlainHTTP, req.Timeout)
	if err != nil {
		return verifycmd.OCISubject{}, err
	}
	defer cancel()
	img, err := c.Resolve(ctx, req.Image)
	if err != nil {
		return verifycmd.OCISubject{}, TimeoutNamed(ctx, err)
	}
	s := verifycmd.OCISubject{Image: req.Image, Digest: img.Digest()}
	if err := resolved(s); err != nil {
		return verifycmd.OCISubject{}, err
	}
	d, err := c.Pull(ctx, img, func(p oci.Pulled) error {
		each(verifycmd.OCIReferrer{Name: p.Name(img), Data: p.Data, Sigstore: p.Sigstore, Err: p.Err})
		return nil
	})
	if err != nil {
		return verifycmd.OCISubject{}, TimeoutNamed(ctx, err)
	}
	s.Via = d.Via
	for _, f := range d.Floods {
		s.Notes = append(s.Notes, "oci: "+f.String())
	}
	if d.Others > 0 {
		what := "referrers"
		if d.Others == 1 {
			what = "referrer"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("oci: %d %s of other artifact types not examined", d.Others, what))
	}
	return s, nil
}

// TimeoutNamed names a timeout as such in err.
func TimeoutNamed(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%v (the --timeout ran out)", err)
	}
	return err
}
