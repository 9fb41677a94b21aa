package oauth

import (
	"fmt"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/profile"
	"github.com/mcpres/mcpres/validator/schema"
)

// Diagnostic codes of the OAuth boundary validator (REFERENCE §5.7, §5.8).
const (
	CodeSchemaInvalid             = "MCP_RES_OAUTH_SCHEMA_INVALID"
	CodeManifestInvalid           = "MCP_RES_OAUTH_MANIFEST_INVALID"
	CodeRevisionUnsupported       = "MCP_RES_OAUTH_REVISION_UNSUPPORTED"
	CodeManifestDigestMismatch    = "MCP_RES_OAUTH_MANIFEST_DIGEST_MISMATCH"
	CodeDigestMismatch            = "MCP_RES_OAUTH_DIGEST_MISMATCH"
	CodeCoverageMismatch          = "MCP_RES_OAUTH_COVERAGE_MISMATCH"
	CodeExternalProviderContact   = "MCP_RES_OAUTH_EXTERNAL_PROVIDER_CONTACT"
	CodeNonSyntheticCredential    = "MCP_RES_OAUTH_NON_SYNTHETIC_CREDENTIAL"
	CodeWrongReason               = "MCP_RES_OAUTH_WRONG_REASON"
	CodePropertyNotReached        = "MCP_RES_OAUTH_PROPERTY_NOT_REACHED"
	CodeOutcomeMismatch           = "MCP_RES_OAUTH_OUTCOME_MISMATCH"
	CodeWrongReasonControlMissing = "MCP_RES_OAUTH_WRONG_REASON_CONTROL_MISSING"
	CodeSecretPersisted           = "MCP_RES_OAUTH_SECRET_PERSISTED"
	CodeUnsanitizedError          = "MCP_RES_OAUTH_UNSANITIZED_ERROR"
	CodeCleanupIncomplete         = "MCP_RES_OAUTH_CLEANUP_INCOMPLETE"
	CodeTestFixtureOverclaim      = "MCP_RES_OAUTH_TEST_FIXTURE_OVERCLAIM"
	CodeResultMismatch            = "MCP_RES_OAUTH_RESULT_MISMATCH"
)

// Schema name, the scored profile and fixed reason codes. The
// schemaVersion is bundle.SchemaVersionOAuthEvaluation.
const (
	SchemaName = "oauth-boundary-evaluation"
	ProfileID  = "mcp-res/oauth-boundary/v1"
	// EarlySyntaxRejection is the reason a wrong-reason mutant must report:
	// the request was refused by an earlier syntax guard, before the
	// property under test was evaluated.
	EarlySyntaxRejection = "MCP_RES_OAUTH_EARLY_SYNTAX_REJECTION"
)

// Reason returns the property-specific reason code of check id:
// "MCP_RES_OAUTH_" + id upper-cased with "-" replaced by "_" + "_" + x,
// e.g. Reason("pkce-s256", "REJECTED") = "MCP_RES_OAUTH_PKCE_S256_REJECTED".
func Reason(id, x string) string {
	return "MCP_RES_OAUTH_" + strings.ReplaceAll(strings.ToUpper(id), "-", "_") + "_" + x
}

// Evaluation is the decoded form of a schema-valid OAuth boundary
// evaluation (REFERENCE §3.6).
type Evaluation struct {
	SchemaVersion    string             `json:"schemaVersion"`
	Subject          *canonjson.Value   `json:"subject"`
	Environment      *canonjson.Value   `json:"environment"`
	Profile          profile.ProfileRef `json:"profile"`
	Fixture          Fixture            `json:"fixture"`
	Flow             *canonjson.Value   `json:"flow"`
	Cases            []Case             `json:"cases"`
	Privacy          Privacy            `json:"privacy"`
	Cleanup          Cleanup            `json:"cleanup"`
	Result           string             `json:"result"`
	EvaluationSha256 string             `json:"evaluationSha256"`
}

// Fixture describes the authorization fixture's isolation.
type Fixture struct {
	LoopbackOnly                        bool   `json:"loopbackOnly"`
	SyntheticCredentials                bool   `json:"syntheticCredentials"`
	RealAuthorizationProvidersContacted int64  `json:"realAuthorizationProvidersContacted"`
	ExternalNetworkRequests             int64  `json:"externalNetworkRequests"`
	ListenerSha256                      string `json:"listenerSha256"`
}

// Case is one evaluated check: a positive, a property-specific negative
// and a wrong-reason mutant.
type Case struct {
	ID                string      `json:"id"`
	EvidenceSource    string      `json:"evidenceSource"`
	Positive          Observation `json:"positive"`
	Negative          Observation `json:"negative"`
	WrongReasonMutant Mutant      `json:"wrongReasonMutant"`
}

// Observation is one observed branch of a case.
type Observation struct {
	PropertyReached    bool   `json:"propertyReached"`
	ExpectedOutcome    string `json:"expectedOutcome"`
	ObservedOutcome    string `json:"observedOutcome"`
	ExpectedReasonCode string `json:"expectedReasonCode"`
	ObservedReasonCode string `json:"observedReasonCode"`
	ArtifactSha256     string `json:"artifactSha256"`
}

// Mutant is the wrong-reason control of a case.
type Mutant struct {
	PropertyReached    bool   `json:"propertyReached"`
	ObservedReasonCode string `json:"observedReasonCode"`
	ExpectedDiagnostic string `json:"expectedDiagnostic"`
	ArtifactSha256     string `json:"artifactSha256"`
}

// Privacy records what the evidence may not contain.
type Privacy struct {
	TokenMaterialPersisted             bool `json:"tokenMaterialPersisted"`
	EvidenceContainsCredentialMaterial bool `json:"evidenceContainsCredentialMaterial"`
	AuthorizationErrorsSanitized       bool `json:"authorizationErrorsSanitized"`
}

// Cleanup records that the fixture's listeners were released.
type Cleanup struct {
	ListenerClosed           bool   `json:"listenerClosed"`
	RedirectListenerReleased bool   `json:"redirectListenerReleased"`
	ObservationSha256        string `json:"observationSha256"`
}

// Result is the outcome of validating one evaluation: the
// validator.Result every document kind gives (Valid iff Diagnostics is
// empty; an invalid result has exactly one code; Detail explains the
// failing check for people) whose Extra, when valid, holds result,
// securityCertificationClaim (always false) and
// realAuthorizationProvidersContacted (always 0), the members that follow
// schemaErrors in the result object (REFERENCE §5.7). Derived is the
// derived result (PASS or INCOMPLETE), set only when Valid.
type Result struct {
	validator.Result
	Derived string
}

// A Validator validates OAuth boundary evaluations. It is safe for
// concurrent use.
type Validator struct {
	pv *profile.Validator
}

// New returns a Validator that uses the schemas of v, the core validator
// (validator.Validator.Schemas, the one lazy loader). With nil it uses a
// validator.New of its own.
func New(v *validator.Validator) *Validator { return &Validator{pv: profile.New(v)} }

// Validate validates doc as an OAuth boundary evaluation against the
// mcp-res/oauth-boundary/v1 manifest of set (REFERENCE §5.7; see the
// package documentation for the steps). A nil set means none was
// configured: a schema-valid evaluation then aborts with an *InputError. A
// non-nil error is always an *InputError and the Result is then zero.
func (v *Validator) Validate(doc *canonjson.Value, set *profile.Set) (Result, error) {
	if errs := v.pv.SchemaErrors(SchemaName, doc); len(errs) > 0 {
		r := Result{Result: validator.Fail(CodeSchemaInvalid, schema.Summary(errs))}
		r.SchemaErrors = errs
		return r, nil
	}
	if set == nil {
		return Result{}, &validator.InputError{Reason: profile.NoProfileSet}
	}
	var ev Evaluation
	if err := canonjson.Unmarshal(doc, &ev); err != nil {
		return Result{}, &validator.InputError{Reason: "schema-valid evaluation does not decode: " + err.Error()}
	}
	manifests, err := v.pv.Manifests(set)
	if err != nil {
		return Result{Result: validator.Fail(CodeManifestInvalid, err.Error())}, nil
	}
	m := manifests[ProfileID]
	switch {
	case m == nil:
		return Result{Result: validator.Fail(CodeManifestInvalid, fmt.Sprintf("the profile set (%d files) has no %s manifest", set.Len(), ProfileID))}, nil
	case m.Status != profile.StatusProvisional:
		return Result{Result: validator.Fail(CodeManifestInvalid, fmt.Sprintf("manifest %s (%s) has status %s, not PROVISIONAL", ProfileID, m.File, m.Status))}, nil
	}
	c := &evaluationCheck{doc: doc, ev: &ev, m: m}
	for _, check := range []func() (string, string, error){
		c.revision, c.manifestDigest, c.evaluationDigest, c.coverage, c.isolation, c.credentials,
		c.cases, c.privacy, c.sanitized, c.cleanup, c.result,
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
		canonjson.Member{Key: "securityCertificationClaim", Value: canonjson.NewBool(false)},
		canonjson.Member{Key: "realAuthorizationProvidersContacted", Value: canonjson.NewInt(0)},
	), Derived: c.derived}, nil
}
