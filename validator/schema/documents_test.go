package schema

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
)

const baseVector = "valid/reason-bound-negative"

// TestUpstreamValidVectors runs every valid v0.2.0 vector, and each of its
// parts, through the schema of its type.
func TestUpstreamValidVectors(t *testing.T) {
	s := loadEmbedded(t)
	for _, f := range vectorFiles(t, "valid") {
		t.Run(f, func(t *testing.T) {
			b := readVector(t, f)
			checkErrors(t, s.Validate(ConformanceBundle, b), nil)
			ev := b.Get("evidence")
			parts := []struct {
				name string
				v    *canonjson.Value
			}{
				{EvidenceEnvelope, ev},
				{ConformanceStatement, b.Get("statement")},
				{IntegrityManifest, b.Get("integrity")},
				{ObservationCoverage, ev.Get("coverage")},
				{TrialSummary, ev.Get("trialSummary")},
			}
			for _, o := range ev.Get("observations").Items {
				parts = append(parts, struct {
					name string
					v    *canonjson.Value
				}{Observation, o})
			}
			for _, p := range parts {
				checkErrors(t, s.Validate(p.name, p.v), nil)
			}
		})
	}
}

// TestUpstreamInvalidVectors: the invalid vectors break semantic checks, so
// all are schema-valid except the one with an extra evidence member.
func TestUpstreamInvalidVectors(t *testing.T) {
	s := loadEmbedded(t)
	wants := map[string][]want{
		"invalid/false-runtime-boolean": {{"/evidence", "additionalProperties"}},
	}
	for _, f := range vectorFiles(t, "invalid") {
		t.Run(f, func(t *testing.T) {
			checkErrors(t, s.Validate(ConformanceBundle, readVector(t, f)), wants[f])
		})
	}
}

// bundleMutations are single changes to the base vector with their exact
// schema errors. The differential test reuses them.
var bundleMutations = []struct {
	name, ptr, repl string
	want            []want
}{
	{"durationMs null is allowed", "/evidence/trialSummary/durationMs", `null`, nil},
	{"empty faultId is allowed", "/evidence/operations/0/faultId", `""`, nil},
	{"safetyMechanism string", "/evidence/scenario/descriptor/recoveryPolicies/0/safetyMechanism", `"lock"`, nil},
	{"propertyReached UNKNOWN", "/evidence/operations/1/negativeObservation/propertyReached", `"UNKNOWN"`, nil},
	{"subject name of 128 emoji", "/evidence/subject/name", `"` + strings.Repeat("😀", 128) + `"`, nil},
	{"optional sourceEvidenceRefs", "/evidence/sourceEvidenceRefs", `["observations/obs-process.json"]`, nil},
	{"optional legacyAssertions", "/evidence/legacyAssertions", `[{"name":"x","value":true,"strength":"LEGACY_SELF_ASSERTED"}]`, nil},
	{"mutant members", "/evidence/operations/1/negativeObservation/mutantId", `"m-1"`, nil},
	{"date-time with offset", "/statement/verifiedAt", `"2026-08-27 14:01:00+02"`, nil},

	{"wrong schemaVersion", "/schemaVersion", `"mcp-res.conformance-bundle/0.1.0"`, []want{{"/schemaVersion", "const"}}},
	{"root __proto__", "/__proto__", `{}`, []want{{"", "additionalProperties"}}},
	{"missing statement", "/statement", "", []want{{"", "required"}}},
	{"missing verifiedAt", "/statement/verifiedAt", "", []want{{"/statement", "required"}}},
	{"extra evidence member", "/evidence/execution", `{"actualRuntime":true}`, []want{{"/evidence", "additionalProperties"}}},
	{"unknown protocol revision", "/evidence/protocolRevision", `"2025-06-18"`, []want{{"/evidence/protocolRevision", "enum"}}},
	{"complete 1 is not true", "/integrity/complete", `1`, []want{{"/integrity/complete", "const"}}},
	{"sha256 with trailing LF", "/integrity/artifacts/0/sha256", `"` + hex64 + `\n"`, []want{{"/integrity/artifacts/0/sha256", "pattern"}}},
	{"sha256 upper case", "/integrity/bundleDigest", `"` + strings.ToUpper(hex64) + `"`, []want{{"/integrity/bundleDigest", "pattern"}}},
	{"bytes zero", "/integrity/artifacts/1/bytes", `0`, []want{{"/integrity/artifacts/1/bytes", "minimum"}}},
	{"bytes as string", "/integrity/artifacts/1/bytes", `"8676"`, []want{{"/integrity/artifacts/1/bytes", "type"}}},
	{"one artifact", "/integrity/artifacts", `[{"path":"a","mediaType":"m","bytes":1,"sha256":"` + hex64 + `"}]`,
		[]want{{"/integrity/artifacts", "minItems"}}},
	{"artifact path with leading dot", "/integrity/artifacts/0/path", `".hidden"`, []want{{"/integrity/artifacts/0/path", "pattern"}}},
	{"monotonic duration too long", "/evidence/run/monotonicDurationMs", `14400001`, []want{{"/evidence/run/monotonicDurationMs", "maximum"}}},
	{"leap second startedAt", "/evidence/run/startedAt", `"2026-12-31T23:59:60Z"`, []want{{"/evidence/run/startedAt", "format"}}},
	{"30 February finishedAt", "/evidence/run/finishedAt", `"2026-02-30T00:00:00Z"`, []want{{"/evidence/run/finishedAt", "format"}}},
	{"short run id", "/evidence/run/id", `"run-1"`, []want{{"/evidence/run/id", "pattern"}}},
	{"seed beyond uint32", "/evidence/scenario/descriptor/deterministicSeed", `4294967296`, []want{{"/evidence/scenario/descriptor/deterministicSeed", "maximum"}}},
	{"negative fault seed", "/evidence/scenario/descriptor/faults/0/seed", `-1`, []want{{"/evidence/scenario/descriptor/faults/0/seed", "minimum"}}},
	{"safetyMechanism too long", "/evidence/scenario/descriptor/recoveryPolicies/0/safetyMechanism", `"` + strings.Repeat("x", 129) + `"`,
		[]want{{"/evidence/scenario/descriptor/recoveryPolicies/0/safetyMechanism", "maxLength"}}},
	{"safetyMechanism boolean", "/evidence/scenario/descriptor/recoveryPolicies/0/safetyMechanism", `false`,
		[]want{{"/evidence/scenario/descriptor/recoveryPolicies/0/safetyMechanism", "type"}}},
	{"empty parentOperationId", "/evidence/operations/0/parentOperationId", `""`, []want{{"/evidence/operations/0/parentOperationId", "minLength"}}},
	{"attempt 33", "/evidence/operations/1/attempt", `33`, []want{{"/evidence/operations/1/attempt", "maximum"}}},
	{"unknown operation kind", "/evidence/operations/0/kind", `"CLEAN"`, []want{{"/evidence/operations/0/kind", "enum"}}},
	{"propertyReached lower-case", "/evidence/operations/1/negativeObservation/propertyReached", `"unknown"`,
		[]want{{"/evidence/operations/1/negativeObservation/propertyReached", "oneOf"}}},
	{"propertyReached 1", "/evidence/operations/1/negativeObservation/propertyReached", `1`,
		[]want{{"/evidence/operations/1/negativeObservation/propertyReached", "oneOf"}}},
	{"duplicate prerequisite", "/evidence/operations/1/negativeObservation/prerequisitesReached", `["A","A"]`,
		[]want{{"/evidence/operations/1/negativeObservation/prerequisitesReached", "uniqueItems"}}},
	{"mutantKilled string", "/evidence/operations/1/negativeObservation/mutantKilled", `"true"`,
		[]want{{"/evidence/operations/1/negativeObservation/mutantKilled", "type"}}},
	{"one operation", "/evidence/operations/1", "", []want{{"/evidence/operations", "minItems"}}},
	{"no observations", "/evidence/observations", `[]`, []want{{"/evidence/observations", "minItems"}}},
	{"observation id prefix", "/evidence/observations/0/id", `"ob-process"`, []want{{"/evidence/observations/0/id", "pattern"}}},
	{"observation id too long", "/evidence/observations/0/id", `"obs-` + strings.Repeat("x", 125) + `"`, []want{{"/evidence/observations/0/id", "maxLength"}}},
	{"duplicate artifactRefs", "/evidence/observations/0/artifactRefs", `["a","a"]`, []want{{"/evidence/observations/0/artifactRefs", "uniqueItems"}}},
	{"lower-case reason code", "/evidence/observations/0/reasonCode", `"Process_ok"`, []want{{"/evidence/observations/0/reasonCode", "pattern"}}},
	{"13 surfaces", "/evidence/coverage/surfaces/13", "", []want{{"/evidence/coverage/surfaces", "minItems"}}},
	{"unknown surface", "/evidence/coverage/surfaces/0/surface", `"MCP_WIRE"`, []want{{"/evidence/coverage/surfaces/0/surface", "enum"}}},
	{"duplicate seeds", "/evidence/trialSummary/seeds", `[1702,1702]`, []want{{"/evidence/trialSummary/seeds", "uniqueItems"}}},
	{"no environments", "/evidence/trialSummary/environments", `[]`, []want{{"/evidence/trialSummary/environments", "minItems"}}},
	{"durationMs missing p95", "/evidence/trialSummary/durationMs/p95", "", []want{{"/evidence/trialSummary/durationMs", "required"}}},
	{"durationMs array", "/evidence/trialSummary/durationMs", `[]`, []want{{"/evidence/trialSummary/durationMs", "type"}}},
	{"profile version with v", "/evidence/profile/version", `"v2.0.0"`, []want{{"/evidence/profile/version", "pattern"}}},
	{"profile id upper case", "/evidence/profile/id", `"mcp-res/Server/v1"`, []want{{"/evidence/profile/id", "pattern"}}},
	{"validator extra member", "/statement/validator/url", `"x"`, []want{{"/statement/validator", "additionalProperties"}}},
	{"empty subject version", "/evidence/subject/version", `""`, []want{{"/evidence/subject/version", "minLength"}}},
	{"subject name of 129 emoji", "/evidence/subject/name", `"` + strings.Repeat("😀", 129) + `"`, []want{{"/evidence/subject/name", "maxLength"}}},
	{"resourceLimits concurrency 0", "/evidence/scenario/descriptor/resourceLimits/concurrency", `0`,
		[]want{{"/evidence/scenario/descriptor/resourceLimits/concurrency", "minimum"}}},
	{"too many sourceEvidenceRefs", "/evidence/sourceEvidenceRefs",
		`["a1","a2","a3","a4","a5","a6","a7","a8","a9","b1","b2","b3","b4","b5","b6","b7","b8"]`,
		[]want{{"/evidence/sourceEvidenceRefs", "maxItems"}}},
	{"legacy assertion strength", "/evidence/legacyAssertions", `[{"name":"x","value":true,"strength":"INTEGRITY_BOUND"}]`,
		[]want{{"/evidence/legacyAssertions/0/strength", "const"}}},
	{"evidence is an array", "/evidence", `[]`, []want{{"/evidence", "type"}}},
}

func TestBundleMutations(t *testing.T) {
	s := loadEmbedded(t)
	base := readVector(t, baseVector)
	for _, m := range bundleMutations {
		t.Run(m.name, func(t *testing.T) {
			checkErrors(t, s.Validate(ConformanceBundle, mutate(t, base, m.ptr, m.repl)), m.want)
		})
	}
	t.Run("base is unchanged", func(t *testing.T) {
		checkErrors(t, s.Validate(ConformanceBundle, base), nil)
	})
}

// TestMultipleErrorsInBundle pins the document order of several errors
// spread over the bundle.
func TestMultipleErrorsInBundle(t *testing.T) {
	s := loadEmbedded(t)
	v := readVector(t, baseVector)
	v = mutate(t, v, "/integrity/bundleDigest", `"x"`)
	v = mutate(t, v, "/evidence/run/startedAt", `"2026-12-31T23:59:60Z"`)
	v = mutate(t, v, "/evidence/subject/version", "")
	v = mutate(t, v, "/evidence/observations/2/durationMs", `-5`)
	v = mutate(t, v, "/statement/result", `"OK"`)
	v = mutate(t, v, "/zzz", `1`)
	checkErrors(t, s.Validate(ConformanceBundle, v), []want{
		{"", "additionalProperties"},
		{"/evidence/subject", "required"},
		{"/evidence/run/startedAt", "format"},
		{"/evidence/observations/2/durationMs", "minimum"},
		{"/statement/result", "enum"},
		{"/integrity/bundleDigest", "pattern"},
	})
}

// testPolicy is the trust policy of REFERENCE §3.2.5.
const testPolicy = `{
  "schemaVersion": "mcp-res.trust-policy/0.2.0",
  "id": "mcp-res/test-policy",
  "version": "1.0.0",
  "validFrom": "2026-01-01T00:00:00.000Z",
  "validUntil": "2027-01-01T00:00:00.000Z",
  "requiredAlgorithm": "Ed25519",
  "trustedSigners": [
    {"keyFingerprint": "` + hex64 + `", "signerIdentity": "test://mcp-res/disposable/signer-one"},
    {"keyFingerprint": "` + hex64 + `", "signerIdentity": "test://mcp-res/disposable/signer-two"}
  ],
  "revokedKeyFingerprints": []
}`

func TestTrustPolicy(t *testing.T) {
	s := loadEmbedded(t)
	base := parse(t, testPolicy)
	tests := []struct {
		name, ptr, repl string
		want            []want
	}{
		{"test policy", "/id", `"mcp-res/test-policy"`, nil},
		{"duplicate trusted signers allowed", "/trustedSigners/1", `{"keyFingerprint":"` + hex64 + `","signerIdentity":"test://mcp-res/disposable/signer-one"}`, nil},
		{"non-BMP signer identity", "/trustedSigners/0/signerIdentity", `"test://😀"`, nil},
		{"inverted window is schema-valid", "/validFrom", `"2028-01-01T00:00:00Z"`, nil},
		{"leap-second validUntil", "/validUntil", `"2026-12-31T23:59:60Z"`, []want{{"/validUntil", "format"}}},
		{"validFrom without offset", "/validFrom", `"2026-01-01T00:00:00"`, []want{{"/validFrom", "format"}}},
		{"wrong algorithm", "/requiredAlgorithm", `"RSA-PSS"`, []want{{"/requiredAlgorithm", "const"}}},
		{"duplicate revoked keys", "/revokedKeyFingerprints", `["` + hex64 + `","` + hex64 + `"]`, []want{{"/revokedKeyFingerprints", "uniqueItems"}}},
		{"signer without identity", "/trustedSigners/0/signerIdentity", "", []want{{"/trustedSigners/0", "required"}}},
		{"version not semver", "/version", `"1.0"`, []want{{"/version", "pattern"}}},
		{"null policy", "", `null`, []want{{"", "type"}}},
		{"wrong schemaVersion", "/schemaVersion", `"mcpres.trust-policy/v1"`, []want{{"/schemaVersion", "const"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrors(t, s.Validate(TrustPolicy, mutate(t, base, tt.ptr, tt.repl)), tt.want)
		})
	}
}

// statementFor builds the in-toto statement of REFERENCE §6.11 for b.
func statementFor(t testing.TB, b *canonjson.Value, withTransparency bool) *canonjson.Value {
	t.Helper()
	ev := b.Get("evidence")
	st := b.Get("statement")
	text := `{"_type":"https://in-toto.io/Statement/v1",
	  "subject":[{"name":` + compact(ev.Path("subject", "name")) + `,"digest":{"sha256":` + compact(ev.Path("subject", "artifactSha256")) + `}}],
	  "predicateType":"https://aliengineering-byte.github.io/resilireplay/standards/mcp-res/attestation/v0.2",
	  "predicate":{
	    "evidenceBundleDigest":` + compact(b.Path("integrity", "bundleDigest")) + `,
	    "scenarioFingerprint":` + compact(ev.Path("scenario", "fingerprint")) + `,
	    "executionInstanceDigest":` + compact(st.Get("executionInstanceDigest")) + `,
	    "profile":` + compact(ev.Get("profile")) + `,
	    "validator":` + compact(st.Get("validator")) + `,
	    "signerIdentity":"test://mcp-res/disposable/signer-one",
	    "signerKeyFingerprint":"` + hex64 + `",
	    "signatureAlgorithm":"Ed25519",
	    "signingTime":"2026-08-27T18:00:00.000Z",
	    "trustPolicyId":"mcp-res/test-policy"`
	if withTransparency {
		text += `,"transparencyReference":{"logId":"test-log","entryUuid":"test-entry-0001",
		  "inclusionProofBase64":"b2ZmbGluZS10ZXN0LWluY2x1c2lvbi1wcm9vZi12MQ==",
		  "inclusionProofSha256":"543adb4c2c8c8a13a723c418e55cb8da585200ce59fa5d1096c0c238212e2167"}`
	}
	return parse(t, text+`}}`)
}

const testEnvelope = `{
  "schemaVersion": "mcp-res.dsse-envelope/0.2.0",
  "payloadType": "application/vnd.in-toto+json",
  "payload": "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ==",
  "signatures": [{
    "keyid": "` + hex64 + `",
    "sig": "c2lnbmF0dXJl",
    "algorithm": "Ed25519",
    "publicKeySpkiBase64": "MCowBQYDK2VwAyEA",
    "signerIdentity": "test://mcp-res/disposable/signer-one"
  }]
}`

func TestAttestationDocuments(t *testing.T) {
	s := loadEmbedded(t)
	b := readVector(t, baseVector)
	t.Run("statement", func(t *testing.T) {
		checkErrors(t, s.Validate(InTotoStatement, statementFor(t, b, false)), nil)
	})
	t.Run("statement with transparency reference", func(t *testing.T) {
		checkErrors(t, s.Validate(InTotoStatement, statementFor(t, b, true)), nil)
	})
	statementCases := []struct {
		name, ptr, repl string
		want            []want
	}{
		{"two subjects", "/subject/-", `{"name":"x","digest":{"sha256":"` + hex64 + `"}}`, nil},
		{"no subject", "/subject", `[]`, []want{{"/subject", "minItems"}}},
		{"digest extra algorithm", "/subject/0/digest/sha512", `"x"`, []want{{"/subject/0/digest", "additionalProperties"}}},
		{"wrong _type", "/_type", `"https://in-toto.io/Statement/v0.1"`, []want{{"/_type", "const"}}},
		{"wrong predicateType", "/predicateType", `"x"`, []want{{"/predicateType", "const"}}},
		{"signingTime leap second", "/predicate/signingTime", `"2026-12-31T23:59:60Z"`, []want{{"/predicate/signingTime", "format"}}},
		{"signature algorithm", "/predicate/signatureAlgorithm", `"ed25519"`, []want{{"/predicate/signatureAlgorithm", "const"}}},
		{"profile extra member", "/predicate/profile/name", `"x"`, []want{{"/predicate/profile", "additionalProperties"}}},
		{"missing trustPolicyId", "/predicate/trustPolicyId", "", []want{{"/predicate", "required"}}},
		{"transparency proof too short", "/predicate/transparencyReference", `{"logId":"l","entryUuid":"e","inclusionProofBase64":"QQ=","inclusionProofSha256":"` + hex64 + `"}`,
			[]want{{"/predicate/transparencyReference/inclusionProofBase64", "minLength"}}},
	}
	for _, tt := range statementCases {
		t.Run("statement "+tt.name, func(t *testing.T) {
			checkErrors(t, s.Validate(InTotoStatement, mutate(t, statementFor(t, b, false), tt.ptr, tt.repl)), tt.want)
		})
	}

	env := parse(t, testEnvelope)
	t.Run("envelope", func(t *testing.T) { checkErrors(t, s.Validate(DSSEEnvelope, env), nil) })
	envelopeCases := []struct {
		name, ptr, repl string
		want            []want
	}{
		{"no signatures", "/signatures", `[]`, []want{{"/signatures", "minItems"}}},
		{"RSA", "/signatures/0/algorithm", `"RSA-PSS"`, []want{{"/signatures/0/algorithm", "const"}}},
		{"upper-case keyid", "/signatures/0/keyid", `"` + strings.ToUpper(hex64) + `"`, []want{{"/signatures/0/keyid", "pattern"}}},
		{"payload too short", "/payload", `"QQ="`, []want{{"/payload", "minLength"}}},
		{"payload type", "/payloadType", `"application/json"`, []want{{"/payloadType", "const"}}},
		{"extra signature member", "/signatures/0/cert", `"x"`, []want{{"/signatures/0", "additionalProperties"}}},
	}
	for _, tt := range envelopeCases {
		t.Run("envelope "+tt.name, func(t *testing.T) {
			checkErrors(t, s.Validate(DSSEEnvelope, mutate(t, env, tt.ptr, tt.repl)), tt.want)
		})
	}

	wrapper := &canonjson.Value{Kind: canonjson.Object}
	wrapper.Set("schemaVersion", canonjson.NewString("mcp-res.attested-conformance-bundle/0.2.0"))
	wrapper.Set("bundle", b)
	wrapper.Set("authenticity", parse(t, `{"schemaVersion":"mcp-res.authenticity/0.2.0",
		"claimedClassification":"UNSIGNED_INTEGRITY_ONLY","envelopes":[]}`))
	t.Run("unsigned wrapper", func(t *testing.T) {
		checkErrors(t, s.Validate(AttestedConformanceBundle, wrapper), nil)
	})
	wrapperCases := []struct {
		name, ptr, repl string
		want            []want
	}{
		{"two envelopes", "/authenticity/envelopes", `[` + testEnvelope + `,` + testEnvelope + `]`, nil},
		{"nine envelopes", "/authenticity/envelopes", `[` + strings.Repeat(testEnvelope+",", 8) + testEnvelope + `]`,
			[]want{{"/authenticity/envelopes", "maxItems"}}},
		{"unknown claim", "/authenticity/claimedClassification", `"SIGNED_BY_VENDOR"`, []want{{"/authenticity/claimedClassification", "enum"}}},
		{"bundle error is reported inside the wrapper", "/bundle/evidence/execution", `{"actualRuntime":true}`,
			[]want{{"/bundle/evidence", "additionalProperties"}}},
		{"envelope error path", "/authenticity/envelopes", `[` + strings.Replace(testEnvelope, `"Ed25519"`, `"RSA-PSS"`, 1) + `]`,
			[]want{{"/authenticity/envelopes/0/signatures/0/algorithm", "const"}}},
		{"missing authenticity", "/authenticity", "", []want{{"", "required"}}},
	}
	for _, tt := range wrapperCases {
		t.Run("wrapper "+tt.name, func(t *testing.T) {
			checkErrors(t, s.Validate(AttestedConformanceBundle, mutate(t, wrapper, tt.ptr, tt.repl)), tt.want)
		})
	}
}

func TestNamesAndSchemaVersions(t *testing.T) {
	s := loadEmbedded(t)
	wantNames := []string{
		AttestedConformanceBundle, Authenticity, Common, ConformanceBundle, ConformanceStatement,
		DSSEEnvelope, EvidenceEnvelope, InTotoStatement, IntegrityManifest, Observation,
		ObservationCoverage, TrialSummary, TrustPolicy,
	}
	got := s.Names()
	if !slices.IsSorted(got) {
		t.Errorf("Names() = %v, not sorted", got)
	}
	for _, name := range wantNames {
		if !slices.Contains(got, name) || s.Schema(name) == nil {
			t.Errorf("Names() = %v, lacks %s", got, name)
		}
	}
	for sv, name := range map[string]string{
		"mcp-res.conformance-bundle/0.2.0":          ConformanceBundle,
		"mcp-res.evidence-envelope/0.2.0":           EvidenceEnvelope,
		"mcp-res.observation/0.2.0":                 Observation,
		"mcp-res.observation-coverage/0.2.0":        ObservationCoverage,
		"mcp-res.trial-summary/0.2.0":               TrialSummary,
		"mcp-res.conformance-statement/0.2.0":       ConformanceStatement,
		"mcp-res.integrity-manifest/0.2.0":          IntegrityManifest,
		"mcp-res.attested-conformance-bundle/0.2.0": AttestedConformanceBundle,
		"mcp-res.authenticity/0.2.0":                Authenticity,
		"mcp-res.dsse-envelope/0.2.0":               DSSEEnvelope,
		"mcp-res.trust-policy/0.2.0":                TrustPolicy,
	} {
		if got, ok := s.NameForSchemaVersion(sv); !ok || got != name {
			t.Errorf("NameForSchemaVersion(%q) = %q, %v; want %q", sv, got, ok, name)
		}
	}
	if _, ok := s.NameForSchemaVersion("mcp-res.conformance-bundle/0.1.0"); ok {
		t.Error("v0.1 bundle must not map to a v0.2 schema")
	}
	const base = "https://aliengineering-byte.github.io/resilireplay/standards/mcp-res/v0.2.0/schemas/"
	for _, name := range wantNames {
		if got := s.Schema(name).ID(); got != base+name+".schema.json" {
			t.Errorf("%s: $id = %s", name, got)
		}
	}
}

// TestValidAllocations: validating a valid bundle allocates only the
// evaluator itself, however many nodes the bundle has.
func TestValidAllocations(t *testing.T) {
	s := loadEmbedded(t)
	b := readVector(t, baseVector)
	sch := s.Schema(ConformanceBundle)
	n := testing.AllocsPerRun(20, func() {
		if errs := sch.Validate(b); errs != nil {
			t.Fatal(errs)
		}
	})
	if n > 1 {
		t.Errorf("Validate of a valid bundle allocates %.0f times, want at most 1", n)
	}
}

// TestValidateMax: ValidateMax keeps the first max errors evaluation meets
// (here the first six of TestMultipleErrorsInBundle's, cut at 3, 1 and
// every one), in Validate's order, and never changes validity; 20,000
// empty operations, each missing every required member, are bounded too.
func TestValidateMax(t *testing.T) {
	s := loadEmbedded(t)
	v := readVector(t, baseVector)
	v = mutate(t, v, "/integrity/bundleDigest", `"x"`)
	v = mutate(t, v, "/evidence/run/startedAt", `"2026-12-31T23:59:60Z"`)
	v = mutate(t, v, "/evidence/subject/version", "")
	v = mutate(t, v, "/evidence/observations/2/durationMs", `-5`)
	v = mutate(t, v, "/statement/result", `"OK"`)
	v = mutate(t, v, "/zzz", `1`)
	all := s.Validate(ConformanceBundle, v)
	if len(all) != 6 {
		t.Fatalf("%d errors", len(all))
	}
	for _, max := range []int{0, 1, 3, 6, 7} {
		got := s.ValidateMax(ConformanceBundle, v, max)
		want := max
		if max < 1 || max > len(all) {
			want = len(all)
		}
		if len(got) != want {
			t.Errorf("max %d: %d errors, want %d", max, len(got), want)
		}
		for _, e := range got {
			if !slices.Contains(all, e) {
				t.Errorf("max %d: error %v is not one of Validate's", max, e)
			}
		}
	}
	// Control: a valid document stays valid under any limit.
	if errs := s.ValidateMax(ConformanceBundle, readVector(t, baseVector), 1); errs != nil {
		t.Errorf("the valid vector under a limit: %v", errs)
	}
	ops := readVector(t, baseVector)
	empty := make([]*canonjson.Value, 20_000)
	for i := range empty {
		empty[i] = canonjson.NewObject()
	}
	ops.Get("evidence").Set("operations", canonjson.NewArray(empty...))
	if n := len(s.Validate(ConformanceBundle, ops)); n < 20_000 {
		t.Fatalf("unlimited: %d errors", n)
	}
	if errs := s.ValidateMax(ConformanceBundle, ops, 100); len(errs) != 100 {
		t.Errorf("limited to 100: %d errors", len(errs))
	}
}
