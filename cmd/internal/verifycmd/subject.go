package verifycmd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/document"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/mcpres/mcpres/internal/regularfile"
	"github.com/spf13/pflag"
)

// SubjectFlags are the subject checks of attest verify and report
// (--artifact, --subject-digest, --subject-name, --subject-version): the
// part of the gate that binds it to what ships.
type SubjectFlags struct {
	Artifacts, Digests []string
	Name, Version      string
}

// SubjectFlagNames names the subject flags, for messages.
const SubjectFlagNames = "--artifact, --subject-digest, --subject-name or --subject-version"

// Given names the subject flags that were given.
func (s SubjectFlags) Given() []string {
	var out []string
	if len(s.Artifacts) > 0 {
		out = append(out, "--artifact")
	}
	if len(s.Digests) > 0 {
		out = append(out, "--subject-digest")
	}
	if s.Name != "" {
		out = append(out, "--subject-name")
	}
	if s.Version != "" {
		out = append(out, "--subject-version")
	}
	return out
}

// Register adds the flags to f.
func (s *SubjectFlags) Register(f *pflag.FlagSet) {
	f.StringArrayVar(&s.Artifacts, "artifact", nil, "gate: exit 1 unless the subject's artifactSha256 is the SHA-256 of FILE (read whole, any size; repeatable: any of them)")
	f.StringArrayVar(&s.Digests, "subject-digest", nil, "gate: exit 1 unless the subject's digest is sha256:HEX (64 lowercase hex digits; repeatable: any of them)")
	f.StringVar(&s.Name, "subject-name", "", "gate: exit 1 unless the subject's name is exactly NAME")
	f.StringVar(&s.Version, "subject-version", "", "gate: exit 1 unless the subject's version is exactly VERSION")
}

// SubjectUsage is the help text of the subject checks, for the long help
// of the commands that take them.
const SubjectUsage = `The subject checks bind the gate to what ships: --artifact FILE (the
file's SHA-256, read whole, must be the subject's artifactSha256),
--subject-digest sha256:HEX, --subject-name NAME and --subject-version
VERSION (exact matches against the pinned subject, evidence.subject, which
every signature binds). --artifact and --subject-digest may be repeated:
any of their values may match; every check given must pass. A failed
check fails the gate (exit 1) with ` + attest.CodeSubjectMismatch + `,
naming the value expected and the value found, and the JSON result's
gate.subject lists each check asked and how it came out. A digest in any
other form than sha256: and 64 lowercase hex digits, an --artifact that
is not a readable regular file, and a check asked of an input that has
no subject (a trust policy, a transparency reference) are usage errors
(exit 2). Nothing about the subject is inferred from file names.`

// Requirement reads the artifacts (each streamed through SHA-256) and
// checks the digests. A digest in another form is a usage error; an
// artifact that is not a regular file, or cannot be read, is an input
// error (exit 2), and nothing is read from a FIFO.
func (s SubjectFlags) Requirement() (attest.SubjectRequirement, error) {
	q := attest.SubjectRequirement{Name: s.Name, Version: s.Version}
	for _, d := range s.Digests {
		d, err := attest.ParseSubjectDigest(d)
		if err != nil {
			return q, cli.Usage(fmt.Errorf("--subject-digest: %v", err))
		}
		q.Digests = append(q.Digests, d)
	}
	for _, path := range s.Artifacts {
		d, err := ArtifactDigest(path)
		if err != nil {
			return q, cli.Failf("--artifact: %v", err)
		}
		q.Artifacts = append(q.Artifacts, attest.Artifact{Source: path, Digest: d})
	}
	return q, nil
}

// ArtifactDigest returns "sha256:HEX" of the regular file at path, read
// as a stream (any size, constant memory). A path that is not a regular
// file (a FIFO, a directory) is refused before anything is read.
func ArtifactDigest(path string) (string, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", regularfile.AsReadError(err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// NoSubject says why doc cannot be held to a subject requirement: it is
// neither a v0.2.0 conformance bundle nor an attested bundle (a trust
// policy, a transparency reference, another document), or "" when it has
// a subject.
func NoSubject(doc *canonjson.Value) string {
	switch k := document.Detect(doc); k {
	case document.Bundle, document.AttestedBundle:
		return ""
	case document.BundleV01:
		return "a v0.1.0 conformance bundle: subject checks apply to v0.2.0 bundles and attested bundles (mcpres migrate converts it)"
	case document.Unknown:
		what := "a document that is not an MCP-RES bundle"
		if sv := doc.Get("schemaVersion"); sv.Is(canonjson.String) {
			what = fmt.Sprintf("a %q document", sv.Str)
		} else if doc.Is(canonjson.Object) && doc.Get("inclusionProofBase64") != nil {
			what = "a transparency reference"
		}
		return what + ", which has no subject"
	default:
		return "a " + k.String() + ", which has no subject"
	}
}

// subjectHints adds to the reasons of failed digest and artifact checks
// what a wrong value is when it is recognisably not an artifact's digest:
// the SHA-256 of the file being verified itself, or the bundle's
// integrity.bundleDigest. data is the file's bytes (nil when unknown).
func subjectHints(outs []attest.SubjectOutcome, data []byte, doc *canonjson.Value) {
	var fileDigest string
	if data != nil {
		sum := sha256.Sum256(data)
		fileDigest = "sha256:" + hex.EncodeToString(sum[:])
	}
	bundleDigest := ""
	if d := document.CoreBundle(doc).Path("integrity", "bundleDigest"); d.Is(canonjson.String) && d.Str != "" {
		bundleDigest = "sha256:" + strings.TrimPrefix(d.Str, "sha256:")
	}
	for i := range outs {
		o := &outs[i]
		if o.Passed || o.Found == "" {
			continue
		}
		for _, want := range o.Expected {
			switch {
			case want == fileDigest:
				o.Reason += fmt.Sprintf(" (%s is the SHA-256 of the file being verified, not of the artifact it is about)", want)
			case want == bundleDigest:
				o.Reason += fmt.Sprintf(" (%s is the bundle's integrity.bundleDigest, not the digest of the artifact it is about)", want)
			}
		}
	}
}
