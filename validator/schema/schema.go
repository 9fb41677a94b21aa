package schema

import (
	"embed"
	"fmt"
	"hash/maphash"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/mcpres/mcpres/canonjson"
)

// The embedded MCP-RES v0.2.0 schema documents. Embedding costs nothing at
// startup: the bytes are read only when Load compiles them.
//
//go:embed schemas/*.schema.json
var embedded embed.FS

// Names of the embedded schemas, accepted by Set.Validate and Set.Schema.
// Each is the file name of its document without ".schema.json".
const (
	ConformanceBundle         = "conformance-bundle"          // §3.1
	EvidenceEnvelope          = "evidence-envelope"           // §3.1.1
	Observation               = "observation"                 // §3.1.6
	ObservationCoverage       = "observation-coverage"        // §3.1.7
	TrialSummary              = "trial-summary"               // §3.1.8
	ConformanceStatement      = "conformance-statement"       // §3.1.9
	IntegrityManifest         = "integrity-manifest"          // §3.1.10
	AttestedConformanceBundle = "attested-conformance-bundle" // §3.2.1
	Authenticity              = "authenticity"                // §3.2.2
	DSSEEnvelope              = "dsse-envelope"               // §3.2.3
	InTotoStatement           = "in-toto-statement"           // §3.2.4
	TrustPolicy               = "trust-policy"                // §3.2.5
	Common                    = "common"                      // shared $defs only
)

const fileSuffix = ".schema.json"

// An Error is one schema violation (REFERENCE §1.8). InstancePath is an
// RFC 6901 JSON Pointer to the failing value ("" for the root; for
// "required" and "additionalProperties" it is the object that lacks or
// carries the member). Keyword is the failing keyword. Message is free text.
type Error struct {
	InstancePath string `json:"instancePath"`
	Keyword      string `json:"keyword"`
	Message      string `json:"message"`
}

// Summary describes a non-empty list of errors in one line: the first
// error's location, message and keyword, and how many more there are.
func Summary(errs []Error) string {
	if len(errs) == 0 {
		return "no schema errors"
	}
	e := errs[0]
	p := e.InstancePath
	if p == "" {
		p = "(root)"
	}
	s := fmt.Sprintf("%s: %s (%s)", p, e.Message, e.Keyword)
	if len(errs) > 1 {
		s += fmt.Sprintf(" and %d more", len(errs)-1)
	}
	return s
}

func (e Error) Error() string {
	return fmt.Sprintf("%s at %q: %s", e.Keyword, e.InstancePath, e.Message)
}

// A Set is a compiled collection of schema documents that refer to each
// other by $id. It is immutable and safe for concurrent use.
type Set struct {
	schemas  map[string]*Schema
	versions map[string]string // schemaVersion const → schema name
	seed     maphash.Seed
	// lazy is the compiler of a Set whose schemas compile on first use
	// (Load), shared by them under mu; nil when LoadFS compiled them all.
	mu   sync.Mutex
	lazy *compiler
}

// A Schema is one compiled document of a Set.
type Schema struct {
	name string
	id   string
	set  *Set
	once sync.Once // compiles root on first use (see node)
	root *node
	seed maphash.Seed
}

// Load reads the embedded MCP-RES v0.2.0 schemas. Each compiles on its
// first use (and the documents it refers to with it): a command that
// checks three kinds of document compiles those, not all twenty-one (a
// third of the start-up of a one-file attest verify was compiling the
// rest). It does the work once per call; callers keep the returned Set.
// An error means the embedded documents are broken, which is a bug in
// this package; so is a schema that fails to compile on first use, which
// panics (the tests compile every one eagerly, with LoadFS).
func Load() (*Set, error) {
	sub, err := fs.Sub(embedded, "schemas")
	if err != nil {
		return nil, err
	}
	return load(sub, false)
}

// LoadFS compiles every "*.schema.json" file at the root of fsys. Every
// document needs a root "$id"; "$ref" values are resolved against it and may
// name any document of the set. Only the keyword subset of REFERENCE §1.8 is
// accepted (plus "$schema", "$id", "$defs", "$comment", "title" and
// "description"); any other keyword, a "format" other than "date-time" or
// "uri", a pattern outside the supported ECMAScript subset or an unresolvable
// "$ref" is an error.
func LoadFS(fsys fs.FS) (*Set, error) {
	return load(fsys, true)
}

// load reads the documents of fsys and compiles them all when eager, else
// each on first use.
func load(fsys fs.FS, eager bool) (*Set, error) {
	files, err := fs.Glob(fsys, "*"+fileSuffix)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("schema: no *%s files", fileSuffix)
	}
	c := newCompiler()
	names := make(map[string]string, len(files)) // name → $id
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		id, err := c.addDocument(f, data)
		if err != nil {
			return nil, err
		}
		names[strings.TrimSuffix(path.Base(f), fileSuffix)] = id
	}
	if eager {
		if err := c.compileAll(); err != nil {
			return nil, err
		}
	}
	s := &Set{
		schemas:  make(map[string]*Schema, len(names)),
		versions: make(map[string]string, len(names)),
		seed:     maphash.MakeSeed(),
	}
	if !eager {
		s.lazy = c
	}
	for name, id := range names {
		sch := &Schema{name: name, id: id, set: s, seed: s.seed}
		if eager {
			sch.root = c.nodes[id+"#"]
		}
		s.schemas[name] = sch
		if sv := schemaVersion(c.docs[id]); sv != "" {
			s.versions[sv] = name
		}
	}
	return s, nil
}

// schemaVersion returns the string "const" of a schema document's root
// property "schemaVersion", if it declares one (read from the document:
// a Set from Load knows it before compiling anything).
func schemaVersion(doc *canonjson.Value) string {
	if c := doc.Path("properties", "schemaVersion", "const"); c.Is(canonjson.String) {
		return c.Str
	}
	return ""
}

// node returns the compiled root of sch, compiling it first in a Set that
// Load made (under the Set's lock: the compiler's tables are shared by
// all its schemas).
func (sch *Schema) node() *node {
	sch.once.Do(func() {
		if sch.root != nil {
			return
		}
		s := sch.set
		s.mu.Lock()
		defer s.mu.Unlock()
		root, err := s.lazy.compileAt(sch.id, "")
		if err == nil {
			err = s.lazy.checkCycles()
		}
		if err != nil {
			panic(fmt.Sprintf("schema: embedded schema %s does not compile: %v", sch.name, err))
		}
		sch.root = root
	})
	return sch.root
}

// Names returns the names of the schemas in s, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.schemas))
	for name := range s.schemas {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Schema returns the schema called name, or nil if s has none.
func (s *Set) Schema(name string) *Schema { return s.schemas[name] }

// NameForSchemaVersion returns the name of the schema whose root member
// "schemaVersion" is the constant v (e.g. "mcp-res.trust-policy/0.2.0" →
// "trust-policy").
func (s *Set) NameForSchemaVersion(v string) (string, bool) {
	name, ok := s.versions[v]
	return name, ok
}

// Validate validates v against the schema called name and returns every
// violation, or nil when v is valid. It panics if s has no such schema: the
// names are constants of the caller's program.
func (s *Set) Validate(name string, v *canonjson.Value) []Error {
	sch := s.schemas[name]
	if sch == nil {
		panic("schema: unknown schema " + name)
	}
	return sch.Validate(v)
}

// ValidateMax is Validate keeping at most max errors (max ≥ 1; below 1,
// every error): evaluation stops at the max-th error it meets, and those
// are returned in Validate's order. Validate renders every error (an
// instance path and a message each), so its memory grows with the number
// of errors, which a small document can make large (each of 250,000
// empty objects misses every required member); ValidateMax bounds it.
// Validity is the same as Validate's.
func (s *Set) ValidateMax(name string, v *canonjson.Value, max int) []Error {
	sch := s.schemas[name]
	if sch == nil {
		panic("schema: unknown schema " + name)
	}
	return sch.validate(v, max)
}

// Name returns the schema's name in its Set.
func (sch *Schema) Name() string { return sch.name }

// ID returns the schema document's $id.
func (sch *Schema) ID() string { return sch.id }

// Validate validates v and returns every violation, or nil when v is valid.
// A nil v (an absent value) fails every schema with a "type" keyword.
//
// Errors are in a deterministic order: by the document (pre-order) position
// of their instance location — members in input order, items by index — and
// at one location by keyword, in the order type, const, enum, required,
// additionalProperties, minItems, maxItems, uniqueItems, minLength,
// maxLength, pattern, format, minimum, maximum, oneOf. Errors of one keyword
// at one location keep evaluation order (missing members in the order of
// "required", extra members in input order).
func (sch *Schema) Validate(v *canonjson.Value) []Error { return sch.validate(v, 0) }

// validate is Validate keeping at most max errors when max ≥ 1.
func (sch *Schema) validate(v *canonjson.Value, max int) []Error {
	// Most documents are valid: a first pass that stops at the first
	// violation and tracks no path says so; only an invalid one is
	// walked again to collect its errors.
	if sch.Valid(v) {
		return nil
	}
	return sch.collect(v, max)
}

// collect walks v collecting its errors, at most max when max ≥ 1.
func (sch *Schema) collect(v *canonjson.Value, max int) []Error {
	e := evaluator{collect: true, seed: sch.seed, max: max, path: make([]segment, 0, 24)}
	if e.eval(sch.node(), v) {
		return nil
	}
	return e.sorted()
}

// Valid reports whether v is valid, stopping at the first violation.
func (sch *Schema) Valid(v *canonjson.Value) bool {
	// No path: nothing is recorded. The evaluator stays on the stack.
	e := evaluator{seed: sch.seed}
	return e.eval(sch.node(), v)
}
