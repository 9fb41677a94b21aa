// Package migration validates mcp-res.migration-result/0.2.0 documents
// (bundle.SchemaVersionMigrationResult), the reports of a v0.1 → v0.2
// migration (MCP-RES §11, MCPRES-MIG-001), in the order of REFERENCE §5.4
// (see Validator.Validate for the steps). The embedded original bundle is
// re-validated with package v01. Results and aborts are the core
// validator's (validator.Result, *validator.InputError).
package migration

import (
	"fmt"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/schema"
	"github.com/mcpres/mcpres/validator/v01"
)

// Diagnostic codes of the migration-result validator (REFERENCE §5.8).
const (
	CodeSchemaInvalid  = "MCP_RES_MIGRATION_SCHEMA_INVALID"
	CodeSourceInvalid  = "MCP_RES_MIGRATION_SOURCE_INVALID"
	CodeDigestMismatch = "MCP_RES_MIGRATION_DIGEST_MISMATCH"
	CodeClassPromotion = "MCP_RES_MIGRATION_CLASS_PROMOTION"
	CodeFabrication    = "MCP_RES_MIGRATION_FABRICATION"
)

// A Validator validates migration results. It is safe for concurrent use.
type Validator struct {
	core *validator.Validator
	v01  *v01.Validator
}

// New returns a Validator that uses the schemas of v, the core validator
// (validator.Validator.Schemas, the one lazy loader). With nil it uses a
// validator.New of its own.
func New(v *validator.Validator) *Validator {
	if v == nil {
		v = validator.New()
	}
	return &Validator{core: v, v01: v01.New(v)}
}

// Constants a migration result must keep (REFERENCE §3.3, §7.2).
const (
	migrationStatus         = "INCOMPLETE"
	migrationAuthenticity   = "UNSIGNED_INTEGRITY_ONLY"
	migrationStability      = "SINGLE_OBSERVATION"
	migrationLegacyStrength = "LEGACY_SELF_ASSERTED"
)

// Validate validates a parsed mcp-res.migration-result/0.2.0 (MCP-RES
// §11, MCPRES-MIG-001) in the order of REFERENCE §5.4, stopping at the
// first failure:
//
//  1. the schema of REFERENCE §3.3 → MCP_RES_MIGRATION_SCHEMA_INVALID, with
//     every schema error;
//  2. originalBundle fails the complete v0.1 validator (package v01), or
//     cannot be evaluated by it → MCP_RES_MIGRATION_SOURCE_INVALID;
//  3. source.evidenceSha256 differs from the original statement's
//     evidenceSha256, or report.preservedEvidenceSha256 from
//     source.evidenceSha256 → MCP_RES_MIGRATION_DIGEST_MISMATCH;
//  4. target.evidenceClass or report.preservedEvidenceClass differs from
//     the original evidence class → MCP_RES_MIGRATION_CLASS_PROMOTION;
//  5. fabricatedEvidence not false, an authenticity, stability or status
//     other than UNSIGNED_INTEGRITY_ONLY, SINGLE_OBSERVATION and INCOMPLETE,
//     a legacy assertion not LEGACY_SELF_ASSERTED, a legacyAssertionCount
//     that is not the number of assertions, or report and target listing
//     different unresolved requirements → MCP_RES_MIGRATION_FABRICATION.
//
// Step 2 returns a *validator.InputError (MCP_RES_INPUT_INVALID) instead when both
// upstream implementations abort there: the v0.1 validator aborts and the
// upstream Python subset aborts too (originalBundle.evidence.operations
// null, a number, a boolean, a non-empty string or object, or an array
// whose scan for the first CLEAN_CONTROL, then for the first
// NEGATIVE_CONTROL, reaches a non-object element). It returns no other
// error.
//
// Nothing here can check source.bundleFileSha256 (the raw input file is
// not part of the result) or migration.tool.sha256 (the tool that wrote
// it), and the legacy assertions' names and values are not compared with
// the original bundle.
func (v *Validator) Validate(doc *canonjson.Value) (validator.Result, error) {
	if errs := v.core.SchemaErrors(schema.MigrationResult, doc); len(errs) > 0 {
		r := validator.Fail(CodeSchemaInvalid, schema.Summary(errs))
		r.SchemaErrors = errs
		return r, nil
	}
	orig := doc.Get("originalBundle")
	r, err := v.v01.Validate(orig)
	if err != nil {
		reason := abortReason(err)
		if pythonSubsetAborts(orig) {
			return validator.Result{}, &validator.InputError{Reason: "originalBundle: " + reason}
		}
		return validator.Fail(CodeSourceInvalid, "originalBundle cannot be evaluated with the v0.1 rules: "+reason), nil
	}
	if !r.Valid {
		return validator.Fail(CodeSourceInvalid, fmt.Sprintf("originalBundle fails v0.1 validation with %s: %s", r.Diagnostics[0], r.Detail)), nil
	}
	for _, check := range []func(doc, orig *canonjson.Value) (string, string){
		migrationDigests, migrationClass, migrationFabrication,
	} {
		if code, detail := check(doc, orig); code != "" {
			return validator.Fail(code, detail), nil
		}
	}
	return validator.Pass(), nil
}

func abortReason(err error) string {
	if ie, ok := err.(*validator.InputError); ok {
		return ie.Reason
	}
	return err.Error()
}

// 3. The evidence digest is preserved.
func migrationDigests(doc, orig *canonjson.Value) (string, string) {
	src := doc.Path("source", "evidenceSha256").Str
	if want := orig.Path("statement", "evidenceSha256").Str; src != want {
		return CodeDigestMismatch, fmt.Sprintf("source.evidenceSha256 is %s, the original statement says %s", src, want)
	}
	if got := doc.Path("report", "preservedEvidenceSha256").Str; got != src {
		return CodeDigestMismatch, fmt.Sprintf("report.preservedEvidenceSha256 is %s, source.evidenceSha256 is %s", got, src)
	}
	return "", ""
}

// 4. The evidence class is preserved.
func migrationClass(doc, orig *canonjson.Value) (string, string) {
	want := orig.Path("evidence", "evidenceClass").Str
	for _, p := range [][2]string{{"target", "evidenceClass"}, {"report", "preservedEvidenceClass"}} {
		if got := doc.Path(p[0], p[1]).Str; got != want {
			return CodeClassPromotion, fmt.Sprintf("%s.%s is %s, the original evidence class is %s", p[0], p[1], got, want)
		}
	}
	return "", ""
}

// 5. Nothing is fabricated or completed.
func migrationFabrication(doc, _ *canonjson.Value) (string, string) {
	bad := func(format string, args ...any) (string, string) {
		return CodeFabrication, fmt.Sprintf(format, args...)
	}
	target, report := doc.Get("target"), doc.Get("report")
	switch {
	case !doc.Path("migration", "fabricatedEvidence").Is(canonjson.Bool) || doc.Path("migration", "fabricatedEvidence").Bool:
		return bad("migration.fabricatedEvidence is not false")
	case !isJSONString(target.Get("authenticityClassification"), migrationAuthenticity):
		return bad("target.authenticityClassification is not %s", migrationAuthenticity)
	case !isJSONString(target.Get("stabilityClassification"), migrationStability):
		return bad("target.stabilityClassification is not %s", migrationStability)
	case !isJSONString(target.Get("status"), migrationStatus):
		return bad("target.status is not %s", migrationStatus)
	}
	assertions := target.Get("legacyAssertions").Items
	for i, a := range assertions {
		if !isJSONString(a.Get("strength"), migrationLegacyStrength) {
			return bad("target.legacyAssertions[%d].strength is not %s", i, migrationLegacyStrength)
		}
	}
	if n := report.Get("legacyAssertionCount").Int; n != int64(len(assertions)) {
		return bad("report.legacyAssertionCount is %d, target lists %d legacy assertions", n, len(assertions))
	}
	if !canonjson.Equal(report.Get("unresolvedRequirements"), target.Get("unresolvedRequirements")) {
		return bad("report.unresolvedRequirements differs from target.unresolvedRequirements")
	}
	return "", ""
}

// pythonSubsetAborts reports whether the upstream Python migration
// validator's v0.1 subset aborts on orig (REFERENCE §5.4 step 2): it
// iterates evidence.operations and reads "kind" from each element, first
// looking for a CLEAN_CONTROL, then (only if one exists) for the first
// NEGATIVE_CONTROL.
func pythonSubsetAborts(orig *canonjson.Value) bool {
	ops := orig.Path("evidence", "operations")
	if ops == nil {
		return false
	}
	switch ops.Kind {
	case canonjson.Null, canonjson.Int, canonjson.Bool, canonjson.Number:
		return true
	case canonjson.String:
		return ops.Str != ""
	case canonjson.Object:
		return len(ops.Members) > 0
	}
	scan := func(kind string) (found, aborts bool) {
		for _, op := range ops.Items {
			if op.Kind != canonjson.Object {
				return false, true
			}
			if isOpKind(op, kind) {
				return true, false
			}
		}
		return false, false
	}
	found, aborts := scan("CLEAN_CONTROL")
	if aborts || !found {
		return aborts
	}
	_, aborts = scan("NEGATIVE_CONTROL")
	return aborts
}

func isJSONString(v *canonjson.Value, s string) bool { return v.Is(canonjson.String) && v.Str == s }

// isOpKind reports whether op's kind is the string kind (JavaScript
// strict equality, as the upstream Python subset compares it).
func isOpKind(op *canonjson.Value, kind string) bool { return isJSONString(op.Get("kind"), kind) }
