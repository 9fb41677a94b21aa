package profile

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator/schema"
)

// A File is one member of a profile set before it is checked: its name in
// the set, and either its bytes or the error that made it unreadable.
type File struct {
	Name string
	Data []byte
	Err  error
}

// A Set is a reliability-profile manifest set, read but not yet checked
// (Validator.Manifests checks it). It is immutable and safe for concurrent
// use.
type Set struct {
	entries []entry

	mu      sync.Mutex
	checked map[*schema.Set]setCheck // Manifests' result per schema set
}

type setCheck struct {
	manifests map[string]*Manifest
	err       error
}

type entry struct {
	name string
	doc  *canonjson.Value
	err  error
}

// NewSet returns the set holding files, ordered by name in UTF-16 code
// units. Each file's bytes are parsed with the strict reader now; a parse
// failure, like File.Err, makes the set invalid when it is checked.
func NewSet(files ...File) *Set {
	s := &Set{entries: make([]entry, 0, len(files))}
	for _, f := range files {
		e := entry{name: f.Name, err: f.Err}
		if e.err == nil {
			e.doc, e.err = canonjson.Parse(f.Data)
		}
		s.entries = append(s.entries, e)
	}
	slices.SortStableFunc(s.entries, func(a, b entry) int { return canonjson.CompareKeys(a.name, b.name) })
	return s
}

// LoadDir reads the profile set in dir: every entry whose name ends in
// ".json" (case-sensitive; dot-files included), read with the strict reader
// (canonjson.ReadFileBytes). An entry that cannot be read — not a regular
// file, a symbolic link, too large, a read error — stays in the set as
// unreadable, so checking the set fails (REFERENCE §5.6 step 2, §10 row
// 27). The error is non-nil only when dir itself cannot be listed.
func LoadDir(dir string) (*Set, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("profile set: %w", err)
	}
	var files []File
	for _, de := range des {
		name := de.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := canonjson.ReadFileBytes(filepath.Join(dir, name))
		files = append(files, File{Name: name, Data: data, Err: err})
	}
	return NewSet(files...), nil
}

// Len returns the number of files in s.
func (s *Set) Len() int { return len(s.entries) }

// A Manifest is one checked reliability-profile manifest.
type Manifest struct {
	File               string // name in the set
	ID                 string
	Version            string
	Status             string // PROVISIONAL or EXPERIMENTAL
	ProtocolRevisions  []string
	RequiredChecks     []string
	ConditionalChecks  []ConditionalCheck
	ExperimentalChecks []string
	// Sha256 is the canonical digest of the manifest object, the value an
	// evaluation's profile.manifestSha256 must carry.
	Sha256 string
	Doc    *canonjson.Value
}

// A ConditionalCheck applies only to the listed protocol revisions.
type ConditionalCheck struct {
	ID                string   `json:"id"`
	ProtocolRevisions []string `json:"protocolRevisions"`
}

type manifestDoc struct {
	SchemaVersion          string             `json:"schemaVersion"`
	ID                     string             `json:"id"`
	Version                string             `json:"version"`
	Status                 string             `json:"status"`
	ProtocolRevisions      []string           `json:"protocolRevisions"`
	SourceRefs             []string           `json:"sourceRefs"`
	RequiredChecks         []string           `json:"requiredChecks"`
	ConditionalChecks      []ConditionalCheck `json:"conditionalChecks"`
	ExperimentalChecks     []string           `json:"experimentalChecks"`
	ExperimentalProvenance *canonjson.Value   `json:"experimentalProvenance"`
	RemotePolicy           string             `json:"remotePolicy"`
	CompositionBoundary    string             `json:"compositionBoundary"`
}

// SupportsRevision reports whether the manifest lists revision.
func (m *Manifest) SupportsRevision(revision string) bool {
	return slices.Contains(m.ProtocolRevisions, revision)
}

// RevisionProblem returns why the manifest does not list revision (the
// detail of the revision-unsupported diagnostic of a profile or OAuth
// evaluation), or "" when it does.
func (m *Manifest) RevisionProblem(revision string) string {
	if m.SupportsRevision(revision) {
		return ""
	}
	return fmt.Sprintf("manifest %s supports %s, not %s", m.ID, strings.Join(m.ProtocolRevisions, " and "), revision)
}

// DigestProblem returns why sha256, an evaluation's profile.manifestSha256,
// is not the manifest's digest (the detail of the manifest-digest-mismatch
// diagnostic), or "" when it is.
func (m *Manifest) DigestProblem(sha256 string) string {
	if sha256 == m.Sha256 {
		return ""
	}
	return fmt.Sprintf("profile.manifestSha256 is %s, manifest %s (%s) digests to %s", sha256, m.ID, m.File, m.Sha256)
}

// Applicable returns the checks a full claim for revision must cover: the
// required checks and the conditional checks that list revision, sorted by
// UTF-16 code units. Experimental checks are never applicable.
func (m *Manifest) Applicable(revision string) []string {
	out := slices.Clone(m.RequiredChecks)
	for _, c := range m.ConditionalChecks {
		if slices.Contains(c.ProtocolRevisions, revision) {
			out = append(out, c.ID)
		}
	}
	slices.SortFunc(out, canonjson.CompareKeys)
	return out
}

// Registered reports whether id is a required, conditional (for any
// revision) or experimental check of the manifest.
func (m *Manifest) Registered(id string) bool {
	if slices.Contains(m.RequiredChecks, id) || slices.Contains(m.ExperimentalChecks, id) {
		return true
	}
	return slices.ContainsFunc(m.ConditionalChecks, func(c ConditionalCheck) bool { return c.ID == id })
}

// A ManifestError says why a profile set is invalid: the file and the first
// rule it breaks.
type ManifestError struct {
	File   string
	Reason string
}

func (e *ManifestError) Error() string {
	if e.File == "" {
		return "profile set: " + e.Reason
	}
	return "profile manifest " + e.File + ": " + e.Reason
}

// Manifests checks set as REFERENCE §5.6 step 2 requires and returns its
// manifests by id, or a *ManifestError for the first problem in file order:
// a file that is unreadable or not strict JSON, a schema violation, status
// EXPERIMENTAL without experimentalProvenance or PROVISIONAL with it, a
// check id listed twice among the required, conditional and experimental
// checks of one manifest, or a manifest id used by an earlier file.
//
// A set is checked once per schema set and the outcome kept: validating a
// folder of evaluations against one set costs one check. The Manifest
// values are shared and must not be modified.
func (v *Validator) Manifests(set *Set) (map[string]*Manifest, error) {
	schemas := v.schemaSet()
	set.mu.Lock()
	defer set.mu.Unlock()
	c, ok := set.checked[schemas]
	if !ok {
		c.manifests, c.err = v.checkSet(set)
		if set.checked == nil {
			set.checked = map[*schema.Set]setCheck{}
		}
		set.checked[schemas] = c
	}
	if c.err != nil {
		return nil, c.err
	}
	return maps.Clone(c.manifests), nil
}

func (v *Validator) checkSet(set *Set) (map[string]*Manifest, error) {
	out := make(map[string]*Manifest, len(set.entries))
	for _, e := range set.entries {
		bad := func(format string, args ...any) (map[string]*Manifest, error) {
			return nil, &ManifestError{File: e.name, Reason: fmt.Sprintf(format, args...)}
		}
		if e.err != nil {
			return bad("unreadable: %v", e.err)
		}
		if errs := v.schemaSet().Validate(ManifestSchemaName, e.doc); len(errs) > 0 {
			return bad("schema-invalid: %s", schema.Summary(errs))
		}
		var md manifestDoc
		if err := canonjson.Unmarshal(e.doc, &md); err != nil {
			return bad("schema-valid manifest does not decode: %v", err)
		}
		hasProvenance := md.ExperimentalProvenance != nil
		if (md.Status == StatusExperimental) != hasProvenance {
			if hasProvenance {
				return bad("status %s with experimentalProvenance (only EXPERIMENTAL manifests carry it)", md.Status)
			}
			return bad("status EXPERIMENTAL without experimentalProvenance")
		}
		seen := map[string]bool{}
		ids := slices.Clone(md.RequiredChecks)
		for _, c := range md.ConditionalChecks {
			ids = append(ids, c.ID)
		}
		ids = append(ids, md.ExperimentalChecks...)
		for _, id := range ids {
			if seen[id] {
				return bad("check id %q is listed twice", id)
			}
			seen[id] = true
		}
		if prev, dup := out[md.ID]; dup {
			return bad("manifest id %s is also the id of %s", md.ID, prev.File)
		}
		sum, _, err := canonjson.Digest(e.doc)
		if err != nil {
			return bad("no canonical form: %v", err)
		}
		out[md.ID] = &Manifest{
			File: e.name, ID: md.ID, Version: md.Version, Status: md.Status,
			ProtocolRevisions: md.ProtocolRevisions, RequiredChecks: md.RequiredChecks,
			ConditionalChecks: md.ConditionalChecks, ExperimentalChecks: md.ExperimentalChecks,
			Sha256: sum, Doc: e.doc,
		}
	}
	return out, nil
}
