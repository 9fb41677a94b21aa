package official

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// Attachment is the decoded form of a schema-valid attachment (REFERENCE
// §3.4). Member order of the Go struct is the order Import writes.
type Attachment struct {
	SchemaVersion           string                 `json:"schemaVersion"`
	Source                  Source                 `json:"source"`
	ProtocolRevision        string                 `json:"protocolRevision"`
	RequirementSet          RequirementSet         `json:"requirementSet"`
	Mode                    string                 `json:"mode"`
	Suite                   string                 `json:"suite"`
	Legs                    Legs                   `json:"legs"`
	Scenarios               []string               `json:"scenarios"`
	Checks                  []Check                `json:"checks"`
	Inventories             Inventories            `json:"inventories"`
	ExpectedFailureBaseline Baseline               `json:"expectedFailureBaseline"`
	StaleExpectedFailures   []string               `json:"staleExpectedFailures"`
	ObservationCoverage     []Coverage             `json:"observationCoverage"`
	OriginalResultArtifact  OriginalResultArtifact `json:"originalResultArtifact"`
	Harness                 Harness                `json:"harness"`
	MappingBoundary         MappingBoundary        `json:"mappingBoundary"`
	ImportStatus            string                 `json:"importStatus"`
}

// Source identifies the official tool package.
type Source struct {
	PackageName      string `json:"packageName"`
	PackageVersion   string `json:"packageVersion"`
	PackageSha256    string `json:"packageSha256"`
	Repository       string `json:"repository"`
	RepositoryCommit string `json:"repositoryCommit"`
}

// RequirementSet pins the official requirement set.
type RequirementSet struct {
	Revision string `json:"revision"`
	Sha256   string `json:"sha256"`
}

// Legs records whether each leg ran: EXECUTED, NOT_EXECUTED or UNTESTABLE.
type Legs struct {
	Client string `json:"client"`
	Server string `json:"server"`
}

// Check is one official check, its outcome copied verbatim.
type Check struct {
	ScenarioID       string  `json:"scenarioId"`
	CheckID          string  `json:"checkId"`
	Outcome          string  `json:"outcome"`
	WireSchema       bool    `json:"wireSchema"`
	BaselineExpected bool    `json:"baselineExpected"`
	Untestable       *bool   `json:"untestable,omitempty"`
	ErrorMessage     *string `json:"errorMessage,omitempty"`
	DetailsSha256    string  `json:"detailsSha256"`
}

// Ref returns the check reference "<scenarioId>:<checkId>".
func (c *Check) Ref() string { return c.ScenarioID + ":" + c.CheckID }

// failing reports whether the official outcome is FAILURE or WARNING.
func (c *Check) failing() bool { return c.Outcome == "FAILURE" || c.Outcome == "WARNING" }

// Inventories lists check references by category.
type Inventories struct {
	Declared   []string `json:"declared"`
	Executed   []string `json:"executed"`
	WireSchema []string `json:"wireSchema"`
	Warnings   []string `json:"warnings"`
	Skipped    []string `json:"skipped"`
	Untestable []string `json:"untestable"`
	Pending    []string `json:"pending"`
	NotScored  []string `json:"notScored"`
}

// Baseline is the expected-failure baseline and the digest of its entries.
type Baseline struct {
	Entries []string `json:"entries"`
	Sha256  string   `json:"sha256"`
}

// Coverage is one observation-coverage entry (surface is free text).
type Coverage struct {
	Surface string `json:"surface"`
	Status  string `json:"status"`
}

// OriginalResultArtifact binds the raw bytes of the official tool output.
type OriginalResultArtifact struct {
	Sha256       string       `json:"sha256"`
	Bytes        int64        `json:"bytes"`
	Sanitization Sanitization `json:"sanitization"`
}

// Sanitization records whether, and which, fields were sanitized.
type Sanitization struct {
	Applied bool     `json:"applied"`
	Fields  []string `json:"fields"`
}

// Harness records how the official tool's process ended.
type Harness struct {
	ExitCode int64    `json:"exitCode"`
	Warnings []string `json:"warnings"`
}

// MappingBoundary keeps the official result apart from MCP-RES evidence.
type MappingBoundary struct {
	OfficialResultPreserved    bool    `json:"officialResultPreserved"`
	ExplicitMapping            bool    `json:"explicitMapping"`
	McpResEvidenceClass        *string `json:"mcpResEvidenceClass"`
	OfficialCertificationClaim bool    `json:"officialCertificationClaim"`
}

// A Validator validates official conformance attachments. It is safe for
// concurrent use.
type Validator struct {
	core *validator.Validator
}

// New returns a Validator that uses the schemas of v, the core validator
// (validator.Validator.Schemas, the one lazy loader). With nil it uses a
// validator.New of its own.
func New(v *validator.Validator) *Validator {
	if v == nil {
		v = validator.New()
	}
	return &Validator{core: v}
}

func (v *Validator) schemaSet() *schema.Set { return v.core.Schemas() }

// Options are inputs beyond the attachment itself.
type Options struct {
	// OriginalResult holds the raw bytes of the official tool output
	// (mcpres validate --original-result FILE). When nil, step 8 is skipped.
	OriginalResult *OriginalResult
}

// OriginalResult is the raw content of the official tool's output file.
type OriginalResult struct {
	Bytes []byte
}

// Validate validates doc as an official conformance attachment (REFERENCE
// §5.5; see the package documentation for the steps). A non-nil error is an
// *InputError and the Result is then zero.
func (v *Validator) Validate(doc *canonjson.Value, opts Options) (Result, error) {
	if errs := v.schemaSet().Validate(SchemaName, doc); len(errs) > 0 {
		r := Result{Result: validator.Fail(CodeSchemaInvalid, schema.Summary(errs))}
		r.SchemaErrors = errs
		return r, nil
	}
	var a Attachment
	if err := canonjson.Unmarshal(doc, &a); err != nil {
		return Result{}, &validator.InputError{Reason: "schema-valid attachment does not decode: " + err.Error()}
	}
	c := &attachmentCheck{doc: doc, a: &a, opts: opts}
	for _, check := range []func() (string, string, error){
		c.revision, c.leg, c.inventories, c.baselineDigest, c.expectedFailures,
		c.staleBaseline, c.originalResult, c.mapping, c.status,
	} {
		code, detail, err := check()
		if err != nil {
			return Result{}, &validator.InputError{Reason: err.Error()}
		}
		if code != "" {
			return Result{Result: validator.Fail(code, detail)}, nil
		}
	}
	return Result{Result: validator.PassWith(
		canonjson.Member{Key: "importStatus", Value: canonjson.NewString(a.ImportStatus)},
		canonjson.Member{Key: "officialCertificationClaim", Value: canonjson.NewBool(false)},
	), ImportStatus: a.ImportStatus}, nil
}

// attachmentCheck carries one decoded attachment through steps 2–10. Each
// check returns a code and detail on failure, "" when it passes.
type attachmentCheck struct {
	doc  *canonjson.Value
	a    *Attachment
	opts Options
}

// 2. Requirement-set revision.
func (c *attachmentCheck) revision() (string, string, error) {
	if c.a.ProtocolRevision != c.a.RequirementSet.Revision {
		return CodeRequirementRevisionMismatch, fmt.Sprintf("protocolRevision is %s, requirementSet.revision is %s",
			c.a.ProtocolRevision, c.a.RequirementSet.Revision), nil
	}
	return "", "", nil
}

// 3. The active leg ran.
func (c *attachmentCheck) leg() (string, string, error) {
	status := c.a.Legs.Server
	if c.a.Mode == "client" {
		status = c.a.Legs.Client
	}
	if status != "EXECUTED" {
		return CodeLegNotExecuted, fmt.Sprintf("mode is %s but legs.%s is %s", c.a.Mode, c.a.Mode, status), nil
	}
	return "", "", nil
}

// sortedRefs returns the references of the checks for which keep is true,
// sorted by UTF-16 code units.
func (c *attachmentCheck) sortedRefs(keep func(*Check) bool) []string {
	out := []string{}
	for i := range c.a.Checks {
		if keep(&c.a.Checks[i]) {
			out = append(out, c.a.Checks[i].Ref())
		}
	}
	slices.SortFunc(out, canonjson.CompareKeys)
	return out
}

// 4. Inventories.
func (c *attachmentCheck) inventories() (string, string, error) {
	mismatch := func(format string, args ...any) (string, string, error) {
		return CodeInventoryMismatch, fmt.Sprintf(format, args...), nil
	}
	seen := make(map[string]bool, len(c.a.Checks))
	for i := range c.a.Checks {
		ref := c.a.Checks[i].Ref()
		if seen[ref] {
			return mismatch("check reference %q appears twice in checks", ref)
		}
		seen[ref] = true
	}
	inv := &c.a.Inventories
	executed := c.sortedRefs(func(*Check) bool { return true })
	if d := diff("executed", inv.Executed, executed); d != "" {
		return mismatch("%s", d)
	}
	declared := make(map[string]bool, len(inv.Declared))
	for _, ref := range inv.Declared {
		declared[ref] = true
	}
	for _, ref := range executed {
		if !declared[ref] {
			return mismatch("executed check %q is not declared", ref)
		}
	}
	for _, lst := range []struct {
		name string
		got  []string
		keep func(*Check) bool
	}{
		{"wireSchema", inv.WireSchema, func(ch *Check) bool { return ch.WireSchema }},
		{"warnings", inv.Warnings, func(ch *Check) bool { return ch.Outcome == "WARNING" }},
		{"skipped", inv.Skipped, func(ch *Check) bool { return ch.Outcome == "SKIPPED" }},
		{"untestable", inv.Untestable, func(ch *Check) bool { return ch.Untestable != nil && *ch.Untestable }},
	} {
		if d := diff(lst.name, lst.got, c.sortedRefs(lst.keep)); d != "" {
			return mismatch("%s", d)
		}
	}
	pending := []string{}
	for _, ref := range inv.Declared {
		if !seen[ref] {
			pending = append(pending, ref)
		}
	}
	slices.SortFunc(pending, canonjson.CompareKeys)
	if d := diff("pending", inv.Pending, pending); d != "" {
		return mismatch("%s", d)
	}
	return "", "", nil
}

// diff describes how got differs from want, or returns "" when equal.
func diff(name string, got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("inventories.%s[%d] is %q, want %q (%d entries, want %d)", name, i, got[i], want[i], len(got), len(want))
		}
	}
	return fmt.Sprintf("inventories.%s has %d entries, want %d", name, len(got), len(want))
}

// 5. Baseline digest.
func (c *attachmentCheck) baselineDigest() (string, string, error) {
	sum, _, err := canonjson.Digest(c.doc.Path("expectedFailureBaseline", "entries"))
	if err != nil {
		return "", "", fmt.Errorf("cannot canonicalize expectedFailureBaseline.entries: %w", err)
	}
	if sum != c.a.ExpectedFailureBaseline.Sha256 {
		return CodeInventoryMismatch, fmt.Sprintf("expectedFailureBaseline.sha256 is %s, the entries digest to %s",
			c.a.ExpectedFailureBaseline.Sha256, sum), nil
	}
	return "", "", nil
}

func (c *attachmentCheck) baseline() map[string]bool {
	m := make(map[string]bool, len(c.a.ExpectedFailureBaseline.Entries))
	for _, ref := range c.a.ExpectedFailureBaseline.Entries {
		m[ref] = true
	}
	return m
}

// 6. baselineExpected only on baselined failures and warnings.
func (c *attachmentCheck) expectedFailures() (string, string, error) {
	base := c.baseline()
	for i := range c.a.Checks {
		ch := &c.a.Checks[i]
		want := base[ch.Ref()] && ch.failing()
		if ch.BaselineExpected != want {
			why := "it is not in the expected-failure baseline"
			if base[ch.Ref()] {
				why = "its outcome is " + ch.Outcome
			}
			if want {
				why = "it is a baselined " + ch.Outcome
			}
			return CodeExpectedFailureRewritten, fmt.Sprintf("checks[%d] (%s): baselineExpected is %t, but %s",
				i, ch.Ref(), ch.BaselineExpected, why), nil
		}
	}
	return "", "", nil
}

// 7. Stale baseline entries.
func (c *attachmentCheck) staleBaseline() (string, string, error) {
	failingRefs := make(map[string]bool)
	for i := range c.a.Checks {
		if c.a.Checks[i].failing() {
			failingRefs[c.a.Checks[i].Ref()] = true
		}
	}
	stale := []string{}
	for _, ref := range c.a.ExpectedFailureBaseline.Entries {
		if !failingRefs[ref] {
			stale = append(stale, ref)
		}
	}
	if !slices.Equal(c.a.StaleExpectedFailures, stale) {
		return CodeStaleBaselineMismatch, fmt.Sprintf("staleExpectedFailures lists [%s], the baseline entries that no longer fail are [%s]",
			strings.Join(c.a.StaleExpectedFailures, ", "), strings.Join(stale, ", ")), nil
	}
	return "", "", nil
}

// 8. Original result bytes, when given.
func (c *attachmentCheck) originalResult() (string, string, error) {
	o := c.opts.OriginalResult
	if o == nil {
		return "", "", nil
	}
	art := &c.a.OriginalResultArtifact
	if sum := canonjson.BytesDigest(o.Bytes); sum != art.Sha256 {
		return CodeResultDigestMismatch, fmt.Sprintf("the original result digests to %s, originalResultArtifact.sha256 is %s", sum, art.Sha256), nil
	}
	if int64(len(o.Bytes)) != art.Bytes {
		return CodeResultDigestMismatch, fmt.Sprintf("the original result has %d bytes, originalResultArtifact.bytes is %d", len(o.Bytes), art.Bytes), nil
	}
	return "", "", nil
}

// 9. No evidence class without an explicit mapping.
func (c *attachmentCheck) mapping() (string, string, error) {
	m := &c.a.MappingBoundary
	if !m.ExplicitMapping && m.McpResEvidenceClass != nil {
		return CodeMappingOverclaim, fmt.Sprintf("mcpResEvidenceClass is %s without an explicit mapping", *m.McpResEvidenceClass), nil
	}
	return "", "", nil
}

// 10. Derived status.
func (c *attachmentCheck) status() (string, string, error) {
	want, why := deriveStatus(c.a)
	if c.a.ImportStatus != want {
		return CodeStatusMismatch, fmt.Sprintf("importStatus is %s, the derived status is %s (%s)", c.a.ImportStatus, want, why), nil
	}
	return "", "", nil
}

// DeriveStatus returns the import status an attachment's content implies
// (REFERENCE §8.1): INVALID when a FAILURE or WARNING check is not a
// baselined expected failure; otherwise INCOMPLETE when a baseline entry is
// stale, an inventory of skipped, untestable, pending or not-scored checks
// is non-empty, the harness exit code is not 0, or a coverage surface is
// UNINSTRUMENTED or UNKNOWN; otherwise COMPLETE.
func DeriveStatus(a *Attachment) string {
	s, _ := deriveStatus(a)
	return s
}

func deriveStatus(a *Attachment) (string, string) {
	for i := range a.Checks {
		if ch := &a.Checks[i]; ch.failing() && !ch.BaselineExpected {
			return StatusInvalid, fmt.Sprintf("%s is an unexpected %s", ch.Ref(), ch.Outcome)
		}
	}
	inv := &a.Inventories
	for _, l := range []struct {
		name string
		refs []string
	}{
		{"staleExpectedFailures", a.StaleExpectedFailures},
		{"skipped", inv.Skipped},
		{"untestable", inv.Untestable},
		{"pending", inv.Pending},
		{"notScored", inv.NotScored},
	} {
		if len(l.refs) > 0 {
			return StatusIncomplete, fmt.Sprintf("%s is not empty", l.name)
		}
	}
	if a.Harness.ExitCode != 0 {
		return StatusIncomplete, fmt.Sprintf("the harness exited with %d", a.Harness.ExitCode)
	}
	for _, cov := range a.ObservationCoverage {
		if cov.Status == "UNINSTRUMENTED" || cov.Status == "UNKNOWN" {
			return StatusIncomplete, fmt.Sprintf("surface %q is %s", cov.Surface, cov.Status)
		}
	}
	return StatusComplete, "nothing is missing"
}
