package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpres/mcpres/attest/sigstore"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/ocifetch"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/datetime"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/mcpres/mcpres/oci"
	"github.com/mcpres/mcpres/validator"
	"github.com/spf13/cobra"
)

// The commands publish and find attested bundles in OCI registries
// (package oci); attest verify --oci is verifycmd's with ocifetch.Fetch.

const ociLong = `Publish attested bundles beside the OCI images they are about, find them,
and download them for offline verification.

An attached bundle is an OCI 1.1 artifact whose manifest's subject is the
image: artifactType ` + oci.ArtifactType + `, the empty
config, a layer holding the bundle's exact bytes (then one per Sigstore
bundle of a keyless signature, media type ` + oci.SigstoreMediaType + `),
and annotations naming
the subject, its version, the claimed level and the creation time. Tools
find it through the registry's referrers API or, on registries without it,
the referrers tag schema (the tag sha256-HEX of the image digest), by the
standard rule: the API when the registry answers it, the tag when it
answers 404, and any other answer is an error.

IMAGE is REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:HEX (no
tag is assumed). Registries are reached over HTTPS; loopback registries
(127.0.0.1, [::1], localhost) over plain HTTP, as docker and oras do;
others over plain HTTP only with --plain-http, and never with credentials.
Credentials come from the Docker configuration ($DOCKER_CONFIG/config.json
or ~/.docker/config.json, and its credential helpers), as docker login and
oras login write it. Nothing read from a registry is trusted: every
manifest and bundle is checked against its digest and size, sizes are
bounded before anything is downloaded, at most ` + "100" + ` referrers of one
image are examined, and --timeout bounds the whole command.`

// ociFlags are the registry flags every oci command takes.
type ociFlags struct {
	plainHTTP bool
	timeout   time.Duration
}

func (f *ociFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.plainHTTP, "plain-http", false, "allow plain HTTP to a registry that is not on loopback (loopback registries always use it; credentials are never sent so)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", verifycmd.OCIDefaultTimeout, "the most time the registry may take in all")
}

// client returns the registry client and the command's context, bounded
// by --timeout.
func (f *ociFlags) client() (*oci.Client, context.Context, context.CancelFunc, error) {
	return ocifetch.Client(f.plainHTTP, f.timeout)
}

// registryFailure reports an error talking to a registry (exit 2),
// naming a timeout as such.
func registryFailure(ctx context.Context, err error) error {
	return cli.Failf("%v", ocifetch.TimeoutNamed(ctx, err))
}

const ociAttachLong = `Attach each attested bundle FILE to IMAGE as an OCI artifact referring to
it (see mcpres oci --help for its shape).

Before anything is pushed, every FILE is read with the strict reader and
verified as attest sign checks what it co-signs: the wrapper's schema, the
embedded bundle's validity and every envelope's signature, statement,
binding and identity (no trust policy is needed; the claimed level is left
to the verifier's policy). Invalid evidence is never published: one FILE
that fails stops the command before any push (exit 1).

IMAGE is resolved to its manifest digest, which is printed, and each
bundle's subject (evidence.subject.artifactSha256, the artifact digest the
producer pinned) must equal it: a bundle about another digest is refused
(exit 1) unless --force-subject, which attaches it with a warning; attest
verify --oci then fails it with MCPRES_SUBJECT_MISMATCH.

On a registry with the referrers API nothing but the artifact is written;
on one without it the index under the tag sha256-HEX gets the new entry,
safely under concurrent attaches (conditional requests where the registry
honours them, and a check after a settle time of 2 s). A bundle already
attached to IMAGE with the same Sigstore bundles is reported and not
pushed again.

A keyless signature (attest sign --keyless) keeps its certificate and
timestamp in Sigstore bundles beside FILE: FILE.sigstore.json,
FILE.sigstore.2.json, … (up to the first missing). They are attached
with FILE, one layer each after the bundle's, and the output says so;
--sigstore-bundle SB (repeatable, with one FILE) names them instead, and
--no-sigstore-bundle attaches none. Each must be a Sigstore bundle
(` + oci.SigstoreMediaType + `) whose DSSE payload and signature are those
of one of FILE's envelopes; one that is not (a Sigstore bundle of another
attested bundle) stops the command before any push (exit 1). Their
certificates and timestamps are verified by attest verify --trusted-root,
not here.`

func (a *app) attachCommand() *cobra.Command {
	var f ociFlags
	var forceSubject, noSigstore bool
	var evaluatedAt string
	var sigstoreBundles []string
	cmd := &cobra.Command{
		Use:   "attach IMAGE FILE...",
		Short: "Push attested bundles as OCI artifacts referring to an image",
		Long:  ociAttachLong,
		Example: `  mcpres oci attach ghcr.io/example/mcp-server@sha256:6f1f… dist/bundle.attested.json
  mcpres oci attach localhost:5000/mcp/server:1.0 a.attested.json b.attested.json
  mcpres oci attach ghcr.io/example/mcp-server:1.0 bundle.attested.json --sigstore-bundle keyless.sigstore.json`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("evaluated-at") && !datetime.Valid(evaluatedAt) {
				return cli.Usagef("--evaluated-at %q is not an RFC 3339 date-time (leap seconds are rejected)", evaluatedAt)
			}
			image, files := args[0], args[1:]
			switch {
			case noSigstore && len(sigstoreBundles) > 0:
				return cli.Usagef("--sigstore-bundle and --no-sigstore-bundle exclude each other")
			case len(sigstoreBundles) > 0 && len(files) != 1:
				return cli.Usagef("--sigstore-bundle goes with one FILE; with several, each FILE's are beside it (%s)", sigstore.MaterialName("FILE", 1))
			}
			now := nowMillis()
			if evaluatedAt == "" {
				evaluatedAt = now
			}
			val := validator.New()
			bundles := make([]*oci.Bundle, len(files))
			withSigstore := make([][]string, len(files)) // the Sigstore bundles attached with each
			refused := false
			for i, file := range files {
				data, err := canonjson.ReadFileBytes(file)
				if err != nil {
					a.printInputInvalid(file, err)
					return cli.Exit(exitInput)
				}
				b, err := oci.CheckBundle(data, evaluatedAt, val)
				var ie *validator.InputError
				var ib *oci.InvalidBundleError
				switch {
				case errors.As(err, &ie):
					a.printInputInvalid(file, err)
					return cli.Exit(exitInput)
				case errors.As(err, &ib):
					a.errorf("%s: %v", file, err)
					refused = true
				case err != nil:
					return cli.Failf("%s: %v", file, err)
				}
				bundles[i] = b
				if b == nil || noSigstore {
					continue
				}
				sbs := sigstoreBundles
				if len(sbs) == 0 {
					sbs = verifycmd.MaterialBeside(file)
				}
				for _, sb := range sbs {
					data, err := regularfile.ReadFile(sb, oci.MaxSigstoreBytes)
					if err == nil {
						err = b.AddSigstore(data)
					}
					var se *oci.SigstoreError
					switch {
					case errors.As(err, &se):
						a.errorf("%s: not attached with %s: %v (--no-sigstore-bundle attaches %s without Sigstore bundles)", sb, file, err, file)
						refused = true
					case err != nil:
						a.printInputInvalid(sb, err)
						return cli.Exit(exitInput)
					}
					withSigstore[i] = append(withSigstore[i], sb)
				}
			}
			if refused {
				a.errorf("nothing was attached")
				return cli.Exit(exitInvalid)
			}
			c, ctx, cancel, err := f.client()
			if err != nil {
				return err
			}
			defer cancel()
			img, err := c.Resolve(ctx, image)
			if err != nil {
				return registryFailure(ctx, err)
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", image, img.Digest())
			for i, b := range bundles {
				if b.SubjectDigest == img.Digest() {
					continue
				}
				if !forceSubject {
					a.errorf("%s: %v", files[i], &oci.SubjectError{Image: img, SubjectDigest: b.SubjectDigest})
					refused = true
					continue
				}
				a.warnf("--force-subject: %s is about %s, not %s (%s); attaching it anyway, and attest verify --oci %s will fail it with MCPRES_SUBJECT_MISMATCH",
					files[i], b.SubjectDigest, image, img.Digest(), image)
			}
			if refused {
				a.errorf("nothing was attached")
				return cli.Exit(exitInvalid)
			}
			for i, b := range bundles {
				at, err := c.Attach(ctx, img, b, oci.AttachOptions{Created: now, ForceSubject: forceSubject})
				if err != nil {
					return registryFailure(ctx, fmt.Errorf("attaching %s: %w", files[i], err))
				}
				how := "found through the referrers API"
				if at.Via == oci.ViaReferrersTag {
					how = "listed in the referrers tag " + at.IndexTag
				}
				verb := "attached"
				if at.Existing {
					verb = "already attached"
				}
				with := ""
				if sbs := withSigstore[i]; len(sbs) > 0 {
					with = " with " + strings.Join(sbs, ", ")
				}
				fmt.Fprintf(a.stdout, "%s %s%s to %s as %s (%s)\n", files[i], verb, with, img, img.Ref(at.Manifest.Digest), how)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&forceSubject, "force-subject", false, "attach a bundle whose subject is not IMAGE's digest (loud; verification against IMAGE will fail it)")
	cmd.Flags().StringVar(&evaluatedAt, "evaluated-at", "", "verification time of the bundles as an RFC 3339 date-time (default: now)")
	cmd.Flags().StringArrayVar(&sigstoreBundles, "sigstore-bundle", nil, "a Sigstore bundle of the single FILE's keyless envelopes to attach with it (repeatable; default FILE.sigstore.json, FILE.sigstore.2.json, … beside it)")
	cmd.Flags().BoolVar(&noSigstore, "no-sigstore-bundle", false, "attach no Sigstore bundle, even those beside FILE")
	return cmd
}

const ociDiscoverLong = `List the MCP-RES artifacts attached to IMAGE: for each, its manifest
digest and size, its annotations (subject, version, claimed level, creation
time), its bundle's digest and size and how many Sigstore bundles (keyless
signatures' certificates and timestamps) it carries (JSON: sigstore, their
digests and sizes), as read from its manifest, whose
digest is checked; or why it cannot be used (a manifest that does not match
its digest, is not an MCP-RES artifact, or refers to another image).

Referrers are found by the standard rule (referrers API, or the tag schema
when the registry answers 404). The referrers API is asked for the MCP-RES
artifactType only, and every listing is filtered here too: referrers
listed with another artifactType cost nothing; those listed without a
telling one are judged by their manifest. At most 10,000 listed referrers
(1,000 pages) are examined and 2,000 manifests read; past a bound, the
flood is named and the listing reported as truncated.

--format json prints one object (schemaVersion ` + oci.DiscoverySchemaVersion + `). Exit status 0
when every listed referrer can be used, 1 when one cannot, 2 when the
registry cannot be read.`

func (a *app) discoverCommand() *cobra.Command {
	var f ociFlags
	var format string
	cmd := &cobra.Command{
		Use:     "discover IMAGE",
		Short:   "List the MCP-RES artifacts attached to an image",
		Long:    ociDiscoverLong,
		Example: `  mcpres oci discover --format json ghcr.io/example/mcp-server:1.0`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return cli.Usagef("--format must be text or json, not %q", format)
			}
			c, ctx, cancel, err := f.client()
			if err != nil {
				return err
			}
			defer cancel()
			img, err := c.Resolve(ctx, args[0])
			if err != nil {
				return registryFailure(ctx, err)
			}
			d, err := c.Discover(ctx, img)
			if err != nil {
				return registryFailure(ctx, err)
			}
			if format == "json" {
				out, err := canonjson.Compact(d.Value())
				if err != nil {
					return cli.Failf("encoding the result: %v", err)
				}
				a.stdout.Write(append(out, '\n'))
			} else {
				a.printDiscovery(d)
			}
			for _, r := range d.Referrers {
				if r.Err != nil {
					return cli.Exit(exitInvalid)
				}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func (a *app) printDiscovery(d oci.Discovery) {
	fmt.Fprintf(a.stdout, "%s: %s: %d MCP-RES %s (%s)\n", d.Image.Name, d.Image.Digest(), len(d.Referrers), pluralize(len(d.Referrers), "referrer", "referrers"), d.Via)
	for _, r := range d.Referrers {
		if r.Err != nil {
			fmt.Fprintf(a.stdout, "  %s  %d bytes  UNUSABLE: %s\n", r.Descriptor.Digest, r.Descriptor.Size, termsafe.Line(r.Err.Error()))
			continue
		}
		m := r.Manifest
		ann := m.Annotations
		n := len(m.Sigstore)
		fmt.Fprintf(a.stdout, "  %s  %d bytes  bundle %s %d bytes  %d Sigstore %s  %s %s, claimed %s, created %s\n", r.Descriptor.Digest, r.Descriptor.Size,
			m.Layer.Digest, m.Layer.Size, n, pluralize(n, "bundle", "bundles"), dashed(ann[oci.AnnotationSubjectName]), dashed(ann[oci.AnnotationSubjectVersion]),
			dashed(ann[oci.AnnotationClaimedLevel]), dashed(ann[oci.AnnotationCreated]))
	}
	for _, f := range d.Floods {
		fmt.Fprintf(a.stdout, "  … truncated: %s\n", f)
	}
	if d.Others > 0 {
		fmt.Fprintf(a.stdout, "  (%d %s of other artifact types)\n", d.Others, pluralize(d.Others, "referrer", "referrers"))
	}
}

func pluralize(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// dashed is a value a registry gave (an annotation) for one line of
// discover's text: "—" when empty, else escaped as one line
// (internal/termsafe), so that it can neither drive the terminal nor
// start a line that passes for discover's own.
func dashed(s string) string {
	if s == "" {
		return "—"
	}
	return termsafe.Line(s)
}

const ociPullLong = `Download every MCP-RES artifact attached to IMAGE into DIR, for offline
verification later (attest verify DIR, with the bundles' subject checked
against IMAGE's digest).

Each bundle is checked against its manifest's digest and size and written
as DIR/HEX.attested.json, HEX its SHA-256 (never a name the registry
chose); the Sigstore bundles an artifact carries (keyless signatures) are
checked the same way and against the bundle's envelopes, and written
beside it as DIR/HEX.attested.json.sigstore.json, ….sigstore.2.json, …;
DIR/` + oci.PullIndexName + ` gets one JSON line per referrer (schemaVersion
` + oci.PullSchemaVersion + `): the image and its digest, the referrer's
manifest, the bundle's digest, size, file and annotations, its Sigstore
bundles (sigstore: file, digest, size), or why it was not pulled, and
when. At most 100 bundles are downloaded (referrers are
found as oci discover finds them); past a bound, the flood is named.
DIR is created if missing (its parent must exist).
A bundle file already in DIR with the same bytes is left as it is; any
other existing file is replaced only with --force. Exit status 1 when a
referrer could not be pulled (the others are written).`

func (a *app) pullCommand() *cobra.Command {
	var f ociFlags
	var dir string
	var force bool
	cmd := &cobra.Command{
		Use:     "pull IMAGE -o DIR",
		Short:   "Download the attested bundles attached to an image, with an index of where each came from",
		Long:    ociPullLong,
		Example: `  mcpres oci pull ghcr.io/example/mcp-server:1.0 -o evidence/`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return cli.Usagef("-o/--output DIR is required")
			}
			if err := fileOnly("-o", dir); err != nil {
				return err
			}
			index := filepath.Join(dir, oci.PullIndexName)
			if st, err := os.Lstat(dir); err == nil {
				if !st.IsDir() {
					return cli.Failf("%s is %s, not a folder", dir, regularfile.Kind(st.Mode()))
				}
				if err := atomicfile.CheckTarget(index, force); err != nil {
					return writeFileError(index, err)
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return cli.Failf("%v", err)
			}
			c, ctx, cancel, err := f.client()
			if err != nil {
				return err
			}
			defer cancel()
			img, err := c.Resolve(ctx, args[0])
			if err != nil {
				return registryFailure(ctx, err)
			}
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return cli.Failf("creating %s: %v", dir, err)
			}
			at := nowMillis()
			var lines bytes.Buffer
			n, failed := 0, 0
			d, err := c.Pull(ctx, img, func(p oci.Pulled) error {
				n++
				if p.Err == nil {
					path := filepath.Join(dir, p.FileName())
					if err := writePulled(path, p.Data, force); err != nil {
						return err
					}
					a.wrote(path, "bundle from %s", p.Name(img))
					for i, data := range p.Sigstore {
						sp := filepath.Join(dir, p.SigstoreFileName(i))
						if err := writePulled(sp, data, force); err != nil {
							return err
						}
						a.wrote(sp, "Sigstore bundle of %s from %s", p.FileName(), p.Name(img))
					}
				} else {
					failed++
					a.errorf("%s: not pulled: %v", p.Name(img), p.Err)
				}
				line, err := oci.IndexLine(img, p, at)
				if err != nil {
					return cli.Failf("encoding the index: %v", err)
				}
				lines.Write(append(line, '\n'))
				return nil
			})
			var ce *cli.CommandError
			if errors.As(err, &ce) {
				return err
			}
			if err != nil {
				return registryFailure(ctx, err)
			}
			if err := atomicfile.WriteFile(index, lines.Bytes(), 0o644, force); err != nil {
				return writeFileError(index, err)
			}
			a.wrote(index, "%d %s of %s (%s)", n, pluralize(n, "referrer", "referrers"), img, d.Via)
			for _, f := range d.Floods {
				a.warnf("%s", f)
			}
			if failed > 0 {
				return cli.Exit(exitInvalid)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&dir, "output", "o", "", "folder to write the bundles and "+oci.PullIndexName+" to (required)")
	cmd.Flags().BoolVar(&force, "force", false, "replace existing files in DIR")
	cmd.Flags().BoolVarP(&a.quiet, "quiet", "q", false, "do not say on stderr what was written")
	return cmd
}

// writePulled writes a pulled bundle, leaving a file with the same bytes
// as it is.
func writePulled(path string, data []byte, force bool) error {
	if old, err := regularfile.ReadFile(path, int64(len(data))+1); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := atomicfile.WriteFile(path, data, 0o644, force); err != nil {
		return writeFileError(path, err)
	}
	return nil
}

// verifyCommand is mcpres attest verify (package verifycmd) with the
// registry plugged in for --oci; FILE and DIR arguments work as in mcpres.
func (a *app) verifyCommand() *cobra.Command {
	return verifycmd.Command(verifycmd.Config{
		Prog: a.prog, Stdout: a.stdout, Stderr: a.stderr,
		Now:      nowMillis,
		FetchOCI: ocifetch.Fetch,
		LongExtra: `

Policies from a TUF repository: fetch them with 'mcpres policy tuf fetch
-o POLICY' first.`,
	})
}

// printInputInvalid prints the MCP_RES_INPUT_INVALID result of an input
// that cannot be read, as text.
func (a *app) printInputInvalid(path string, err error) {
	p := &verifycmd.Printer{Stdout: a.stdout, Stderr: a.stderr, Prog: a.prog}
	p.Render(verifycmd.InputInvalidReport(path, err), "text", false, true)
}

// writeFileError words an error of internal/atomicfile for path.
func writeFileError(path string, err error) error {
	return cli.Failf("%s", cli.WriteError(path, err))
}

// fileOnly refuses "-" for the folder of pull.
func fileOnly(what, path string) error {
	if path == "-" {
		return cli.Usagef("%s -: this command writes a folder, not standard output; give a folder name (./- for one named -)", what)
	}
	return nil
}

func nowMillis() string { return verifycmd.NowMillis() }
