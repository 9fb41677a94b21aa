package official

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// MaxImportChecks is the most check objects the official output may hold.
const MaxImportChecks = 4096

// ImportConfig is an mcpres.official-import-config/v1 document: everything
// an attachment records that the official tool's output does not. Lists of
// check references are sorted and de-duplicated by Import.
type ImportConfig struct {
	SchemaVersion    string         `json:"schemaVersion"`
	Source           Source         `json:"source"`
	ProtocolRevision string         `json:"protocolRevision"`
	RequirementSet   RequirementSet `json:"requirementSet"`
	Mode             string         `json:"mode"`
	Suite            string         `json:"suite"`
	Legs             Legs           `json:"legs"`
	// ScenarioID is the scenario of every check whose metadata.scenario
	// is not a string.
	ScenarioID string `json:"scenarioId"`
	// Scenarios are added to the scenarios the checks name.
	Scenarios []string `json:"scenarios,omitempty"`
	// ExpectedChecks are the declared references; nil (absent) declares
	// exactly the emitted ones.
	ExpectedChecks          []string   `json:"expectedChecks,omitempty"`
	Pending                 []string   `json:"pending,omitempty"`
	NotScored               []string   `json:"notScored,omitempty"`
	ExpectedFailureBaseline []string   `json:"expectedFailureBaseline,omitempty"`
	ObservationCoverage     []Coverage `json:"observationCoverage"`
	// OriginalResultArtifact, when set, replaces the digest and length of
	// the output given to Import (e.g. the output was sanitized and the
	// attachment binds the unsanitized original).
	OriginalResultArtifact *ArtifactDigest `json:"originalResultArtifact,omitempty"`
	// Sanitization defaults to {"applied": false, "fields": []}.
	Sanitization *Sanitization `json:"sanitization,omitempty"`
	Harness      Harness       `json:"harness"`
}

// ArtifactDigest is the SHA-256 and byte length of a file.
type ArtifactDigest struct {
	Sha256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// ParseImportConfig checks doc against the mcpres.official-import-config/v1
// schema and decodes it. A violation is an *InputError naming the first
// schema error.
func (v *Validator) ParseImportConfig(doc *canonjson.Value) (*ImportConfig, error) {
	if errs := v.schemaSet().Validate(ImportConfigSchemaName, doc); len(errs) > 0 {
		return nil, &validator.InputError{Reason: "import configuration: " + schema.Summary(errs)}
	}
	var cfg ImportConfig
	if err := canonjson.Unmarshal(doc, &cfg); err != nil {
		return nil, &validator.InputError{Reason: "import configuration: " + err.Error()}
	}
	return &cfg, nil
}

var officialOutcomes = []string{"SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"}

// Import builds an attachment from raw, the official conformance tool's
// JSON output, and cfg (REFERENCE §8.1). raw must be, under the strict
// reader, an array of at most MaxImportChecks objects, each with a string
// "id" and a "status" of SUCCESS, FAILURE, WARNING, SKIPPED or INFO, and no
// two with the same reference; otherwise the error is an *ImportError with
// MCP_RES_OFFICIAL_INPUT_INVALID. An emitted check that cfg does not declare
// is MCP_RES_OFFICIAL_COVERAGE_INCOMPLETE.
//
// Per check: scenarioId is metadata.scenario when that is a string, else
// cfg.ScenarioID; checkId is id; outcome is status, unchanged; wireSchema
// is whether id starts with "wire-schema-"; baselineExpected is whether the
// reference is in the baseline and the outcome is FAILURE or WARNING;
// untestable (true) is present only when details.untestable is true;
// errorMessage only when it is a string; detailsSha256 is the canonical
// digest of details ({} when details is absent or null).
//
// The inventories are sorted (UTF-16 code units) and de-duplicated; pending
// is the configured pending references plus the declared ones not emitted;
// staleExpectedFailures are the baseline entries that are not failing
// references; originalResultArtifact is the SHA-256 and length of raw unless
// cfg overrides them; mappingBoundary claims nothing; importStatus is
// DeriveStatus. The attachment's members are in REFERENCE §3.4 order.
//
// Import does not validate the attachment: a configuration can still make
// it invalid (e.g. a pending reference that was executed, a reference
// longer than the schema allows); run Validator.Validate on the result.
func Import(raw []byte, cfg *ImportConfig) (*canonjson.Value, error) {
	bad := func(format string, args ...any) (*canonjson.Value, error) {
		return nil, &ImportError{Code: CodeImportInputInvalid, Reason: fmt.Sprintf(format, args...)}
	}
	out, err := canonjson.Parse(raw)
	if err != nil {
		return bad("the official output is not strict JSON: %v", err)
	}
	if !out.Is(canonjson.Array) {
		return bad("the official output is a JSON %s, not an array of checks", out.Kind)
	}
	if len(out.Items) > MaxImportChecks {
		return bad("the official output has %d checks, more than %d", len(out.Items), MaxImportChecks)
	}
	baseline := sortedUnique(cfg.ExpectedFailureBaseline)
	inBaseline := setOf(baseline)
	checks := make([]Check, 0, len(out.Items))
	refs := make(map[string]bool, len(out.Items))
	for i, item := range out.Items {
		if !item.Is(canonjson.Object) {
			return bad("check %d is not an object", i)
		}
		id, status := item.Get("id"), item.Get("status")
		if !id.Is(canonjson.String) {
			return bad("check %d has no string id", i)
		}
		if !status.Is(canonjson.String) || !slices.Contains(officialOutcomes, status.Str) {
			return bad("check %d (%q) has no status among %s", i, id.Str, strings.Join(officialOutcomes, ", "))
		}
		ch := Check{ScenarioID: cfg.ScenarioID, CheckID: id.Str, Outcome: status.Str}
		if sc := item.Path("metadata", "scenario"); sc.Is(canonjson.String) {
			ch.ScenarioID = sc.Str
		}
		ref := ch.Ref()
		if refs[ref] {
			return bad("check reference %q appears twice", ref)
		}
		refs[ref] = true
		ch.WireSchema = strings.HasPrefix(ch.CheckID, "wire-schema-")
		ch.BaselineExpected = inBaseline[ref] && ch.failing()
		details := item.Get("details")
		if u := details.Get("untestable"); u.Is(canonjson.Bool) && u.Bool {
			t := true
			ch.Untestable = &t
		}
		if m := item.Get("errorMessage"); m.Is(canonjson.String) {
			msg := m.Str
			ch.ErrorMessage = &msg
		}
		if details == nil || details.Is(canonjson.Null) {
			details = canonjson.NewObject()
		}
		sum, _, err := canonjson.Digest(details)
		if err != nil {
			return bad("check %d (%q): details have no canonical form: %v", i, ref, err)
		}
		ch.DetailsSha256 = sum
		checks = append(checks, ch)
	}

	emitted := make([]string, 0, len(checks))
	for i := range checks {
		emitted = append(emitted, checks[i].Ref())
	}
	declared := sortedUnique(emitted)
	if cfg.ExpectedChecks != nil {
		declared = sortedUnique(cfg.ExpectedChecks)
	}
	isDeclared := setOf(declared)
	for _, ref := range sortedUnique(emitted) {
		if !isDeclared[ref] {
			return nil, &ImportError{Code: CodeCoverageIncomplete, Reason: fmt.Sprintf("emitted check %q is not declared in expectedChecks", ref)}
		}
	}
	refsWhere := func(keep func(*Check) bool) []string {
		var l []string
		for i := range checks {
			if keep(&checks[i]) {
				l = append(l, checks[i].Ref())
			}
		}
		return sortedUnique(l)
	}
	pending := slices.Clone(cfg.Pending)
	for _, ref := range declared {
		if !refs[ref] {
			pending = append(pending, ref)
		}
	}
	stale := []string{}
	failing := setOf(refsWhere((*Check).failing))
	for _, ref := range baseline {
		if !failing[ref] {
			stale = append(stale, ref)
		}
	}
	baseSum, _, err := canonjson.Digest(stringArray(baseline))
	if err != nil {
		return bad("baseline entries have no canonical form: %v", err)
	}
	scenarios := append(slices.Clone(cfg.Scenarios), cfg.ScenarioID)
	for i := range checks {
		scenarios = append(scenarios, checks[i].ScenarioID)
	}
	art := OriginalResultArtifact{
		Sha256:       canonjson.BytesDigest(raw),
		Bytes:        int64(len(raw)),
		Sanitization: Sanitization{Applied: false, Fields: []string{}},
	}
	if o := cfg.OriginalResultArtifact; o != nil {
		art.Sha256, art.Bytes = o.Sha256, o.Bytes
	}
	if s := cfg.Sanitization; s != nil {
		art.Sanitization = Sanitization{Applied: s.Applied, Fields: nonNil(s.Fields)}
	}
	a := &Attachment{
		SchemaVersion:    bundle.SchemaVersionOfficialAttachment,
		Source:           cfg.Source,
		ProtocolRevision: cfg.ProtocolRevision,
		RequirementSet:   cfg.RequirementSet,
		Mode:             cfg.Mode,
		Suite:            cfg.Suite,
		Legs:             cfg.Legs,
		Scenarios:        sortedUnique(scenarios),
		Checks:           checks,
		Inventories: Inventories{
			Declared:   declared,
			Executed:   sortedUnique(emitted),
			WireSchema: refsWhere(func(c *Check) bool { return c.WireSchema }),
			Warnings:   refsWhere(func(c *Check) bool { return c.Outcome == "WARNING" }),
			Skipped:    refsWhere(func(c *Check) bool { return c.Outcome == "SKIPPED" }),
			Untestable: refsWhere(func(c *Check) bool { return c.Untestable != nil }),
			Pending:    sortedUnique(pending),
			NotScored:  sortedUnique(cfg.NotScored),
		},
		ExpectedFailureBaseline: Baseline{Entries: baseline, Sha256: baseSum},
		StaleExpectedFailures:   stale,
		ObservationCoverage:     nonNil(cfg.ObservationCoverage),
		OriginalResultArtifact:  art,
		Harness:                 Harness{ExitCode: cfg.Harness.ExitCode, Warnings: nonNil(cfg.Harness.Warnings)},
		MappingBoundary:         MappingBoundary{OfficialResultPreserved: true},
	}
	a.ImportStatus = DeriveStatus(a)
	return canonjson.FromGo(a)
}

// sortedUnique returns a sorted (UTF-16 code units), duplicate-free copy of
// refs; never nil.
func sortedUnique(refs []string) []string {
	out := slices.Clone(refs)
	if out == nil {
		out = []string{}
	}
	slices.SortFunc(out, canonjson.CompareKeys)
	return slices.Compact(out)
}

func setOf(refs []string) map[string]bool {
	m := make(map[string]bool, len(refs))
	for _, r := range refs {
		m[r] = true
	}
	return m
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func stringArray(ss []string) *canonjson.Value {
	items := make([]*canonjson.Value, len(ss))
	for i, s := range ss {
		items[i] = canonjson.NewString(s)
	}
	return canonjson.NewArray(items...)
}
