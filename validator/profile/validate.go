package profile

import (
	"fmt"
	"slices"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// Evaluation is the decoded form of a schema-valid profile evaluation
// (REFERENCE §3.5.1).
type Evaluation struct {
	SchemaVersion    string      `json:"schemaVersion"`
	Subject          Subject     `json:"subject"`
	Environment      Environment `json:"environment"`
	Profile          ProfileRef  `json:"profile"`
	Scope            Scope       `json:"scope"`
	Checks           []Check     `json:"checks"`
	Cleanup          Cleanup     `json:"cleanup"`
	Result           string      `json:"result"`
	EvaluationSha256 string      `json:"evaluationSha256"`
}

// Subject identifies the evaluated implementation.
type Subject struct {
	Name                   string `json:"name"`
	ImplementationLanguage string `json:"implementationLanguage"`
	Version                string `json:"version"`
	ArtifactSha256         string `json:"artifactSha256"`
}

// Environment is the one leg (OS and runtime) the evaluation ran on.
type Environment struct {
	Platform       string `json:"platform"`
	RuntimeName    string `json:"runtimeName"`
	RuntimeVersion string `json:"runtimeVersion"`
}

// ProfileRef binds the evaluation to one manifest and protocol revision.
type ProfileRef struct {
	ID               string `json:"id"`
	Version          string `json:"version"`
	ManifestSha256   string `json:"manifestSha256"`
	ProtocolRevision string `json:"protocolRevision"`
}

// Scope is the claim: which checks, against which target.
type Scope struct {
	Claim                string   `json:"claim"`
	ClaimedCheckIDs      []string `json:"claimedCheckIds"`
	TargetKind           string   `json:"targetKind"`
	TargetSha256         string   `json:"targetSha256"`
	RemoteOptIn          bool     `json:"remoteOptIn"`
	AllowlistSha256      *string  `json:"allowlistSha256,omitempty"`
	ReviewedTargetSha256 *string  `json:"reviewedTargetSha256,omitempty"`
}

// Check is one evaluated check with its positive and negative control.
type Check struct {
	ID              string      `json:"id"`
	Positive        Observation `json:"positive"`
	NegativeControl Observation `json:"negativeControl"`
}

// Observation is one observed branch of a check.
type Observation struct {
	Source             string `json:"source"`
	PropertyReached    bool   `json:"propertyReached"`
	ExpectedOutcome    string `json:"expectedOutcome"`
	ObservedOutcome    string `json:"observedOutcome"`
	ExpectedReasonCode string `json:"expectedReasonCode"`
	ObservedReasonCode string `json:"observedReasonCode"`
	ArtifactSha256     string `json:"artifactSha256"`
}

// Cleanup records whether cleanup was required and observed.
type Cleanup struct {
	Required          bool   `json:"required"`
	Observed          bool   `json:"observed"`
	ObservationSha256 string `json:"observationSha256"`
}

// A Validator validates profile evaluations. It is safe for concurrent use.
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

// SchemaErrors checks doc against the named embedded schema.
func (v *Validator) SchemaErrors(name string, doc *canonjson.Value) []schema.Error {
	return v.schemaSet().Validate(name, doc)
}

// NoProfileSet is the Reason of the *validator.InputError that
// [Validator.Validate] (and package oauth's) returns for a schema-valid
// evaluation when no set of profile manifests was given: the profile it
// names cannot be known. A command says how to give one.
const NoProfileSet = "no profile set: no reliability-profile manifests were given to evaluate against"

// Validate validates doc as a profile evaluation against the manifests of
// set (REFERENCE §5.6; see the package documentation for the steps). A nil
// set means none was configured: a schema-valid evaluation then aborts with
// an *InputError, since no manifest can be known. A non-nil error is always
// an *InputError and the Result is then zero.
func (v *Validator) Validate(doc *canonjson.Value, set *Set) (Result, error) {
	if errs := v.schemaSet().Validate(SchemaName, doc); len(errs) > 0 {
		r := Result{Result: validator.Fail(CodeSchemaInvalid, schema.Summary(errs))}
		r.SchemaErrors = errs
		return r, nil
	}
	if set == nil {
		return Result{}, &validator.InputError{Reason: NoProfileSet}
	}
	var ev Evaluation
	if err := canonjson.Unmarshal(doc, &ev); err != nil {
		return Result{}, &validator.InputError{Reason: "schema-valid evaluation does not decode: " + err.Error()}
	}
	manifests, err := v.Manifests(set)
	if err != nil {
		return Result{Result: validator.Fail(CodeManifestInvalid, err.Error())}, nil
	}
	m := manifests[ev.Profile.ID]
	if m == nil {
		return Result{Result: validator.Fail(CodeManifestUnknown, fmt.Sprintf("no manifest in the profile set (%d files) has id %s", set.Len(), ev.Profile.ID))}, nil
	}
	if m.Version != ev.Profile.Version {
		return Result{Result: validator.Fail(CodeManifestUnknown, fmt.Sprintf("manifest %s has version %s, the evaluation names %s", m.ID, m.Version, ev.Profile.Version))}, nil
	}
	c := &evaluationCheck{doc: doc, ev: &ev, m: m}
	for _, check := range []func() (string, string, error){
		c.revision, c.manifestDigest, c.evaluationDigest, c.coverage, c.remoteTarget,
		c.observations, c.cleanup, c.result,
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
		canonjson.Member{Key: "result", Value: canonjson.NewString(c.derived)},
		canonjson.Member{Key: "profileStatus", Value: canonjson.NewString(m.Status)},
		canonjson.Member{Key: "claimScope", Value: canonjson.NewString(ev.Scope.Claim)},
	), Derived: c.derived, ProfileStatus: m.Status, ClaimScope: ev.Scope.Claim}, nil
}

// evaluationCheck carries one evaluation through steps 4–11.
type evaluationCheck struct {
	doc     *canonjson.Value
	ev      *Evaluation
	m       *Manifest
	derived string
}

// 4. The manifest lists the evaluated revision.
func (c *evaluationCheck) revision() (string, string, error) {
	if d := c.m.RevisionProblem(c.ev.Profile.ProtocolRevision); d != "" {
		return CodeRevisionUnsupported, d, nil
	}
	return "", "", nil
}

// 5. The manifest digest.
func (c *evaluationCheck) manifestDigest() (string, string, error) {
	if d := c.m.DigestProblem(c.ev.Profile.ManifestSha256); d != "" {
		return CodeManifestDigestMismatch, d, nil
	}
	return "", "", nil
}

// EvaluationDigest returns the canonical digest of an evaluation object
// without its evaluationSha256 member (REFERENCE §2.1).
func EvaluationDigest(doc *canonjson.Value) (string, error) {
	sum, _, err := canonjson.Digest(doc.Without("evaluationSha256"))
	if err != nil {
		return "", fmt.Errorf("cannot canonicalize the evaluation: %w", err)
	}
	return sum, nil
}

// 6. The evaluation digest.
func (c *evaluationCheck) evaluationDigest() (string, string, error) {
	sum, err := EvaluationDigest(c.doc)
	if err != nil {
		return "", "", err
	}
	if sum != c.ev.EvaluationSha256 {
		return CodeDigestMismatch, fmt.Sprintf("evaluationSha256 is %s, the evaluation digests to %s", c.ev.EvaluationSha256, sum), nil
	}
	return "", "", nil
}

// 7. Coverage.
func (c *evaluationCheck) coverage() (string, string, error) {
	mismatch := func(format string, args ...any) (string, string, error) {
		return CodeCoverageMismatch, fmt.Sprintf(format, args...), nil
	}
	ids := make([]string, 0, len(c.ev.Checks))
	seen := map[string]bool{}
	for _, ch := range c.ev.Checks {
		if seen[ch.ID] {
			return mismatch("check %s is evaluated twice", ch.ID)
		}
		seen[ch.ID] = true
		ids = append(ids, ch.ID)
	}
	slices.SortFunc(ids, canonjson.CompareKeys)
	claimed := slices.Clone(c.ev.Scope.ClaimedCheckIDs)
	slices.SortFunc(claimed, canonjson.CompareKeys)
	if d := setDiff("claimedCheckIds", claimed, "evaluated checks", ids); d != "" {
		return mismatch("%s", d)
	}
	for _, id := range c.ev.Scope.ClaimedCheckIDs {
		if !c.m.Registered(id) {
			return mismatch("claimed check %s is not registered by manifest %s", id, c.m.ID)
		}
	}
	if c.ev.Scope.Claim == "FULL_PROFILE" {
		want := c.m.Applicable(c.ev.Profile.ProtocolRevision)
		if d := setDiff("a FULL_PROFILE claim", claimed, "the required and "+c.ev.Profile.ProtocolRevision+" conditional checks", want); d != "" {
			return mismatch("%s", d)
		}
	}
	return "", "", nil
}

// setDiff compares two sorted lists and names the first id only one of them
// has, or returns "" when they are equal.
func setDiff(gotName string, got []string, wantName string, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	in := func(l []string, s string) bool {
		_, ok := slices.BinarySearchFunc(l, s, canonjson.CompareKeys)
		return ok
	}
	for _, id := range want {
		if !in(got, id) {
			return fmt.Sprintf("%s lacks %s, which %s include (%d ids, want %d)", gotName, id, wantName, len(got), len(want))
		}
	}
	for _, id := range got {
		if !in(want, id) {
			return fmt.Sprintf("%s has %s, which %s lack (%d ids, want %d)", gotName, id, wantName, len(got), len(want))
		}
	}
	return fmt.Sprintf("%s has %d ids, %s %d", gotName, len(got), wantName, len(want))
}

// 8. Remote targets are denied unless reviewed.
func (c *evaluationCheck) remoteTarget() (string, string, error) {
	s := &c.ev.Scope
	if s.TargetKind != "REMOTE_HTTP" {
		return "", "", nil
	}
	unreviewed := func(why string) (string, string, error) {
		return CodeRemoteTargetUnreviewed, "REMOTE_HTTP target " + why, nil
	}
	switch {
	case !s.RemoteOptIn:
		return unreviewed("without remoteOptIn")
	case s.AllowlistSha256 == nil:
		return unreviewed("without allowlistSha256")
	case s.ReviewedTargetSha256 == nil:
		return unreviewed("without reviewedTargetSha256")
	case *s.ReviewedTargetSha256 != s.TargetSha256:
		return unreviewed(fmt.Sprintf("reviewed as %s but targetSha256 is %s", *s.ReviewedTargetSha256, s.TargetSha256))
	}
	return "", "", nil
}

// 9. Every check's positive and negative control.
func (c *evaluationCheck) observations() (string, string, error) {
	for i := range c.ev.Checks {
		ch := &c.ev.Checks[i]
		for _, o := range []struct {
			name     string
			obs      *Observation
			mismatch string
		}{
			{"positive", &ch.Positive, CodeOutcomeMismatch},
			{"negativeControl", &ch.NegativeControl, CodeNegativeControlMissing},
		} {
			where := fmt.Sprintf("checks[%d] (%s) %s", i, ch.ID, o.name)
			switch {
			case !o.obs.PropertyReached:
				return CodePropertyNotReached, where + ": property not reached", nil
			case o.obs.ObservedOutcome == "NOT_OBSERVED" || o.obs.ObservedOutcome != o.obs.ExpectedOutcome:
				return o.mismatch, fmt.Sprintf("%s: observed %s, expected %s", where, o.obs.ObservedOutcome, o.obs.ExpectedOutcome), nil
			case o.obs.ObservedReasonCode != o.obs.ExpectedReasonCode:
				return CodeWrongReason, fmt.Sprintf("%s: reason %s, expected %s", where, o.obs.ObservedReasonCode, o.obs.ExpectedReasonCode), nil
			}
		}
	}
	return "", "", nil
}

// 10. Required cleanup observed.
func (c *evaluationCheck) cleanup() (string, string, error) {
	if c.ev.Cleanup.Required && !c.ev.Cleanup.Observed {
		return CodeCleanupIncomplete, "cleanup is required but was not observed", nil
	}
	return "", "", nil
}

// 11. The result is derived: a test fixture caps it at INCOMPLETE.
func (c *evaluationCheck) result() (string, string, error) {
	fixture := ""
	for _, ch := range c.ev.Checks {
		for _, o := range []*Observation{&ch.Positive, &ch.NegativeControl} {
			if o.Source == "TEST_FIXTURE" && fixture == "" {
				fixture = ch.ID
			}
		}
	}
	c.derived = ResultPass
	if fixture != "" {
		c.derived = ResultIncomplete
	}
	if c.ev.Result == c.derived {
		return "", "", nil
	}
	if fixture != "" && c.ev.Result == ResultPass {
		return CodeTestFixtureOverclaim, fmt.Sprintf("result PASS, but check %s has a TEST_FIXTURE observation (at most INCOMPLETE)", fixture), nil
	}
	return CodeResultMismatch, fmt.Sprintf("result is %s, the derived result is %s", c.ev.Result, c.derived), nil
}
