package attest

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
)

// CodeSubjectMismatch is the code of a subject requirement a verified
// attested bundle does not meet: it is valid, but about another artifact
// than the one the verifier is checking (the image digest of attest
// verify --oci). It is mcpres's, in mcpres's namespace: upstream has no
// subject requirement, and the bundle itself is not invalid.
const CodeSubjectMismatch = "MCPRES_SUBJECT_MISMATCH"

// A Subject is what a verified attested bundle is about: its bundle's
// evidence.subject. Every envelope's statement binds its name and
// digest (E10) and, through the bundle digest, its version.
type Subject struct {
	Name, Version string
	// Digest is "sha256:" and evidence.subject.artifactSha256: the
	// digest of the artifact the producer pinned (for an OCI image, its
	// manifest digest).
	Digest string
}

func subjectOf(b *canonjson.Value) Subject {
	s := b.Path("evidence", "subject")
	return Subject{Name: s.Get("name").Str, Version: s.Get("version").Str, Digest: "sha256:" + s.Get("artifactSha256").Str}
}

// ParseSubjectDigest checks a required subject digest: "sha256:" and 64
// lowercase hexadecimal digits, as OCI digests and MCP-RES digests are
// written. The error is the reason, for a usage error.
func ParseSubjectDigest(d string) (string, error) {
	const p = "sha256:"
	ok := len(d) == len(p)+64 && d[:len(p)] == p
	for i := len(p); ok && i < len(d); i++ {
		c := d[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	}
	if !ok {
		return "", fmt.Errorf("subject digest %q: want sha256: and 64 lowercase hexadecimal digits", d)
	}
	return d, nil
}

// SubjectDigestMismatch compares the subject of a verification result
// with the digest want ("sha256:HEX", see ParseSubjectDigest): "" when
// r is valid and about that artifact, otherwise the reason, which names
// both digests. An invalid result is never about any subject.
func (r Result) SubjectDigestMismatch(want string) string {
	switch {
	case !r.Valid:
		return "the attested bundle is invalid, so it is bound to no subject"
	case r.Subject.Digest != want:
		return fmt.Sprintf("the bundle is about %s (subject %q version %q), not %s", r.Subject.Digest, r.Subject.Name, r.Subject.Version, want)
	}
	return ""
}
