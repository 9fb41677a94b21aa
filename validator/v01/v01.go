// Package v01 validates frozen mcp-res.conformance-bundle/0.1.0 documents
// (bundle.SchemaVersionBundleV01) with the v0.1 rules of MCP-RES §1, in the
// order of REFERENCE §5.2 (see Validator.Validate for the steps). Its
// results and aborts are the core validator's (validator.Result,
// *validator.InputError), and it uses the core validator's schemas.
// Package document sends a document here when its root schemaVersion is
// exactly bundle.SchemaVersionBundleV01 (REFERENCE §5.0).
package v01

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
)

// Diagnostic codes of the frozen v0.1 validator (REFERENCE §5.8) that the
// v0.2 validator does not use. The v0.1 validator also reports
// validator.CodeVacuousNegativeControl, validator.CodeSchemaInvalid,
// validator.CodeEvidenceClassPromotion, validator.CodeCausalMismatch and
// validator.CodeDigestMismatch.
const (
	CodeMissingCleanControl      = "MCP_RES_MISSING_CLEAN_CONTROL"
	CodeUnboundedRetry           = "MCP_RES_UNBOUNDED_RETRY"
	CodeCleanupIncomplete        = "MCP_RES_CLEANUP_INCOMPLETE"
	CodePartialManifest          = "MCP_RES_PARTIAL_MANIFEST"
	CodeSubjectAmbiguous         = "MCP_RES_SUBJECT_AMBIGUOUS"
	CodeNondeterministicIdentity = "MCP_RES_NONDETERMINISTIC_IDENTITY"
	CodeEvidenceTooLarge         = "MCP_RES_EVIDENCE_TOO_LARGE"
	CodeAuthHeaderForbidden      = "MCP_RES_AUTH_HEADER_FORBIDDEN"
	CodeSecretDetected           = "MCP_RES_SECRET_DETECTED"
	CodeProfileUnsupported       = "MCP_RES_PROFILE_UNSUPPORTED"
	CodeSideEffectRetryUnsafe    = "MCP_RES_SIDE_EFFECT_RETRY_UNSAFE"
	CodeRegressionInvalid        = "MCP_RES_REGRESSION_INVALID"
)

// A Validator validates v0.1.0 conformance bundles. It is safe for
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

// Size bounds of v0.1 step 8 (REFERENCE §5.2).
const (
	v01MaxSerializedBytes = 1 << 20  // compact serialization of the whole bundle
	v01MaxInputBytes      = 16 << 20 // evidence.limits.inputBytes
	v01MaxStringBytes     = 1 << 20  // evidence.limits.stringBytes
)

// Manifest paths and media of a v0.1 bundle.
const (
	v01EvidencePath       = "evidence-envelope.json"
	v01StatementPath      = "conformance-statement.json"
	v01SourceEvidenceDir  = "source-evidence/"
	v01SanitizedKind      = "SANITIZED_PROJECTION"
	v01ManifestLast       = "MANIFEST_LAST"
	v01UnboundedRetryText = "unbounded"
)

// Validate validates a parsed mcp-res.conformance-bundle/0.1.0 with the
// frozen v0.1 semantics (MCP-RES §1), exactly in the order of REFERENCE
// §5.2, stopping at the first failure:
//
//  1. MCP_RES_MISSING_CLEAN_CONTROL: no CLEAN_CONTROL operation;
//  2. MCP_RES_VACUOUS_NEGATIVE_CONTROL: the first NEGATIVE_CONTROL is
//     missing, not EXPECTED_FAILURE or has no faultId;
//  3. MCP_RES_UNBOUNDED_RETRY: a recovery policy's retryLimit is null or
//     "unbounded";
//  4. MCP_RES_CLEANUP_INCOMPLETE: cleanup missing, not complete, child
//     processes or listeners remaining, or an unapproved target change;
//  5. MCP_RES_PARTIAL_MANIFEST: integrity missing, not complete, or not
//     published MANIFEST_LAST;
//  6. MCP_RES_SUBJECT_AMBIGUOUS: subject name, version or artifact digest
//     missing;
//  7. MCP_RES_NONDETERMINISTIC_IDENTITY: the subject carries absolutePath,
//     workingDirectory or hostName;
//  8. MCP_RES_EVIDENCE_TOO_LARGE: the compact bundle exceeds 1 MiB, or
//     limits.inputBytes > 16 MiB, or limits.stringBytes > 1 MiB;
//  9. MCP_RES_AUTH_HEADER_FORBIDDEN: a raw "authorization: bearer|basic …"
//     header in the compact bundle;
//  10. MCP_RES_SECRET_DETECTED: a base64 run of 24+ characters that decodes
//     to an authorization header, API key or token assignment;
//
// then the v0.1 schema of REFERENCE §3.7 (MCP_RES_SCHEMA_INVALID, with
// every schema error), then the semantic checks: a
// MCP_RES_PROFILE_UNSUPPORTED, b MCP_RES_EVIDENCE_CLASS_PROMOTION (§4.2:
// producer booleans are trusted, under-claiming is allowed), c
// MCP_RES_CAUSAL_MISMATCH (run, parent, fault and policy references), d
// MCP_RES_SIDE_EFFECT_RETRY_UNSAFE, e MCP_RES_REGRESSION_INVALID, f
// MCP_RES_PARTIAL_MANIFEST (duplicate path), g MCP_RES_DIGEST_MISMATCH
// (evidence and statement digests, their manifest entries, bundle digest), h
// MCP_RES_CAUSAL_MISMATCH (statement mirrors).
//
// Steps 1–10 run on the raw input with JavaScript semantics (truthiness,
// strict equality, optional member access), as the upstream implementation
// does. Its comparisons with ">" fire only for JSON numbers here. Where
// upstream would throw — evidence.operations present but not an array, a
// null operation reached by steps 1–2, recoveryPolicies present but not an
// array, a null policy reached by step 3 — Validate returns a
// *validator.InputError (MCP_RES_INPUT_INVALID); it returns no other error.
//
// v0.1 has no scenario fingerprint, execution digest, observations,
// coverage or trial summary, and nothing here checks verifiedAt, the run's
// times or any artifact other than the evidence and statement entries.
func (v *Validator) Validate(doc *canonjson.Value) (validator.Result, error) {
	pre := v01Pre{doc: doc, ev: doc.Get("evidence")}
	for _, check := range []func() (string, string, error){
		pre.cleanControl, pre.negativeControl, pre.unboundedRetry, pre.cleanup, pre.manifest,
		pre.subjectIdentity, pre.subjectDeterminism, pre.size, pre.authHeader, pre.secrets,
	} {
		code, detail, err := check()
		if err != nil {
			return validator.Result{}, err
		}
		if code != "" {
			return validator.Fail(code, detail), nil
		}
	}
	if errs := v.v01SchemaErrors(doc); len(errs) > 0 {
		r := validator.Fail(validator.CodeSchemaInvalid, schema.Summary(errs))
		r.SchemaErrors = errs
		return r, nil
	}
	c := v01Check{doc: doc, ev: doc.Get("evidence"), st: doc.Get("statement")}
	for _, check := range []func() (string, string, error){
		c.profile, c.evidenceClass, c.causality, c.sideEffects, c.regression,
		c.duplicatePaths, c.digests, c.mirrors,
	} {
		code, detail, err := check()
		if err != nil {
			return validator.Result{}, &validator.InputError{Reason: err.Error()}
		}
		if code != "" {
			return validator.Fail(code, detail), nil
		}
	}
	return validator.Pass(), nil
}

// v01Pre carries the raw input through steps 1–10.
type v01Pre struct {
	doc, ev *canonjson.Value
	compact []byte // the compact serialization, made by step 8
}

func isOpKind(op *canonjson.Value, kind string) bool {
	k := op.Get("kind")
	return k.Is(canonjson.String) && k.Str == kind
}

func isJSONString(v *canonjson.Value, s string) bool { return v.Is(canonjson.String) && v.Str == s }

func isJSONTrue(v *canonjson.Value) bool { return v.Is(canonjson.Bool) && v.Bool }

// operations returns evidence.operations for steps 1–2: nil when absent or
// null, an *InputError when present but not an array.
func (p *v01Pre) operations() ([]*canonjson.Value, bool, error) {
	ops := p.ev.Get("operations")
	switch {
	case ops == nil || ops.Kind == canonjson.Null:
		return nil, false, nil
	case ops.Kind != canonjson.Array:
		return nil, false, &validator.InputError{Reason: "evidence.operations is " + kindArticle(ops.Kind) + ", not an array"}
	}
	return ops.Items, true, nil
}

func kindArticle(k canonjson.Kind) string {
	switch k {
	case canonjson.Array, canonjson.Object, canonjson.Int:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// scanV01Ops returns the index of the first operation of the given kind, or
// -1; reaching a null element first is an abort.
func scanV01Ops(ops []*canonjson.Value, kind string) (int, error) {
	for i, op := range ops {
		if op.Kind == canonjson.Null {
			return -1, &validator.InputError{Reason: fmt.Sprintf("evidence.operations[%d] is null", i)}
		}
		if isOpKind(op, kind) {
			return i, nil
		}
	}
	return -1, nil
}

// 1. A clean control exists.
func (p *v01Pre) cleanControl() (string, string, error) {
	ops, present, err := p.operations()
	if err != nil {
		return "", "", err
	}
	if !present {
		return CodeMissingCleanControl, "evidence.operations is absent", nil
	}
	i, err := scanV01Ops(ops, "CLEAN_CONTROL")
	if err != nil {
		return "", "", err
	}
	if i < 0 {
		return CodeMissingCleanControl, "no CLEAN_CONTROL operation", nil
	}
	return "", "", nil
}

// 2. The first negative control expects a failure caused by a fault.
func (p *v01Pre) negativeControl() (string, string, error) {
	ops, _, _ := p.operations() // step 1 established an array
	i, err := scanV01Ops(ops, "NEGATIVE_CONTROL")
	if err != nil {
		return "", "", err
	}
	if i < 0 {
		return validator.CodeVacuousNegativeControl, "no NEGATIVE_CONTROL operation", nil
	}
	neg := ops[i]
	where := fmt.Sprintf("first NEGATIVE_CONTROL (evidence.operations[%d]): ", i)
	if !isJSONString(neg.Get("outcome"), "EXPECTED_FAILURE") {
		return validator.CodeVacuousNegativeControl, where + "outcome is not EXPECTED_FAILURE", nil
	}
	if !neg.Get("faultId").Truthy() {
		return validator.CodeVacuousNegativeControl, where + "no faultId", nil
	}
	return "", "", nil
}

// 3. No recovery policy retries without bound.
func (p *v01Pre) unboundedRetry() (string, string, error) {
	rp := p.ev.Get("recoveryPolicies")
	switch {
	case rp == nil || rp.Kind == canonjson.Null:
		return "", "", nil
	case rp.Kind != canonjson.Array:
		return "", "", &validator.InputError{Reason: "evidence.recoveryPolicies is " + kindArticle(rp.Kind) + ", not an array"}
	}
	for i, pol := range rp.Items {
		if pol.Kind == canonjson.Null {
			return "", "", &validator.InputError{Reason: fmt.Sprintf("evidence.recoveryPolicies[%d] is null", i)}
		}
		if lim := pol.Get("retryLimit"); lim.Is(canonjson.Null) || isJSONString(lim, v01UnboundedRetryText) {
			return CodeUnboundedRetry, fmt.Sprintf("evidence.recoveryPolicies[%d].retryLimit is unbounded", i), nil
		}
	}
	return "", "", nil
}

func isPositiveInt(v *canonjson.Value) bool { return v.Is(canonjson.Int) && v.Int > 0 }

// 4. Cleanup completed and left nothing behind.
func (p *v01Pre) cleanup() (string, string, error) {
	c := p.ev.Get("cleanup")
	switch {
	case !c.Truthy():
		return CodeCleanupIncomplete, "evidence.cleanup is missing or empty", nil
	case !isJSONTrue(c.Get("complete")):
		return CodeCleanupIncomplete, "evidence.cleanup.complete is not true", nil
	case isPositiveInt(c.Get("childProcessesRemaining")):
		return CodeCleanupIncomplete, fmt.Sprintf("%d child processes remain", c.Get("childProcessesRemaining").Int), nil
	case isPositiveInt(c.Get("listenersRemaining")):
		return CodeCleanupIncomplete, fmt.Sprintf("%d listeners remain", c.Get("listenersRemaining").Int), nil
	case isJSONString(c.Get("targetState"), "UNAPPROVED_CHANGE"):
		return CodeCleanupIncomplete, "the target was left with an unapproved change", nil
	}
	return "", "", nil
}

// 5. The manifest is complete and published last.
func (p *v01Pre) manifest() (string, string, error) {
	in := p.doc.Get("integrity")
	switch {
	case !in.Truthy():
		return CodePartialManifest, "integrity is missing or empty", nil
	case !isJSONTrue(in.Get("complete")):
		return CodePartialManifest, "integrity.complete is not true", nil
	case !isJSONString(in.Get("publication"), v01ManifestLast):
		return CodePartialManifest, "integrity.publication is not " + v01ManifestLast, nil
	}
	return "", "", nil
}

// 6. The subject is identified.
func (p *v01Pre) subjectIdentity() (string, string, error) {
	s := p.ev.Get("subject")
	for _, path := range [][]string{{"name"}, {"version"}, {"artifact", "sha256"}} {
		if !s.Path(path...).Truthy() {
			return CodeSubjectAmbiguous, "evidence.subject." + strings.Join(path, ".") + " is missing or empty", nil
		}
	}
	return "", "", nil
}

// 7. The subject identity holds nothing host-specific.
func (p *v01Pre) subjectDeterminism() (string, string, error) {
	s := p.ev.Get("subject")
	for _, name := range [...]string{"absolutePath", "workingDirectory", "hostName"} {
		if s.Has(name) {
			return CodeNondeterministicIdentity, "evidence.subject carries the host-specific member " + name, nil
		}
	}
	return "", "", nil
}

// 8. Size bounds.
func (p *v01Pre) size() (string, string, error) {
	b, err := canonjson.Compact(p.doc)
	if err != nil {
		return "", "", &validator.InputError{Reason: "bundle has no JSON serialization: " + err.Error()}
	}
	p.compact = b
	if len(b) > v01MaxSerializedBytes {
		return CodeEvidenceTooLarge, fmt.Sprintf("the compact bundle is %d bytes, more than %d", len(b), v01MaxSerializedBytes), nil
	}
	limits := p.ev.Get("limits")
	if n := limits.Get("inputBytes"); n.Is(canonjson.Int) && n.Int > v01MaxInputBytes {
		return CodeEvidenceTooLarge, fmt.Sprintf("limits.inputBytes is %d, more than %d", n.Int, v01MaxInputBytes), nil
	}
	if n := limits.Get("stringBytes"); n.Is(canonjson.Int) && n.Int > v01MaxStringBytes {
		return CodeEvidenceTooLarge, fmt.Sprintf("limits.stringBytes is %d, more than %d", n.Int, v01MaxStringBytes), nil
	}
	return "", "", nil
}

// 9. No raw authorization header.
func (p *v01Pre) authHeader() (string, string, error) {
	if loc := authHeaderPattern().FindIndex(p.compact); loc != nil {
		return CodeAuthHeaderForbidden, fmt.Sprintf("the bundle contains a raw authorization header at byte %d of its compact form", loc[0]), nil
	}
	return "", "", nil
}

// 10. No encoded secret.
func (p *v01Pre) secrets() (string, string, error) {
	if off, ok := encodedSecret(p.compact); ok {
		return CodeSecretDetected, fmt.Sprintf("the base64 text at byte %d of the compact bundle decodes to a credential", off), nil
	}
	return "", "", nil
}

// v01SchemaErrors checks doc against the v0.1 schema and adds the two path
// rules upstream expresses with look-aheads (no leading "/", no ".."
// segment) as "pattern" errors, in the schema errors' document order.
func (v *Validator) v01SchemaErrors(doc *canonjson.Value) []schema.Error {
	errs := v.core.SchemaErrors(schema.V01ConformanceBundle, doc)
	arts := doc.Path("integrity", "artifacts")
	if !arts.Is(canonjson.Array) {
		return errs
	}
	for i, a := range arts.Items {
		p := a.Get("path")
		if !p.Is(canonjson.String) || !v01PathChars(p.Str) || v01PathShapeOK(p.Str) {
			continue // the schema reported it, or it is fine
		}
		errs = insertSchemaError(doc, errs, schema.Error{
			InstancePath: "/integrity/artifacts/" + strconv.Itoa(i) + "/path",
			Keyword:      "pattern",
			Message:      "must be a relative path without a leading \"/\" or a \"..\" segment",
		})
	}
	return errs
}

// v01PathChars reports whether s passes the schema's own path pattern,
// ^[A-Za-z0-9._/-]+$ (so that a path is reported once).
func v01PathChars(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}

// v01PathShapeOK reports the look-ahead part of the v0.1 artifact path
// rule: not absolute and no ".." segment.
func v01PathShapeOK(s string) bool {
	if strings.HasPrefix(s, "/") {
		return false
	}
	for seg := range strings.SplitSeq(s, "/") {
		if seg == ".." {
			return false
		}
	}
	return true
}

// insertSchemaError inserts e into errs (sorted by document position of
// the instance) after every error at the same or an earlier position.
func insertSchemaError(doc *canonjson.Value, errs []schema.Error, e schema.Error) []schema.Error {
	i := len(errs)
	for i > 0 && comparePointers(doc, errs[i-1].InstancePath, e.InstancePath) > 0 {
		i--
	}
	errs = append(errs, schema.Error{})
	copy(errs[i+1:], errs[i:])
	errs[i] = e
	return errs
}

// comparePointers orders two JSON Pointers into doc by the pre-order
// position of what they point at: an ancestor first, then siblings by
// member order (objects) or index (arrays). Both must resolve in doc.
func comparePointers(doc *canonjson.Value, a, b string) int {
	ta, tb := jsonPointerTokens(a), jsonPointerTokens(b)
	v := doc
	for i := 0; ; i++ {
		switch {
		case i == len(ta) && i == len(tb):
			return 0
		case i == len(ta):
			return -1
		case i == len(tb):
			return 1
		}
		if ta[i] == tb[i] {
			v = pointerChild(v, ta[i])
			continue
		}
		return pointerPosition(v, ta[i]) - pointerPosition(v, tb[i])
	}
}

func jsonPointerTokens(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

func pointerChild(v *canonjson.Value, tok string) *canonjson.Value {
	if v.Is(canonjson.Array) {
		if i := pointerPosition(v, tok); i >= 0 && i < len(v.Items) {
			return v.Items[i]
		}
		return nil
	}
	return v.Get(tok)
}

// pointerPosition is the index of member or element tok in v, or -1.
func pointerPosition(v *canonjson.Value, tok string) int {
	switch {
	case v.Is(canonjson.Array):
		i, err := strconv.Atoi(tok)
		if err != nil {
			return -1
		}
		return i
	case v.Is(canonjson.Object):
		for i, m := range v.Members {
			if m.Key == tok {
				return i
			}
		}
	}
	return -1
}
