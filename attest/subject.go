package attest

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
)

// CodeSubjectMismatch is the code of a subject requirement that a
// verified attested bundle does not meet ([SubjectRequirement]): it is
// valid, but about another artifact, name or version than the one the
// verifier is checking (an artifact file, a digest, the image of attest
// verify --oci). It is mcpres's, in mcpres's namespace: upstream has no
// subject requirement, and the bundle itself is not invalid. Every reason
// it starts names the check, the value expected and the value found.
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

// BundleSubject returns the subject of a conformance bundle b
// (evidence.subject). It validates nothing: give it a bundle that
// validated, or the bundle of a valid attested bundle ([Result.Subject]
// is that already).
func BundleSubject(b *canonjson.Value) Subject {
	s := b.Path("evidence", "subject")
	return Subject{Name: s.Get("name").Str, Version: s.Get("version").Str, Digest: "sha256:" + s.Get("artifactSha256").Str}
}

// ParseSubjectDigest checks a required subject digest: "sha256:" and 64
// lowercase hexadecimal digits, as OCI digests and MCP-RES digests
// (artifactSha256) are written, and nothing else. The error says what is
// wrong with it (another algorithm, no prefix, uppercase digits, too few
// or too many digits), for a usage error: a digest that is not in this
// form is refused, never read as "no check".
func ParseSubjectDigest(d string) (string, error) {
	const p = "sha256:"
	fail := func(why string) (string, error) {
		return "", fmt.Errorf("subject digest %q: %s (want sha256: and 64 lowercase hexadecimal digits)", truncateDigest(d), why)
	}
	alg, hex, ok := strings.Cut(d, ":")
	switch {
	case d == "":
		return fail("empty")
	case !ok:
		return fail("no algorithm prefix")
	case alg != "sha256":
		if strings.EqualFold(alg, "sha256") {
			return fail("the algorithm is written " + alg + ", not sha256")
		}
		return fail("algorithm " + alg + " is not taken: the subject of an MCP-RES bundle is pinned by SHA-256")
	}
	upper := false
	for i := 0; i < len(hex); i++ {
		c := hex[i]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return fail(fmt.Sprintf("%q is not a hexadecimal digit", string(rune(c))))
		}
	}
	switch {
	case upper:
		return fail("uppercase hexadecimal digits: write them in lowercase")
	case len(hex) != 64:
		return fail(fmt.Sprintf("%d hexadecimal digits", len(hex)))
	}
	return p + hex, nil
}

func truncateDigest(d string) string {
	if len(d) > 90 {
		return d[:90] + "…"
	}
	return d
}

// The checks of a [SubjectRequirement], in the order they are evaluated
// and reported ([SubjectOutcome].Check).
const (
	// SubjectCheckImage: the subject digest is the digest of the OCI image
	// whose referrers are verified (attest verify --oci).
	SubjectCheckImage = "image"
	// SubjectCheckArtifact: the subject digest is the SHA-256 of one of the
	// artifacts (--artifact FILE).
	SubjectCheckArtifact = "artifact"
	// SubjectCheckDigest: the subject digest is one of the digests
	// (--subject-digest).
	SubjectCheckDigest = "digest"
	// SubjectCheckName and SubjectCheckVersion: the subject's name or
	// version is exactly the one required (--subject-name,
	// --subject-version).
	SubjectCheckName    = "name"
	SubjectCheckVersion = "version"
)

// An Artifact is a digest the subject may have, and where it came from.
type Artifact struct {
	// Source names it in messages: an artifact file as given, an image
	// reference.
	Source string
	// Digest is "sha256:HEX" (see [ParseSubjectDigest]).
	Digest string
}

// A SubjectRequirement is what a verifier requires of the subject of a
// verified attested bundle, so that a gate is bound to what ships and not
// only to who signed: last release's bundle, or a bundle about another
// server the same key signed, fails it. Each member given is one check,
// and every check must pass; within the image, artifact and digest checks
// any of the values given may match. Names and versions are compared byte
// for byte; nothing is inferred from file names. The zero value requires
// nothing ([SubjectRequirement.Active]).
type SubjectRequirement struct {
	// Image, when set, is the OCI image whose referrers are verified: the
	// subject digest must be its manifest digest.
	Image *Artifact
	// Artifacts are the artifacts the subject may be: its digest must be
	// the SHA-256 of one of them.
	Artifacts []Artifact
	// Digests are the digests the subject may have ("sha256:HEX").
	Digests []string
	// Name and Version, when not empty, must be the subject's exactly.
	Name, Version string
}

// Active says whether q requires anything.
func (q SubjectRequirement) Active() bool {
	return q.Image != nil || len(q.Artifacts) > 0 || len(q.Digests) > 0 || q.Name != "" || q.Version != ""
}

// Check says why q cannot be used, or nil: every digest must be in the
// form [ParseSubjectDigest] takes. A requirement that fails Check still
// fails closed in [SubjectRequirement.Evaluate] (such a digest matches no
// subject), but a caller reports it as a usage error instead.
func (q SubjectRequirement) Check() error {
	var digests []string
	if q.Image != nil {
		digests = append(digests, q.Image.Digest)
	}
	for _, a := range q.Artifacts {
		digests = append(digests, a.Digest)
	}
	for _, d := range append(digests, q.Digests...) {
		if _, err := ParseSubjectDigest(d); err != nil {
			return err
		}
	}
	return nil
}

// A SubjectOutcome is how one check of a [SubjectRequirement] came out.
type SubjectOutcome struct {
	// Check is one of the SubjectCheck constants.
	Check string
	// Expected are the values the check accepts, any of which may match:
	// digests for the image, artifact and digest checks, else the name or
	// version.
	Expected []string
	// Sources name where each of Expected came from (the artifact files,
	// the image), or nil.
	Sources []string
	// Found is the subject's value, or "" when there is no subject (an
	// invalid result is bound to none).
	Found  string
	Passed bool
	// Reason, when the check failed, starts with CodeSubjectMismatch and
	// names what was expected and what was found.
	Reason string
}

// Evaluate evaluates q against the subject of the verification result r:
// one outcome per check, in the order of the SubjectCheck constants. An
// invalid result is about no subject, so every check fails.
func (q SubjectRequirement) Evaluate(r Result) []SubjectOutcome {
	if !r.Valid {
		return q.EvaluateSubject(nil)
	}
	s := r.Subject
	return q.EvaluateSubject(&s)
}

// EvaluateSubject is [SubjectRequirement.Evaluate] for a subject (nil:
// none, every check fails): that of a valid conformance bundle
// ([BundleSubject]), for instance.
func (q SubjectRequirement) EvaluateSubject(s *Subject) []SubjectOutcome {
	var out []SubjectOutcome
	about := ""
	if s != nil {
		about = fmt.Sprintf(" (subject %q version %q)", s.Name, s.Version)
	}
	digestCheck := func(check string, as []Artifact) {
		o := SubjectOutcome{Check: check}
		var named []string
		for _, a := range as {
			o.Expected = append(o.Expected, a.Digest)
			if a.Source != "" {
				o.Sources = append(o.Sources, a.Source)
				named = append(named, fmt.Sprintf("%s (%s)", a.Source, a.Digest))
			} else {
				named = append(named, a.Digest)
			}
		}
		if len(o.Sources) != len(o.Expected) {
			o.Sources = nil
		}
		want := strings.Join(named, " or ")
		switch {
		case s == nil:
			o.Reason = fmt.Sprintf("%s: %s: expected %s, found no subject: the bundle did not verify, so it is bound to no subject", CodeSubjectMismatch, check, want)
		default:
			o.Found = s.Digest
			for _, d := range o.Expected {
				o.Passed = o.Passed || d == s.Digest
			}
			if !o.Passed {
				o.Reason = fmt.Sprintf("%s: %s: expected %s, found %s%s", CodeSubjectMismatch, check, want, s.Digest, about)
			}
		}
		out = append(out, o)
	}
	exact := func(check, want string, found func(*Subject) string) {
		o := SubjectOutcome{Check: check, Expected: []string{want}}
		switch {
		case s == nil:
			o.Reason = fmt.Sprintf("%s: %s: expected %q, found no subject: the bundle did not verify, so it is bound to no subject", CodeSubjectMismatch, check, want)
		default:
			o.Found = found(s)
			o.Passed = o.Found == want
			if !o.Passed {
				o.Reason = fmt.Sprintf("%s: %s: expected %q, found %q (subject digest %s)", CodeSubjectMismatch, check, want, o.Found, s.Digest)
			}
		}
		out = append(out, o)
	}
	if q.Image != nil {
		digestCheck(SubjectCheckImage, []Artifact{*q.Image})
	}
	if len(q.Artifacts) > 0 {
		digestCheck(SubjectCheckArtifact, q.Artifacts)
	}
	if len(q.Digests) > 0 {
		as := make([]Artifact, len(q.Digests))
		for i, d := range q.Digests {
			as[i] = Artifact{Digest: d}
		}
		digestCheck(SubjectCheckDigest, as)
	}
	if q.Name != "" {
		exact(SubjectCheckName, q.Name, func(s *Subject) string { return s.Name })
	}
	if q.Version != "" {
		exact(SubjectCheckVersion, q.Version, func(s *Subject) string { return s.Version })
	}
	return out
}

// SubjectPassed reports whether every outcome passed (true for none).
func SubjectPassed(outs []SubjectOutcome) bool {
	for _, o := range outs {
		if !o.Passed {
			return false
		}
	}
	return true
}
