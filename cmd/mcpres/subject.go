package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/cmd/internal/verifycmd"
	"github.com/mcpres/mcpres/internal/atomicfile"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/termsafe"
	"github.com/spf13/cobra"
)

// subjectFlags set a draft's subject from what ships (subject set, seal):
// the decision is bundle.SetSubject's; an image is resolved to its
// manifest digest by mcpres-oci (resolve), which holds the OCI client.
type subjectFlags struct {
	artifact, image, name, version string
	replace                        bool
	cmd                            *cobra.Command
}

func (f *subjectFlags) register(cmd *cobra.Command) {
	f.cmd = cmd
	cmd.Flags().StringVar(&f.artifact, "artifact", "", "the artifact `FILE` that ships: its SHA-256 becomes evidence.subject.artifactSha256")
	cmd.Flags().StringVar(&f.image, "image", "", "the OCI `IMAGE` that ships (REGISTRY/REPOSITORY:TAG or @sha256:HEX): its manifest digest, resolved in its registry by mcpres-oci, becomes evidence.subject.artifactSha256")
	cmd.Flags().StringVar(&f.name, "name", "", "the subject's name (evidence.subject.name)")
	cmd.Flags().StringVar(&f.version, "version", "", "the subject's version (evidence.subject.version)")
	cmd.Flags().BoolVar(&f.replace, "replace", false, "replace subject members that hold other values (refused by default: the draft would be about something else)")
}

// given reports whether any flag that sets the subject was given.
func (f *subjectFlags) given() bool {
	for _, n := range []string{"artifact", "image", "name", "version", "replace"} {
		if f.cmd.Flags().Changed(n) {
			return true
		}
	}
	return false
}

// update checks the flags and computes the update: the artifact's
// SHA-256 or the image's manifest digest, the name and the version. from
// says where the digest came from, for the messages.
func (a *app) subjectUpdate(f *subjectFlags) (u bundle.SubjectUpdate, from string, err error) {
	// An empty value is a usage error already (internal/cli).
	switch {
	case f.artifact != "" && f.image != "":
		return u, "", cli.Usagef("--artifact and --image both name what ships: give one")
	case f.artifact == "" && f.image == "" && f.name == "" && f.version == "":
		return u, "", cli.Usagef("give what ships: --artifact FILE or --image IMAGE, and/or --name, --version")
	}
	u.Name, u.Version = f.name, f.version
	var digest string
	switch {
	case f.artifact != "":
		if digest, err = verifycmd.ArtifactDigest(f.artifact); err != nil {
			return u, "", cli.Failf("--artifact: %v", err)
		}
		from = f.artifact
	case f.image != "":
		if digest, err = a.resolveImage(f.image); err != nil {
			return u, "", err
		}
		from = f.image + "@" + digest
	}
	u.ArtifactSha256 = strings.TrimPrefix(digest, "sha256:")
	return u, from, nil
}

// resolvedDigest is what mcpres-oci resolve prints: one sha256 digest.
var resolvedDigest = regexp.MustCompile(`\Asha256:[0-9a-f]{64}\n\z`)

// resolveImage runs mcpres-oci resolve IMAGE and returns the manifest
// digest it printed (sha256:HEX); its messages go to our stderr, its
// exit status becomes ours.
func (a *app) resolveImage(image string) (string, error) {
	bin, err := findOCIBinary()
	if err != nil {
		return "", cli.Failf("--image: %v", err)
	}
	var out bytes.Buffer
	c := exec.Command(bin, "resolve", "--", image)
	c.Stdout, c.Stderr = &out, termsafe.Unwrap(a.stderr) // it escapes its own text
	c.Env = append(os.Environ(), ociVerifyInvokedAs)
	err = c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return "", cli.Exit(ee.ExitCode())
	}
	if err != nil {
		return "", cli.Failf("running %s: %v", bin, err)
	}
	if !resolvedDigest.Match(out.Bytes()) {
		return "", cli.Failf("--image %s: %s resolve printed %q, not one sha256:HEX digest (a manifest digest of another algorithm cannot be an artifactSha256)", image, bin, out.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// setSubject applies the flags to draft (read from path) and says what it
// did on w; a subject about something else is refused (exit 1) unless
// --replace, and a draft without a subject is unreadable input (exit 2).
func (a *app) setSubject(f *subjectFlags, path string, draft *canonjson.Value, w *app) (changed bool, err error) {
	u, from, err := a.subjectUpdate(f)
	if err != nil {
		return false, err
	}
	changes, err := bundle.SetSubject(draft, u, f.replace)
	var conflict *bundle.SubjectConflictError
	var bad *bundle.SubjectError
	switch {
	case errors.As(err, &conflict):
		a.msgs().Errorf("%s: the draft is about another subject; nothing written:", path)
		for _, c := range conflict.Conflicts {
			fmt.Fprintf(a.stderr, "  %s is %q, not %q\n", c.Member, c.Old, c.New)
		}
		fmt.Fprintln(a.stderr, "  (--replace replaces it, if the draft's evidence is about what ships)")
		return false, cli.Exit(exitInvalid)
	case errors.As(err, &bad):
		return false, cli.Failf("%s: %v", path, err)
	case err != nil:
		return false, cli.Failf("%s: %v", path, err)
	}
	if len(changes) == 0 {
		fmt.Fprintf(w.stdout, "%s: subject unchanged (already about %s)\n", path, describeUpdate(u, from))
		return false, nil
	}
	for _, c := range changes {
		val := c.New
		if c.Member == "artifactSha256" && from != "" {
			val += " (" + from + ")"
		}
		if c.Old != "" {
			fmt.Fprintf(w.stdout, "%s: subject %s: %s, replacing %q\n", path, c.Member, val, c.Old)
		} else {
			fmt.Fprintf(w.stdout, "%s: subject %s: %s\n", path, c.Member, val)
		}
	}
	if id := draft.Path("evidence", "subject", "identityDigest"); id.Is(canonjson.String) && id.Str != "" {
		a.warnf("%s was sealed: its digests no longer match its subject; seal it again (mcpres seal)", path)
	}
	return true, nil
}

func describeUpdate(u bundle.SubjectUpdate, from string) string {
	var parts []string
	if u.ArtifactSha256 != "" {
		parts = append(parts, "artifactSha256 "+u.ArtifactSha256+" ("+from+")")
	}
	if u.Name != "" {
		parts = append(parts, "name "+u.Name)
	}
	if u.Version != "" {
		parts = append(parts, "version "+u.Version)
	}
	return strings.Join(parts, ", ")
}

const subjectLong = `Commands on the subject of a draft bundle: what its evidence is about.`

const subjectSetLong = `Set the subject of a draft bundle from what ships, before it is sealed: the
artifact's digest (evidence.subject.artifactSha256), its name and its
version.

--artifact FILE takes the SHA-256 of a file (read as a stream, any size);
--image IMAGE takes the manifest digest IMAGE names in its registry,
resolved as mcpres oci attach resolves it (by the mcpres-oci binary:
credentials from the Docker configuration, loopback registries over plain
HTTP), so that the evidence is bound to the image oci attach will attach it
to and attest verify --oci checks it against. --name and --version set
those members. Give the image by tag right after pushing it, or by digest.

A member that is empty or absent is set; one that already holds the same
value is left as it is; one that holds another value means the draft is
about something else, and the command refuses (exit 1, nothing written,
each member named) unless --replace is given.

DRAFT is edited in place, atomically, as the policy edits edit their FILE
(never standard output); with -o OUT the result goes to OUT instead (- for
standard output; an existing OUT only with --force, never DRAFT) and DRAFT
is unchanged. mcpres seal takes the same flags and seals in one step. The
digests are not computed here: seal the draft afterwards.`

// subjectCommand is `mcpres subject …`.
func (a *app) subjectCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "subject",
		Short: "Set a draft bundle's subject from what ships",
		Long:  subjectLong,
	}
	cmd.AddCommand(a.subjectSetCommand())
	return cmd
}

func (a *app) subjectSetCommand() *cobra.Command {
	var f subjectFlags
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "set DRAFT (--artifact FILE | --image IMAGE) [--name N] [--version V] [--replace] [-o OUT]",
		Short: "Set a draft's subject: an artifact's SHA-256 or an image's manifest digest, name and version",
		Long:  subjectSetLong,
		Example: `  mcpres subject set evidence/draft.json --image ghcr.io/example/mcp-server:1.2.3 --name io.github.example/mcp-server --version 1.2.3
  mcpres subject set draft.json --artifact dist/mcp-server.tar.gz -o draft.subject.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			inPlace := !cmd.Flags().Changed("output")
			if inPlace {
				if force {
					return cli.Usagef("--force goes with -o/--output (DRAFT itself is always edited in place)")
				}
				if err := fileOnly("DRAFT", path); err != nil {
					return err
				}
			} else {
				// Before the registry is asked.
				if err := checkOutputs([]string{out}, []string{path}, force); err != nil {
					return err
				}
			}
			_, draft, err := canonjson.ReadFile(path)
			if err != nil {
				a.printInputInvalid(path, err, "text", false)
				return cli.Exit(exitInput)
			}
			w := a
			if !inPlace {
				w = a.reportTo(out)
			}
			changed, err := a.setSubject(&f, path, draft, w)
			if err != nil {
				return err
			}
			if inPlace && !changed {
				return nil
			}
			data, err := canonjson.Pretty(draft)
			if err != nil {
				return cli.Failf("encoding the draft: %v", err)
			}
			if inPlace {
				if err := atomicfile.WriteFile(path, data, 0o644, true); err != nil {
					return writeFileError(path, err)
				}
				return nil
			}
			if err := a.writeOutput(out, args, data, force); err != nil {
				return err
			}
			a.wrote(out, "draft with its subject set")
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the draft to `OUT` instead of editing DRAFT in place (- for standard output)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing OUT")
	return cmd
}
