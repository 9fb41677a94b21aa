package bundle

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
)

// What ships, as a draft's evidence.subject names it: SetSubject writes it.
// A producer knows the artifact's digest only once it is built (an OCI
// image's manifest digest, a release file's SHA-256), often after its
// test harness wrote the draft; SetSubject puts it in, with the name and
// version, before Seal digests the subject into identityDigest.

// A SubjectUpdate is what SetSubject writes into evidence.subject: each
// non-empty field sets its member, an empty field leaves it as it is.
type SubjectUpdate struct {
	// ArtifactSha256 is the artifact's SHA-256 as 64 lowercase hex
	// digits (no "sha256:" prefix, as the member holds it).
	ArtifactSha256 string
	Name           string
	Version        string
}

// A SubjectChange is one member of evidence.subject that SetSubject set
// (Old is "" for a member that was empty or absent), or, in a
// *SubjectConflictError, one it refused to replace.
type SubjectChange struct {
	Member   string // "artifactSha256", "name" or "version"
	Old, New string // Old is the member's JSON text when it is not a string
}

// A SubjectConflictError reports members of evidence.subject that hold
// another value than the one asked for: SetSubject replaces them only
// when told to. The draft is unchanged.
type SubjectConflictError struct {
	Conflicts []SubjectChange
}

func (e *SubjectConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = fmt.Sprintf("%s is %s, not %s", c.Member, strconv.Quote(c.Old), strconv.Quote(c.New))
	}
	return "bundle: evidence.subject is about something else: " + strings.Join(parts, "; ") + " (replace it only if the draft is about what ships)"
}

// A SubjectError reports a draft or an update SetSubject cannot use: no
// evidence.subject object, or an artifact digest that is not 64
// lowercase hex digits.
type SubjectError struct {
	Path   string // RFC 6901 JSON Pointer of the member at fault; "" for the update
	Reason string
}

func (e *SubjectError) Error() string {
	if e.Path == "" {
		return "bundle: subject: " + e.Reason
	}
	return "bundle: subject: " + e.Path + ": " + e.Reason
}

// ValidArtifactSha256 reports whether s is an artifactSha256 value: 64
// lowercase hex digits.
func ValidArtifactSha256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// SetSubject writes u into draft's evidence.subject (artifactSha256, name,
// version; an absent member is appended) and returns the members it
// changed, in that order. A member that holds a different non-empty value
// (or a value of another JSON type) is replaced only when replace is true;
// otherwise SetSubject returns a *SubjectConflictError listing every such
// member and changes nothing. A member already equal to the update is no
// change. The subject's digests (identityDigest and those derived from it)
// are not recomputed: Seal does that.
//
// A draft without an evidence.subject object, or an ArtifactSha256 that is
// not 64 lowercase hex digits, is a *SubjectError, the draft unchanged.
func SetSubject(draft *canonjson.Value, u SubjectUpdate, replace bool) ([]SubjectChange, error) {
	if u.ArtifactSha256 != "" && !ValidArtifactSha256(u.ArtifactSha256) {
		return nil, &SubjectError{Reason: fmt.Sprintf("artifactSha256 %q is not 64 lowercase hex digits", u.ArtifactSha256)}
	}
	if u == (SubjectUpdate{}) {
		return nil, &SubjectError{Reason: "nothing to set (no artifact digest, name or version)"}
	}
	if !draft.Is(canonjson.Object) {
		return nil, &SubjectError{Path: "", Reason: "the draft is not a JSON object"}
	}
	ev := draft.Get("evidence")
	if !ev.Is(canonjson.Object) {
		return nil, &SubjectError{Path: "/evidence", Reason: "missing or not an object"}
	}
	subj := ev.Get("subject")
	if !subj.Is(canonjson.Object) {
		return nil, &SubjectError{Path: "/evidence/subject", Reason: "missing or not an object"}
	}
	var changes, conflicts []SubjectChange
	for _, m := range []struct{ key, val string }{
		{"artifactSha256", u.ArtifactSha256}, {"name", u.Name}, {"version", u.Version},
	} {
		if m.val == "" {
			continue
		}
		cur := subj.Get(m.key)
		old := ""
		switch {
		case cur == nil || (cur.Is(canonjson.String) && cur.Str == ""):
		case cur.Is(canonjson.String) && cur.Str == m.val:
			continue
		case cur.Is(canonjson.String):
			old = cur.Str
			conflicts = append(conflicts, SubjectChange{Member: m.key, Old: old, New: m.val})
		default:
			text, err := canonjson.Compact(cur)
			if err != nil {
				text = []byte(cur.Kind.String())
			}
			old = string(text)
			conflicts = append(conflicts, SubjectChange{Member: m.key, Old: old, New: m.val})
		}
		changes = append(changes, SubjectChange{Member: m.key, Old: old, New: m.val})
	}
	if len(conflicts) > 0 && !replace {
		return nil, &SubjectConflictError{Conflicts: conflicts}
	}
	for _, c := range changes {
		subj.Set(c.Member, canonjson.NewString(c.New))
	}
	return changes, nil
}
