// Package document is the one document-kind switch of mcpres: it detects
// an MCP-RES document's kind from its root schemaVersion (REFERENCE §5.0)
// and validates it with the validator of that kind. The CLI and batch code
// decide kinds only here, and it is the one call a registry needs to check
// an upload:
//
//	doc, err := canonjson.Parse(data)
//	if err != nil {
//		return err // not strict JSON: MCP_RES_INPUT_INVALID
//	}
//	r, err := val.Validate(doc, document.Options{EvaluatedAt: now}) // val := document.New(nil), once
//	if err != nil {
//		return err // MCP_RES_INPUT_INVALID: no result object
//	}
//	if !r.Valid {
//		// r.Diagnostics, r.Detail
//	}
//
// A Validator compiles the embedded schemas once and is safe for concurrent
// use. Options carries what some kinds need besides the document: the
// evaluation time of an attested bundle (verified without a trust policy:
// see package attest for the level a policy gives), the profile set of
// profile and OAuth evaluations.
//
// # Kinds
//
// The root must be an object whose "schemaVersion" is a string equal to
// one of the bundle.SchemaVersion… constants:
//
//	schemaVersion                                   Kind                validated by
//	mcp-res.conformance-bundle/0.2.0                Bundle              validator.Validator.Bundle (§5.1)
//	mcp-res.conformance-bundle/0.1.0                BundleV01           validator/v01 (§5.2)
//	mcp-res.attested-conformance-bundle/0.2.0       AttestedBundle      attest.Verify, no policy (§6)
//	mcp-res.migration-result/0.2.0                  MigrationResult     validator/migration (§5.4)
//	mcp-res.official-conformance-attachment/0.2.0   OfficialAttachment  validator/official (§5.5)
//	mcp-res.profile-evaluation/0.2.0                ProfileEvaluation   validator/profile (§5.6)
//	mcp-res.oauth-boundary-evaluation/0.2.0         OAuthEvaluation     validator/oauth (§5.7)
//
// Anything else is Unknown and is validated as a v0.2.0 conformance bundle,
// as the upstream validator does: it fails with the first failing core
// check (a pre-schema check, or the schema, which requires the bundle's
// schemaVersion).
//
// # Results
//
// Every kind gives a validator.Result (the upstream result object). An
// attested bundle also gives the whole attest.Result (authenticity level,
// evidence class, what was evaluated). An input that cannot be evaluated is
// a *validator.InputError (MCP_RES_INPUT_INVALID, exit status 2), or for an
// attested bundle the error of attest.Verify.
package document

import (
	"errors"

	"github.com/mcpres/mcpres/attest"
	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/migration"
	"github.com/mcpres/mcpres/validator/oauth"
	"github.com/mcpres/mcpres/validator/official"
	"github.com/mcpres/mcpres/validator/profile"
	"github.com/mcpres/mcpres/validator/v01"
)

// A Kind is the kind of an MCP-RES document.
type Kind int

// The document kinds, detected by Detect.
const (
	Unknown Kind = iota
	Bundle
	BundleV01
	AttestedBundle
	MigrationResult
	OfficialAttachment
	ProfileEvaluation
	OAuthEvaluation
)

var schemaVersions = [...]string{
	Unknown:            "",
	Bundle:             bundle.SchemaVersionBundle,
	BundleV01:          bundle.SchemaVersionBundleV01,
	AttestedBundle:     bundle.SchemaVersionAttestedBundle,
	MigrationResult:    bundle.SchemaVersionMigrationResult,
	OfficialAttachment: bundle.SchemaVersionOfficialAttachment,
	ProfileEvaluation:  bundle.SchemaVersionProfileEvaluation,
	OAuthEvaluation:    bundle.SchemaVersionOAuthEvaluation,
}

var kindNames = [...]string{
	Unknown:            "unknown",
	Bundle:             "conformance bundle",
	BundleV01:          "v0.1.0 conformance bundle",
	AttestedBundle:     "attested conformance bundle",
	MigrationResult:    "migration result",
	OfficialAttachment: "official conformance attachment",
	ProfileEvaluation:  "profile evaluation",
	OAuthEvaluation:    "OAuth boundary evaluation",
}

// Detect returns the kind of doc, from its root schemaVersion: the kind
// whose schema version it is exactly, or Unknown (also for a root that is
// not an object, or a schemaVersion that is not a string).
func Detect(doc *canonjson.Value) Kind {
	sv := doc.Get("schemaVersion")
	if !sv.Is(canonjson.String) {
		return Unknown
	}
	for k, v := range schemaVersions {
		if k != int(Unknown) && v == sv.Str {
			return Kind(k)
		}
	}
	return Unknown
}

// SchemaVersion returns the schemaVersion of documents of kind k ("" for
// Unknown).
func (k Kind) SchemaVersion() string {
	if k < 0 || int(k) >= len(schemaVersions) {
		return ""
	}
	return schemaVersions[k]
}

// String names the kind for people, e.g. "attested conformance bundle".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// CoreBundle returns the conformance bundle that a signature or a log entry
// over doc binds: the "bundle" member of an attested bundle (nil when it has
// none), doc itself for every other kind. It validates nothing; callers
// validate the result as a bundle (validator.Validator.Bundle).
func CoreBundle(doc *canonjson.Value) *canonjson.Value {
	if Detect(doc) == AttestedBundle {
		return doc.Get("bundle")
	}
	return doc
}

// Options carries what some document kinds need beyond the document itself.
type Options struct {
	// Profiles is the reliability-profile manifest set for profile and
	// OAuth boundary evaluations (mcpres validate --profiles DIR or
	// $MCPRES_PROFILES; see profile.LoadDir). Nil means none is configured:
	// a schema-valid evaluation then aborts with MCP_RES_INPUT_INVALID.
	Profiles *profile.Set
	// OriginalResult is the raw official conformance tool output
	// (--original-result FILE; see official.ReadOriginalResult). Official
	// attachments are checked against it (REFERENCE §5.5 step 8); nil
	// skips that step.
	OriginalResult *official.OriginalResult
	// EvaluatedAt is the evaluation time of an attested bundle (a
	// REFERENCE §1.7 date-time, echoed in its result); see
	// attest.Options.EvaluatedAt. Validate never reads a clock.
	EvaluatedAt string
	// Policy is the trust policy an attested bundle is verified against
	// (attest.Options.Policy, opened once by trustpolicy.Open), or nil for none: at most SIGNED is
	// then derived. The result and its exit status are those of the
	// upstream attestation validator with --trust-policy: a validator, not
	// a gate (attest.Gate judges what is enough).
	Policy *attest.LoadedPolicy
}

// Result is the outcome of validating one document. Result holds the
// upstream result object's members for every kind. Attestation is set for
// an attested bundle only: the whole result of attest.Verify, whose own
// validator.Result is the embedded one.
type Result struct {
	Kind Kind
	validator.Result
	Attestation *attest.Result
}

// Value renders the result object of the document's kind: the attested
// bundle result object for an attested bundle, the upstream result object
// (validator.Result.Value) otherwise.
func (r Result) Value() *canonjson.Value {
	if r.Attestation != nil {
		return r.Attestation.Value()
	}
	return r.Result.Value()
}

// A Validator validates documents of every kind with one core validator,
// whose schemas they all share. It is safe for concurrent use.
type Validator struct {
	core      *validator.Validator
	v01       *v01.Validator
	migration *migration.Validator
	official  *official.Validator
	profile   *profile.Validator
	oauth     *oauth.Validator
}

// New returns a Validator that uses the core validator v (validator.New
// when nil).
func New(v *validator.Validator) *Validator {
	if v == nil {
		v = validator.New()
	}
	return &Validator{
		core:      v,
		v01:       v01.New(v),
		migration: migration.New(v),
		official:  official.New(v),
		profile:   profile.New(v),
		oauth:     oauth.New(v),
	}
}

// Validate validates doc according to its kind (see the package
// documentation), giving the kinds the inputs in opts. A non-nil error
// means doc could not be evaluated; the Result is then zero.
func (v *Validator) Validate(doc *canonjson.Value, opts Options) (Result, error) {
	k := Detect(doc)
	var (
		r   validator.Result
		err error
	)
	switch k {
	case AttestedBundle:
		// Verified as the upstream attestation validator does, with the
		// policy when one is given (else at most SIGNED can be derived).
		ar, err := attest.Verify(doc, attest.Options{EvaluatedAt: opts.EvaluatedAt, Validator: v.core, Policy: opts.Policy})
		if err != nil {
			return Result{}, err
		}
		return Result{Kind: k, Result: ar.Result, Attestation: &ar}, nil
	case BundleV01:
		r, err = v.v01.Validate(doc)
	case MigrationResult:
		r, err = v.migration.Validate(doc)
	case OfficialAttachment:
		or, oerr := v.official.Validate(doc, official.Options{OriginalResult: opts.OriginalResult})
		r, err = or.Result, kindInputError(oerr)
	case ProfileEvaluation:
		pr, perr := v.profile.Validate(doc, opts.Profiles)
		r, err = pr.Result, kindInputError(perr)
	case OAuthEvaluation:
		ar, aerr := v.oauth.Validate(doc, opts.Profiles)
		r, err = ar.Result, kindInputError(aerr)
	default: // Bundle, Unknown
		r, err = v.core.Bundle(doc)
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Kind: k, Result: r}, nil
}

// kindInputError returns nil, a *validator.InputError unchanged, or any
// other error as the InputError it stands for.
func kindInputError(err error) error {
	if err == nil {
		return nil
	}
	var ie *validator.InputError
	if errors.As(err, &ie) {
		return ie
	}
	return &validator.InputError{Reason: err.Error()}
}
