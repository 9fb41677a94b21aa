package migrate

import (
	"slices"

	"github.com/mcpres/mcpres/bundle"
	"github.com/mcpres/mcpres/canonjson"
)

// LegacyStrength labels every producer-written v0.1 boolean (MCP-RES §1).
const LegacyStrength = "LEGACY_SELF_ASSERTED"

// The v0.2 requirements a migration can never satisfy (REFERENCE §7.2),
// sorted; sourceEvidenceRequirement joins them when the v0.1 evidence has
// no sourceEvidence.
var (
	baseRequirements = []string{
		"AUTHENTICITY_EVIDENCE",
		"EXECUTION_INSTANCE_DIGEST",
		"OBSERVATION_BINDINGS",
		"OBSERVATION_COVERAGE",
		"REASON_BOUND_NEGATIVE_OBSERVATION",
		"SCENARIO_FINGERPRINT",
		"TRIAL_REPETITION_EVIDENCE",
	}
	sourceEvidenceRequirement = "SOURCE_EVIDENCE"
)

// Warnings are the report's warnings, exact upstream literals in order.
var Warnings = []string{
	"Producer booleans remain LEGACY_SELF_ASSERTED.",
	"No reason-bound negative evidence was fabricated.",
	"No signature or signer identity was fabricated.",
	"No repeated-trial evidence was fabricated.",
	"A fresh v0.2 run is required to resolve incomplete requirements.",
}

// Build returns the mcp-res.migration-result/0.2.0 report for a v0.1
// bundle, with members in the order of REFERENCE §7.2:
//
//	schemaVersion
//	source         {standardVersion "0.1.0", evidenceSha256 = statement.evidenceSha256,
//	                bundleFileSha256 = SHA-256 of raw}
//	target         {standardVersion "0.2.0", status INCOMPLETE, evidenceClass (unchanged),
//	                authenticityClassification UNSIGNED_INTEGRITY_ONLY,
//	                stabilityClassification SINGLE_OBSERVATION, legacyAssertions,
//	                unresolvedRequirements}
//	migration      {from, to, tool {name, version, sha256 = toolSHA256},
//	                inputOverwritten false, fabricatedEvidence false}
//	report         {status INCOMPLETE, preservedEvidenceSha256, preservedEvidenceClass,
//	                legacyAssertionCount, unresolvedRequirements, warnings}
//	originalBundle the bundle itself, unmodified
//
// raw is the input file's bytes; orig must be the v0.1-valid parse of
// them (Build does not validate: Run does, first). The result shares
// orig's values; clone orig first to modify either independently.
func Build(raw []byte, orig *canonjson.Value, toolSHA256 string) *canonjson.Value {
	ev := orig.Get("evidence")
	evidenceSha := orig.Path("statement", "evidenceSha256").Str
	class := ev.Get("evidenceClass").Str
	assertions := LegacyAssertions(ev)
	reqs := UnresolvedRequirements(ev)
	str := canonjson.NewString
	m := func(k string, v *canonjson.Value) canonjson.Member { return canonjson.Member{Key: k, Value: v} }
	return canonjson.NewObject(
		m("schemaVersion", str(bundle.SchemaVersionMigrationResult)),
		m("source", canonjson.NewObject(
			m("standardVersion", str(From)),
			m("evidenceSha256", str(evidenceSha)),
			m("bundleFileSha256", str(canonjson.BytesDigest(raw))),
		)),
		m("target", canonjson.NewObject(
			m("standardVersion", str(To)),
			m("status", str("INCOMPLETE")),
			m("evidenceClass", str(class)),
			m("authenticityClassification", str("UNSIGNED_INTEGRITY_ONLY")),
			m("stabilityClassification", str("SINGLE_OBSERVATION")),
			m("legacyAssertions", assertions),
			m("unresolvedRequirements", stringArray(reqs)),
		)),
		m("migration", canonjson.NewObject(
			m("from", str(From)),
			m("to", str(To)),
			m("tool", canonjson.NewObject(
				m("name", str(ToolName)),
				m("version", str(ToolVersion)),
				m("sha256", str(toolSHA256)),
			)),
			m("inputOverwritten", canonjson.NewBool(false)),
			m("fabricatedEvidence", canonjson.NewBool(false)),
		)),
		m("report", canonjson.NewObject(
			m("status", str("INCOMPLETE")),
			m("preservedEvidenceSha256", str(evidenceSha)),
			m("preservedEvidenceClass", str(class)),
			m("legacyAssertionCount", canonjson.NewInt(int64(len(assertions.Items)))),
			m("unresolvedRequirements", stringArray(reqs)),
			m("warnings", stringArray(Warnings)),
		)),
		m("originalBundle", orig),
	)
}

func stringArray(ss []string) *canonjson.Value {
	items := make([]*canonjson.Value, len(ss))
	for i, s := range ss {
		items[i] = canonjson.NewString(s)
	}
	return canonjson.NewArray(items...)
}

// LegacyAssertions collects the producer booleans of v0.1 evidence as
// {"name","value","strength":"LEGACY_SELF_ASSERTED"} objects (REFERENCE
// §7.2): every boolean member of execution (bare name), of privacy
// ("privacy.<name>"), cleanup.complete, and every boolean member of
// regression ("regression.<name>"), sorted by name.
//
// Upstream sorts with ICU collation for locale "en"; for the 22 names a
// v0.1-valid bundle can hold that order is code-unit order, which is what
// this sort uses (TestLegacyAssertionOrder pins the list).
func LegacyAssertions(evidence *canonjson.Value) *canonjson.Value {
	type assertion struct {
		name  string
		value bool
	}
	var as []assertion
	collect := func(obj *canonjson.Value, prefix string) {
		if !obj.Is(canonjson.Object) {
			return
		}
		for _, m := range obj.Members {
			if m.Value.Is(canonjson.Bool) {
				as = append(as, assertion{prefix + m.Key, m.Value.Bool})
			}
		}
	}
	collect(evidence.Get("execution"), "")
	collect(evidence.Get("privacy"), "privacy.")
	if c := evidence.Path("cleanup", "complete"); c.Is(canonjson.Bool) {
		as = append(as, assertion{"cleanup.complete", c.Bool})
	}
	collect(evidence.Get("regression"), "regression.")
	slices.SortStableFunc(as, func(a, b assertion) int { return canonjson.CompareKeys(a.name, b.name) })
	items := make([]*canonjson.Value, len(as))
	for i, a := range as {
		items[i] = canonjson.NewObject(
			canonjson.Member{Key: "name", Value: canonjson.NewString(a.name)},
			canonjson.Member{Key: "value", Value: canonjson.NewBool(a.value)},
			canonjson.Member{Key: "strength", Value: canonjson.NewString(LegacyStrength)},
		)
	}
	return canonjson.NewArray(items...)
}

// UnresolvedRequirements lists, sorted, the v0.2 requirements a migration
// of this v0.1 evidence leaves open: all of baseRequirements, and
// SOURCE_EVIDENCE when the evidence has no sourceEvidence.
func UnresolvedRequirements(evidence *canonjson.Value) []string {
	reqs := slices.Clone(baseRequirements)
	if !evidence.Get("sourceEvidence").Truthy() {
		reqs = append(reqs, sourceEvidenceRequirement)
		slices.Sort(reqs)
	}
	return reqs
}
