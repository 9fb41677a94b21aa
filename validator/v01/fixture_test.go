package v01_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/validator"
	"github.com/mcpres/mcpres/validator/v01"
)

// v01ExampleFile is mcpres's own v0.1.0 example bundle: an original fixture
// (not an upstream vector) with every optional part of a v0.1 bundle — a
// sanitized source projection bound by the manifest (so it can claim
// GENUINE_RUNTIME), a fault case recovered by a side-effecting retry with an
// idempotency key, a negative control, and an executed regression. Its
// digests are kept by TestV01ExampleFixture; v0.1 has no Seal of its own.
var v01ExampleFile = filepath.Join("testdata", "example.json")

// v01Identities are the example's fixed identities, each sha256("<text>\n")
// as REFERENCE §2.3 describes the upstream generator's convention.
var v01Identities = []struct{ ptr, text string }{
	{"/evidence/subject/artifact/sha256", "ledger-notes-server@3.2.0"},
	{"/evidence/subject/configurationProfile/sha256", "mcpres/ledger-notes-config@3.2.0"},
	{"/evidence/subject/harness/sha256", "mcpres-harness@0.1.0"},
	{"/evidence/subject/runtimes/0/sha256", "node@22.11.0"},
	{"/evidence/validator/sha256", "mcpres@0.1.0"},
	{"/statement/validatorSha256", "mcpres@0.1.0"},
	{"/evidence/sourceEvidence/originalSha256", "mcpres-example/wire-session.original.json"},
	{"/evidence/sourceEvidence/projectionSha256", "mcpres-example/wire-session.json"},
	{"/integrity/artifacts/2/sha256", "mcpres-example/wire-session.json"},
	{"/evidence/faults/0/reproducibilitySha256", "mcpres-example/fault/append-timeout@1.0.0"},
	{"/evidence/faults/1/reproducibilitySha256", "mcpres-example/fault/truncated-content-array@1.0.0"},
	{"/evidence/recoveryPolicies/0/safetyMechanism/evidenceSha256", "mcpres-example/idempotency-key/ledger-notes"},
}

// v01Example returns a fresh parse of the committed example.
func v01Example(t testing.TB) *canonjson.Value {
	t.Helper()
	_, v, err := canonjson.ReadFile(v01ExampleFile)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sealV01 recomputes every digest a v0.1 validator checks, in dependency
// order: the evidence digest into the statement, the evidence and
// statement manifest entries (the first entry with each path), then the
// bundle digest. Nothing else is touched.
func sealV01(t testing.TB, v *canonjson.Value) {
	t.Helper()
	digest := func(x *canonjson.Value) (string, int) {
		sum, n, err := canonjson.Digest(x)
		if err != nil {
			t.Fatal(err)
		}
		return sum, n
	}
	evSum, evLen := digest(v.Get("evidence"))
	v.Get("statement").Set("evidenceSha256", canonjson.NewString(evSum))
	stSum, stLen := digest(v.Get("statement"))
	arts := v.Path("integrity", "artifacts").Items
	for _, e := range []struct {
		path string
		sum  string
		n    int
	}{{"evidence-envelope.json", evSum, evLen}, {"conformance-statement.json", stSum, stLen}} {
		for _, a := range arts {
			if a.Get("path").Str == e.path {
				a.Set("sha256", canonjson.NewString(e.sum))
				a.Set("bytes", canonjson.NewInt(int64(e.n)))
				break
			}
		}
	}
	bd, err := validator.BundleDigest(arts)
	if err != nil {
		t.Fatal(err)
	}
	v.Get("integrity").Set("bundleDigest", canonjson.NewString(bd))
}

// The committed example is sealed, in the canonjson.Pretty layout, carries
// its fixed identities, and is valid with exactly the v0.1 rules.
func TestV01ExampleFixture(t *testing.T) {
	raw, v, err := canonjson.ReadFile(v01ExampleFile)
	if err != nil {
		t.Fatal(err)
	}
	if !*update && !bytes.Equal(pretty(t, v), raw) {
		t.Errorf("%s is not in the canonjson.Pretty layout", v01ExampleFile)
	}
	sealed := v.Clone()
	if *update {
		for _, id := range v01Identities {
			put(t, sealed, id.ptr, canonjson.NewString(canonjson.TextDigest(id.text+"\n")))
		}
	}
	sealV01(t, sealed)
	syncFile(t, v01ExampleFile, pretty(t, sealed))

	for _, id := range v01Identities {
		if got, want := at(t, v, id.ptr).Str, canonjson.TextDigest(id.text+"\n"); got != want {
			t.Errorf("%s = %s, want sha256(%q) = %s", id.ptr, got, id.text+"\n", want)
		}
	}
	val := validator.New()
	for name, f := range map[string]func(*canonjson.Value) (validator.Result, error){
		"v01": v01.New(val).Validate, "document": documentOf(val),
	} {
		r, err := f(v)
		if err != nil || !r.Valid {
			t.Errorf("%s: %+v, %v; want valid", name, r, err)
		}
	}
	// The v0.2 rules reject it: a v0.1 bundle stays a v0.1 bundle (MCP-RES §1).
	if r, err := val.Bundle(v); err == nil && r.Valid {
		t.Error("Bundle (v0.2 rules) accepts the v0.1 example")
	}
}

// v01FixtureBackedFile is a second v0.1 example derived from the first
// (TestV01FixtureBackedFixture keeps it so): the minimal shape, with no
// source projection and no regression, claiming FIXTURE_BACKED_PROTOCOL.
// Its migration lists 15 legacy assertions and SOURCE_EVIDENCE among the
// unresolved requirements, and its class can be promoted.
var v01FixtureBackedFile = filepath.Join("testdata", "fixture-backed.json")

func TestV01FixtureBackedFixture(t *testing.T) {
	v := v01Example(t)
	for ptr, text := range map[string]string{
		v1Ev + "/evidenceClass":                `"FIXTURE_BACKED_PROTOCOL"`,
		v1Stmt + "/evidenceClass":              `"FIXTURE_BACKED_PROTOCOL"`,
		v1Exec + "/actualRuntime":              `false`,
		v1Exec + "/fixtureUsed":                `true`,
		v1Exec + "/regressionExecuted":         `false`,
		v1Subject + "/transport/kind":          `"IN_PROCESS"`,
		v1Ev + "/run/id":                       `"run-mcpres-legacy-fixture-5d07"`,
		v1Stmt + "/verifiedAt":                 `"2026-03-14T10:02:00.000Z"`,
		v1Policy + "/sideEffectModel":          `"READ_ONLY"`,
		v1Policy + "/safetyMechanism":          `null`,
		v1Policy + "/cancellationBoundary":     `"PER_OPERATION"`,
		v1Ev + "/cleanup/targetState":          `"CLEAN"`,
		v1Ev + "/operations/1/outcome":         `"EXPECTED_FAILURE"`,
		v1Ev + "/faults/0/method":              `"RETURN_ERROR"`,
		v1Ev + "/faults/0/expectedEffect":      `"FAILURE"`,
		v1Ev + "/faults/0/activation/trigger":  `"BEFORE_OPERATION"`,
		v1Ev + "/recoveryPolicies/0/backoff":   `{"kind":"FIXED","maxDelayMs":50}`,
		v1Ev + "/limits/scenarioDurationMs":    `10000`,
		v1Ev + "/operations/2/startedOffsetMs": `1950`,
		v1Ev + "/operations/3/startedOffsetMs": `2500`,
		v1Ev + "/operations/1/durationMs":      `1200`,
		v1Ev + "/operations/0/durationMs":      `150`,
		v1Ev + "/operations/2/durationMs":      `300`,
		v1Ev + "/operations/3/durationMs":      `200`,
		v1Ev + "/limits/eventCount":            `500`,
		v1Ev + "/subject/runtimes/0/version":   `"22.11.0"`,
		v1Ev + "/limits/totalDurationMs":       `30000`,
		v1Ev + "/limits/generatedOutputBytes":  `65536`,
		v1Ev + "/limits/inputBytes":            `65536`,
		v1Ev + "/cleanup/durationMs":           `40`,
		v1Ev + "/cleanup/temporaryArtifacts":   `"NONE"`,
		v1Ev + "/cleanup/partialOutput":        `"COMPLETE"`,
	} {
		put(t, v, ptr, lit(t, text))
	}
	for _, op := range at(t, v, v1Ops).Items {
		op.Set("runId", canonjson.NewString("run-mcpres-legacy-fixture-5d07"))
	}
	remove(v1Source)(t, v)
	remove(v1Reg)(t, v)
	remove(v1ArtSource)(t, v)
	sealV01(t, v)
	syncFile(t, v01FixtureBackedFile, pretty(t, v))

	_, committed, err := canonjson.ReadFile(v01FixtureBackedFile)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := v01.New(nil).Validate(committed); err != nil || !r.Valid {
		t.Errorf("%s: %+v, %v; want valid", v01FixtureBackedFile, r, err)
	}
}
